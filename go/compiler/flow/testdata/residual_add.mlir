// A 1x1 convolution as a matmul with its bias, reshaped back to NCHW and
// added to a residual connection (MobileNetV2's projection layers): the
// add moves above the reshape, reading the skip tensor reshaped to the
// matmul's shape, and fuses into the matmul's epilogue: one dispatch.
func.func @conv1x1_bias_residual(%w: tensor<24x16xf32>, %x: tensor<16x64xf32>, %bias: tensor<24xf32>, %skip: tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<24x64xf32>) -> tensor<24x64xf32>
  %m = linalg.matmul ins(%w, %x : tensor<24x16xf32>, tensor<16x64xf32>) outs(%f : tensor<24x64xf32>) -> tensor<24x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<24x64xf32>, tensor<24xf32>) outs(%e : tensor<24x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<24x64xf32>
  %shape = arith.constant dense<[1, 24, 8, 8]> : tensor<4xi64>
  %r = tensor.reshape %b(%shape) : (tensor<24x64xf32>, tensor<4xi64>) -> tensor<1x24x8x8xf32>
  %e4 = tensor.empty() : tensor<1x24x8x8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%skip, %r : tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) outs(%e4 : tensor<1x24x8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<1x24x8x8xf32>
  return %a : tensor<1x24x8x8xf32>
}
