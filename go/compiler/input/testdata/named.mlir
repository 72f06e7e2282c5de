func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}
func.func @conv(%i: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %r : tensor<1x2x2x4xf32>
}
func.func @t(%a: tensor<2x3xi32>, %e: tensor<3x2xi32>) -> tensor<3x2xi32> {
  %t = linalg.transpose ins(%a : tensor<2x3xi32>) outs(%e : tensor<3x2xi32>) permutation = [1, 0]
  return %t : tensor<3x2xi32>
}
