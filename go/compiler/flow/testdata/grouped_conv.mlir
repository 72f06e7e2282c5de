// A grouped 3×3 convolution (2 groups of 4 input and 3 output channels,
// stride 2) on a batch of one: im2col as [2, 36, 9] columns and a product
// batched over the groups; the 1-channel-per-group one below stays.
func.func @grouped(%x: tensor<1x2x4x7x7xf32>, %w: tensor<2x3x4x3x3xf32>) -> tensor<1x2x3x3x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x3x3x3xf32>) -> tensor<1x2x3x3x3xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, g, f, oh, ow, c, kh, kw) -> (g, f, c, kh, kw)>, affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x4x7x7xf32>, tensor<2x3x4x3x3xf32>) outs(%f : tensor<1x2x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3x3xf32>
  return %c : tensor<1x2x3x3x3xf32>
}

func.func @one_channel_per_group(%x: tensor<1x2x1x7x7xf32>, %w: tensor<2x3x1x3x3xf32>) -> tensor<1x2x3x5x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x5x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x3x5x5xf32>) -> tensor<1x2x3x5x5xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>, affine_map<(n, g, f, oh, ow, c, kh, kw) -> (g, f, c, kh, kw)>, affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x1x7x7xf32>, tensor<2x3x1x3x3xf32>) outs(%f : tensor<1x2x3x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x5x5xf32>
  return %c : tensor<1x2x3x5x5xf32>
}
