// StableHLO pretty forms as JAX emits them: a convolution with compact
// dimension numbers and a reversed second window dimension (the kernel is
// read at 2 - k there), and a reduce in the "applies" form.
func.func public @conv(%x: tensor<1x4x4x2xf32>, %w: tensor<2x3x2x3xf32>) -> tensor<1x3x2x3xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<2x3x2x3xf32>) -> tensor<1x3x2x3xf32>
  return %0 : tensor<1x3x2x3xf32>
}
func.func public @sum(%x: tensor<4x6xf32>) -> tensor<4xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// f16 -> bf16 has no single arith op (same width): through f32.
func.func public @f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = stablehlo.convert %x : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
