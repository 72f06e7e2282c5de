// StableHLO gather, scatter (window after the scatter dimension, so the
// updates are rearranged), sort of two operands and chlo.top_k.
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<3x1xi32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<5x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @scatter_cols(%x: tensor<3x5xf32>, %i: tensor<2xi32>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = false} : (tensor<3x5xf32>, tensor<2xi32>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

func.func @sort_pairs(%k: tensor<2x6xi32>, %v: tensor<2x6xf32>) -> (tensor<2x6xi32>, tensor<2x6xf32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %lt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x6xi32>, tensor<2x6xf32>) -> (tensor<2x6xi32>, tensor<2x6xf32>)
  return %0#0, %0#1 : tensor<2x6xi32>, tensor<2x6xf32>
}

func.func @top_k(%x: tensor<4x7xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<4x7xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return %v, %i : tensor<4x2xf32>, tensor<4x2xi32>
}
