// StableHLO's data-dependent ops (issue 3): gather (clamped start
// indices), dynamic_gather, scatter (repeated and out-of-range indices,
// windows before the scatter dimension), multi-operand stable sort, NaN
// total order, chlo.top_k and select_and_scatter. Expected values were
// computed with numpy.

func.func @gather_points_clamped() {
  %x = util.unfoldable_constant dense<[[1.5, -2.25, 3.0, 0.5, -7.0], [4.0, 2.5, -1.0, 6.25, 0.75], [-3.5, 8.0, 1.25, -0.5, 2.0], [9.5, -4.75, 0.25, 3.5, -6.0]]> : tensor<4x5xf32>
  %i = util.unfoldable_constant dense<[[3, 1], [0, 4], [2, 2], [7, -3], [1, 0]]> : tensor<5x2xi32>
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<4x5xf32>, tensor<5x2xi32>) -> tensor<5xf32>
  check.expect_eq_const(%g, dense<[-4.75, -7.0, 1.25, 9.5, 4.0]> : tensor<5xf32>) : tensor<5xf32>
  return
}

func.func @dynamic_gather_windows() {
  %x = util.unfoldable_constant dense<[[1.5, -2.25, 3.0, 0.5, -7.0], [4.0, 2.5, -1.0, 6.25, 0.75], [-3.5, 8.0, 1.25, -0.5, 2.0], [9.5, -4.75, 0.25, 3.5, -6.0]]> : tensor<4x5xf32>
  %i = util.unfoldable_constant dense<[[0, 0], [3, 4], [1, 2]]> : tensor<3x2xi64>
  %sizes = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %g = "stablehlo.dynamic_gather"(%x, %i, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>} : (tensor<4x5xf32>, tensor<3x2xi64>, tensor<2xi64>) -> tensor<3x2x3xf32>
  check.expect_eq_const(%g, dense<[[[1.5, -2.25, 3.0], [4.0, 2.5, -1.0]], [[1.25, -0.5, 2.0], [0.25, 3.5, -6.0]], [[-1.0, 6.25, 0.75], [1.25, -0.5, 2.0]]]> : tensor<3x2x3xf32>) : tensor<3x2x3xf32>
  return
}

func.func @scatter_add_rows_repeated_and_out_of_range() {
  %x = util.unfoldable_constant dense<[[0.0, 0.5, 1.0], [1.5, 2.0, 2.5], [3.0, 3.5, 4.0], [4.5, 5.0, 5.5], [6.0, 6.5, 7.0]]> : tensor<5x3xf32>
  %i = util.unfoldable_constant dense<[[3], [0], [3], [9], [1], [3], [-1]]> : tensor<7x1xi32>
  %u = util.unfoldable_constant dense<[[1.25, -2.0, 0.5], [3.0, 3.5, -1.0], [0.25, 0.25, 0.25], [100.0, 100.0, 100.0], [-4.0, 2.0, 8.0], [1.0, -1.0, 1.0], [50.0, 50.0, 50.0]]> : tensor<7x3xf32>
  %r = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x3xf32>, tensor<7x1xi32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  check.expect_almost_eq_const(%r, dense<[[3.0, 4.0, 0.0], [-2.5, 4.0, 10.5], [3.0, 3.5, 4.0], [7.0, 2.25, 7.25], [6.0, 6.5, 7.0]]> : tensor<5x3xf32>) : tensor<5x3xf32>
  return
}

