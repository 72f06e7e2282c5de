// An element-wise generic reading a reshape that merges dimensions
// ([8, 4, 6] to [8, 24], through a second reshape that adds a unit
// dimension) and a bias over the merged dimension: the chain of reshapes
// is one, the add moves above it, reading the bias reshaped to [4, 6],
// and fuses with the producer: one dispatch.
func.func @merged(%x: tensor<8x4x6xf32>, %bias: tensor<24xf32>) -> tensor<1x8x24xf32> {
  %e = tensor.empty() : tensor<8x4x6xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<8x4x6xf32>) outs(%e : tensor<8x4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<8x4x6xf32>
  %s1 = arith.constant dense<[8, 24]> : tensor<2xi64>
  %r1 = tensor.reshape %p(%s1) : (tensor<8x4x6xf32>, tensor<2xi64>) -> tensor<8x24xf32>
  %s2 = arith.constant dense<[1, 8, 24]> : tensor<3xi64>
  %r2 = tensor.reshape %r1(%s2) : (tensor<8x24xf32>, tensor<3xi64>) -> tensor<1x8x24xf32>
  %e2 = tensor.empty() : tensor<1x8x24xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r2, %bias : tensor<1x8x24xf32>, tensor<24xf32>) outs(%e2 : tensor<1x8x24xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x24xf32>
  return %y : tensor<1x8x24xf32>
}
