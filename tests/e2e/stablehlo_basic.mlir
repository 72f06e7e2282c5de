// A first slice of StableHLO input (issue 3): element-wise ops, compare
// and select, broadcast_in_dim, dot_general, reduce, iota, slice,
// concatenate, transpose and convert.
func.func @elementwise_and_select() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>
  %s = stablehlo.add %a, %b : tensor<4xf32>
  %p = stablehlo.compare GT, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %r = stablehlo.select %p, %s, %b : tensor<4xi1>, tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.5, 0.5, 3.5, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  %n = stablehlo.abs %a : tensor<4xf32>
  %i = "stablehlo.convert"(%n) : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const(%i, dense<[1, 2, 3, 4]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @shapes_and_contractions() {
  %v = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %bc = "stablehlo.broadcast_in_dim"(%v) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x3xf32>
  %iota = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xf32>
  %m = stablehlo.multiply %bc, %iota : tensor<2x3xf32>
  check.expect_almost_eq_const(%m, dense<[[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %t = "stablehlo.transpose"(%m) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %d = "stablehlo.dot_general"(%m, %t) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%d, dense<[[5.0, 10.0], [10.0, 20.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = "stablehlo.reduce"(%m, %zero) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %z = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %z : tensor<f32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_almost_eq_const(%sum, dense<[3.0, 6.0]> : tensor<2xf32>) : tensor<2xf32>
  %sl = "stablehlo.slice"(%m) {start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %cat = "stablehlo.concatenate"(%sl, %sl) {dimension = 0 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%cat, dense<[[2.0, 4.0], [2.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
