// Reshapes of constants become constants of the new shape (the same data).
func.func @f(%x: tensor<4xf32>, %y: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = tensor.collapse_shape %w [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %o = arith.addf %x, %r : tensor<4xf32>
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %s = arith.constant dense<[2, 3]> : tensor<2xi64>
  %q = tensor.reshape %v(%s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %p = arith.mulf %y, %q : tensor<2x3xf32>
  return %o, %p : tensor<4xf32>, tensor<2x3xf32>
}
