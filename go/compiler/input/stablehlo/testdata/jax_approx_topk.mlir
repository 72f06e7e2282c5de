// lax.approx_max_k(x, 4) as JAX lowers it for CPU: @ApproxTopK with the
// comparator as a called function becomes a stable sort along
// reduction_dim and a slice of the first 4; the comparator goes.
module @jit_atk attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @top_k_gt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %0 : tensor<i1>
  }
  func.func public @main(%arg0: tensor<3x20xf32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {
    %0 = stablehlo.iota dim = 1 : tensor<3x20xi32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1:2 = stablehlo.custom_call @ApproxTopK(%arg0, %0, %cst, %c) {backend_config = "", called_computations = [@top_k_gt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 4 : i64}} : (tensor<3x20xf32>, tensor<3x20xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
    return %1#0, %1#1 : tensor<3x4xf32>, tensor<3x4xi32>
  }
}
