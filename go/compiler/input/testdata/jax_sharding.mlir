// JAX's sharding annotations (Shardy and GSPMD) are identities on one
// device: the mesh, the constraint, the reshard and @Sharding all go.
module @jit_h attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=1]> {stablehlo.mesh = {axes = [{name = "a", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> (tensor<4xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"a"}]> : tensor<4xf32>
    %1 = sdy.reshard %0 <@mesh, [{}]> : tensor<4xf32>
    %2 = stablehlo.custom_call @Sharding(%1) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.add %2, %arg0 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
// jax.export's shape assertion on a symbolic dimension is dropped.
func.func public @poly(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %0 = "stablehlo.get_dimension_size"(%arg0) <{dimension = 0 : i64}> : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "b >= 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %arg0 : tensor<?x4xf32>
}
