// CHLO special functions compute in f64 and round to the element type;
// ops with a math counterpart map to it.
func.func public @special(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.asinh %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