func.func @scatter_max_columns() {
  %x = util.unfoldable_constant dense<[[5, -1, 7, 2], [0, 9, -3, 4], [8, 1, 1, -6]]> : tensor<3x4xi32>
  %i = util.unfoldable_constant dense<[2, 0, 2]> : tensor<3xi32>
  %u = util.unfoldable_constant dense<[[6, 4, 9], [-2, 3, 1], [10, 0, 12]]> : tensor<3x3xi32>
  %r = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.maximum %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = false} : (tensor<3x4xi32>, tensor<3xi32>, tensor<3x3xi32>) -> tensor<3x4xi32>
  check.expect_eq_const(%r, dense<[[5, -1, 9, 2], [3, 9, 1, 4], [8, 1, 12, -6]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  return
}

func.func @sort_two_operands_descending_stable() {
  %k = util.unfoldable_constant dense<[[3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8]]> : tensor<2x8xi32>
  %v = util.unfoldable_constant dense<[[0.0, 1.5, 3.0, 4.5, 6.0, 7.5, 9.0, 10.5], [12.0, 13.5, 15.0, 16.5, 18.0, 19.5, 21.0, 22.5]]> : tensor<2x8xf32>
  %s:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x8xi32>, tensor<2x8xf32>) -> (tensor<2x8xi32>, tensor<2x8xf32>)
  check.expect_eq_const(%s#0, dense<[[9, 6, 5, 4, 3, 2, 1, 1], [8, 8, 8, 7, 2, 2, 1, 1]]> : tensor<2x8xi32>) : tensor<2x8xi32>
  check.expect_eq_const(%s#1, dense<[[7.5, 10.5, 6.0, 3.0, 0.0, 9.0, 1.5, 4.5], [16.5, 19.5, 22.5, 13.5, 12.0, 18.0, 15.0, 21.0]]> : tensor<2x8xf32>) : tensor<2x8xf32>
  return
}

func.func @sort_total_order() {
  %x = util.unfoldable_constant dense<[0.5, 0x7FC00000, 0.0, -0.0, 0xFF800000, 2.0, 0x7F800000, -3.5]> : tensor<8xf32>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = false} : (tensor<8xf32>) -> tensor<8xf32>
  %bits = "stablehlo.bitcast_convert"(%s) : (tensor<8xf32>) -> tensor<8xi32>
  // -inf, -3.5, -0.0, 0.0, 0.5, 2.0, inf, NaN (as bits: -0.0 before +0.0).
  check.expect_eq_const(%bits, dense<[-8388608, -1067450368, -2147483648, 0, 1056964608, 1073741824, 2139095040, 2143289344]> : tensor<8xi32>) : tensor<8xi32>
  return
}

func.func @top_k() {
  %x = util.unfoldable_constant dense<[[0.5, -1.0, 3.25, 3.25, 2.0, -0.0], [7.0, 1.0, -2.5, 7.5, 0.0, 6.0]]> : tensor<2x6xf32>
  %v, %i = chlo.top_k(%x, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  check.expect_eq_const(%v, dense<[[3.25, 3.25, 2.0], [7.5, 7.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_eq_const(%i, dense<[[2, 3, 4], [3, 0, 5]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @select_and_scatter_max() {
  %x = util.unfoldable_constant dense<[[1.0, 5.0, 2.0, 0.0, 3.0, 3.0], [4.0, 5.0, 1.0, 7.0, 2.0, 1.0], [9.0, 0.0, 0.0, 1.0, 1.0, 1.0], [2.0, 9.0, 3.0, 1.0, 1.0, 8.0]]> : tensor<4x6xf32>
  %src = util.unfoldable_constant dense<[[0.5, 2.0], [-1.5, 4.0]]> : tensor<2x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %src, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>} : (tensor<4x6xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x6xf32>
  check.expect_eq_const(%r, dense<[[0.0, 0.5, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0, 0.0], [-1.5, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 4.0]]> : tensor<4x6xf32>) : tensor<4x6xf32>
  return
}

func.func @scatter_two_inputs() {
  %x = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = util.unfoldable_constant dense<[10, -20, 30, -40]> : tensor<4xi32>
  %i = util.unfoldable_constant dense<[[3], [1], [3]]> : tensor<3x1xi32>
  %u = util.unfoldable_constant dense<[0.5, -1.25, 2.0]> : tensor<3xf32>
  %v = util.unfoldable_constant dense<[7, 5, -50]> : tensor<3xi32>
  %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
    %s = stablehlo.add %a, %c : tensor<f32>
    %m = stablehlo.maximum %b, %d : tensor<i32>
    stablehlo.return %s, %m : tensor<f32>, tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<4xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  check.expect_eq_const(%r#0, dense<[1.0, 0.75, 3.0, 6.5]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%r#1, dense<[10, 5, 30, 7]> : tensor<4xi32>) : tensor<4xi32>
  return
}
