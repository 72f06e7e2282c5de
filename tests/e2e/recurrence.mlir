// A recurrent layer as a host loop: each step multiplies the carried
// state by a weight, adds the step's input row (read at the run-time
// step, in reverse order), applies tanh, adds half the old state, and
// stores the new state into Y. On llvm-cpu the whole loop runs as one
// kernel (flow.FormRecurrences); elsewhere as a host loop of kernels.
// Expected values from numpy (float64).
func.func @reverse_rnn_steps() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %x = util.unfoldable_constant dense<[[[0.02, 0.9, -0.71, 0.9, -0.38, -0.15, 0.66, -0.18]], [[0.1, -0.94, 0.51, 0.08, -0.34, 0.58, -0.39, -0.09]], [[-0.73, -0.19, -0.59, -0.48, 0.5, -0.44, -0.03, 0.96]], [[0.92, 0.45, 0.08, -0.45, -0.68, 0.94, 0.03, -0.77]]]> : tensor<4x1x8xf32>
  %w = util.unfoldable_constant dense<[[0.12, 0.28, 0.11, 0.42, -0.46, 0.03, -0.04, -0.44], [0.14, 0.35, 0.09, -0.24, 0.34, 0.01, 0.01, 0.25], [-0.35, 0.32, 0.18, 0.29, -0.31, 0.3, -0.31, -0.42], [0.36, 0.36, 0.38, -0.03, -0.23, -0.49, 0.15, 0.22], [0.34, -0.22, -0.28, 0.14, 0.31, 0.46, -0.35, -0.02], [0.39, -0.08, 0.09, -0.48, 0.17, 0.42, 0.33, 0.39], [0.16, -0.25, 0.27, -0.29, 0.33, -0.44, 0.33, -0.34], [-0.12, -0.18, 0.19, -0.32, -0.1, -0.49, -0.24, -0.08]]> : tensor<8x8xf32>
  %h0 = util.unfoldable_constant dense<[[-0.79, 0.27, -0.24, 0.45, 0.31, -0.14, 0.73, 0.26]]> : tensor<1x8xf32>
  %ey = tensor.empty() : tensor<4x1x8xf32>
  %y0 = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x1x8xf32>) -> tensor<4x1x8xf32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %y = %y0) -> (tensor<1x8xf32>, tensor<4x1x8xf32>) {
    %t = arith.subi %c3, %i : index
    %e = tensor.empty() : tensor<1x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
    %p = linalg.matmul ins(%h, %w : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f : tensor<1x8xf32>) -> tensor<1x8xf32>
    %e2 = tensor.empty() : tensor<1x8xf32>
    %hn = linalg.generic {indexing_maps = [affine_map<(b, j) -> (b, j)>, affine_map<(b, j) -> (b, j)>, affine_map<(b, j) -> (b, j)>], iterator_types = ["parallel", "parallel"]} ins(%p, %h : tensor<1x8xf32>, tensor<1x8xf32>) outs(%e2 : tensor<1x8xf32>) {
    ^bb0(%pv: f32, %hv: f32, %o: f32):
      %b = linalg.index 0 : index
      %j = linalg.index 1 : index
      %xv = tensor.extract %x[%t, %b, %j] : tensor<4x1x8xf32>
      %s = arith.addf %pv, %xv : f32
      %th = math.tanh %s : f32
      %hh = arith.mulf %hv, %half : f32
      %n = arith.addf %th, %hh : f32
      linalg.yield %n : f32
    } -> tensor<1x8xf32>
    %row = tensor.expand_shape %hn [[0, 1], [2]] output_shape [1, 1, 8] : tensor<1x8xf32> into tensor<1x1x8xf32>
    %yn = tensor.insert_slice %row into %y[%t, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<1x1x8xf32> into tensor<4x1x8xf32>
    scf.yield %hn, %yn : tensor<1x8xf32>, tensor<4x1x8xf32>
  }
  check.expect_almost_eq_const(%r#0, dense<[[0.241452, -0.387534, -0.939574, 0.440713, 0.070918, 1.02614, 0.279423, -0.14232]]> : tensor<1x8xf32>) : tensor<1x8xf32>
  check.expect_almost_eq_const(%r#1, dense<[[[0.241452, -0.387534, -0.939574, 0.440713, 0.070918, 1.02614, 0.279423, -0.14232]], [[0.089956, -1.018285, -0.171488, -0.621833, 0.762332, 0.699365, -0.28927, 0.091629]], [[-0.336722, -0.141334, -0.486471, -0.685913, 0.746244, 0.064292, 0.379135, 0.319145]], [[0.451989, 0.256595, 0.16425, -0.580472, 0.188288, 0.185885, 0.591028, -0.320159]]]> : tensor<4x1x8xf32>) : tensor<4x1x8xf32>
  check.expect_almost_eq_const(%h0, dense<[[-0.79, 0.27, -0.24, 0.45, 0.31, -0.14, 0.73, 0.26]]> : tensor<1x8xf32>) : tensor<1x8xf32>
  return
}
