// Scatter and sort get dispatch regions of their own; a long static sort
// gets scratch results; a gather generic consuming a reduction stays out
// of the reduction's dispatch (no fused epilogue reads by index).
func.func @f(%x: tensor<8x40xf32>, %i: tensor<3x1xi32>, %u: tensor<3x40xf32>) -> (tensor<8x40xf32>, tensor<8x40xf32>, tensor<3xf32>) {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<8x40xf32>) -> tensor<8x40xf32>
  %c = "stablehlo.scatter"(%s, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<8x40xf32>, tensor<3x1xi32>, tensor<3x40xf32>) -> tensor<8x40xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x40xf32>, tensor<f32>) -> tensor<8xf32>
  %g = "stablehlo.gather"(%r, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return %s, %c, %g : tensor<8x40xf32>, tensor<8x40xf32>, tensor<3xf32>
}
