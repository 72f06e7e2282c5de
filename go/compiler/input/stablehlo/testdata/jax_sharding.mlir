// JAX's sharding annotations (Shardy and GSPMD) are identities on one
// device: the mesh, the constraint, the reshard and @Sharding all go.
module @jit_h attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=1]> {stablehlo.mesh = {axes = [{name = "a", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> (tensor<4xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"a"}]> : tensor<4xf32>
    %1 = sdy.reshard %0 <@mesh, [{}]> : tensor<4xf32>
    %s = stablehlo.custom_call @Sharding(%1) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.custom_call @annotate_device_placement(%s) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
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
// shard_map on a one-device mesh: lax.psum (all_reduce), all_gather and a
// self-permute over groups of one device are identities; a permute that
// moves data between devices is kept (and rejected by the conversion).
func.func public @collectives(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_gather"(%0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.collective_permute"(%1) <{source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.add %2, %arg0 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
