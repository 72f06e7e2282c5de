// A reverse (read at 2-d0) feeding a reduction over that dimension: the
// reduction's input map is the only plain use of its loop, so the reverse
// must not be fused into it (the loop would have no size).
func.func @f(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %r = stablehlo.reverse %x, dims = [0] : tensor<3x4xf32>
  %s = stablehlo.reduce(%r init: %c) applies stablehlo.add across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
