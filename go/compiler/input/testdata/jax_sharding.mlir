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
