// rng UNIFORM hashes the element index; rng_bit_generator runs Philox on
// counter (index + state offset) and returns the advanced state.
func.func public @rng(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<4xi32>) -> (tensor<3xf32>, tensor<4xi32>, tensor<2xi32>) {
  %sh = stablehlo.constant dense<[3]> : tensor<1xi64>
  %u = stablehlo.rng %a, %b, %sh, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
  %ns, %bits = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<4xi32>) -> (tensor<4xi32>, tensor<2xi32>)
  return %u, %ns, %bits : tensor<3xf32>, tensor<4xi32>, tensor<2xi32>
}
