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

// A recurrence whose step product (4 column blocks of 64 over K = 128,
// 32768 multiply-adds) is large enough that llvm-cpu shares each step
// among its workgroups (codegen's cooperative recurrences): the blocks
// split between two workgroups, the cell and the insert run on one. The
// cell reads the product's two halves through offset maps. Weights,
// inputs and the initial state are index patterns; expected values from
// numpy (float64).
func.func @cooperative_rnn_steps() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %ew = tensor.empty() : tensor<4x128x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, k, n) -> (b, k, n)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%ew : tensor<4x128x64xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %k = linalg.index 1 : index
    %n = linalg.index 2 : index
    %c131 = arith.constant 131 : index
    %c31 = arith.constant 31 : index
    %c17 = arith.constant 17 : index
    %c97 = arith.constant 97 : index
    %c48 = arith.constant 48 : index
    %s1 = arith.muli %b, %c131 : index
    %s2 = arith.muli %k, %c31 : index
    %s3 = arith.muli %n, %c17 : index
    %s4 = arith.addi %s1, %s2 : index
    %s5 = arith.addi %s4, %s3 : index
    %s6 = arith.remsi %s5, %c97 : index
    %s7 = arith.subi %s6, %c48 : index
    %s8 = arith.index_cast %s7 : index to i32
    %f = arith.sitofp %s8 : i32 to f32
    %scale = arith.constant 0.00128865979 : f32
    %v = arith.mulf %f, %scale : f32
    linalg.yield %v : f32
  } -> tensor<4x128x64xf32>
  %ex = tensor.empty() : tensor<6x1x128xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(t, b, j) -> (t, b, j)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%ex : tensor<6x1x128xf32>) {
  ^bb0(%o: f32):
    %t = linalg.index 0 : index
    %j = linalg.index 2 : index
    %c37 = arith.constant 37 : index
    %c11 = arith.constant 11 : index
    %c29 = arith.constant 29 : index
    %c14 = arith.constant 14 : index
    %s1 = arith.muli %t, %c37 : index
    %s2 = arith.muli %j, %c11 : index
    %s3 = arith.addi %s1, %s2 : index
    %s4 = arith.remsi %s3, %c29 : index
    %s5 = arith.subi %s4, %c14 : index
    %s6 = arith.index_cast %s5 : index to i32
    %f = arith.sitofp %s6 : i32 to f32
    %d = arith.constant 29.0 : f32
    %v = arith.divf %f, %d : f32
    linalg.yield %v : f32
  } -> tensor<6x1x128xf32>
  %eh = tensor.empty() : tensor<1x128xf32>
  %h0 = linalg.generic {indexing_maps = [affine_map<(b, j) -> (b, j)>], iterator_types = ["parallel", "parallel"]} outs(%eh : tensor<1x128xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c6i = arith.constant 6 : index
    %s1 = arith.muli %j, %c7 : index
    %s2 = arith.remsi %s1, %c13 : index
    %s3 = arith.subi %s2, %c6i : index
    %s4 = arith.index_cast %s3 : index to i32
    %f = arith.sitofp %s4 : i32 to f32
    %d = arith.constant 13.0 : f32
    %v = arith.divf %f, %d : f32
    linalg.yield %v : f32
  } -> tensor<1x128xf32>
  %ey = tensor.empty() : tensor<6x1x128xf32>
  %y0 = linalg.fill ins(%zero : f32) outs(%ey : tensor<6x1x128xf32>) -> tensor<6x1x128xf32>
  %r:2 = scf.for %i = %c0 to %c6 step %c1 iter_args(%h = %h0, %y = %y0) -> (tensor<1x128xf32>, tensor<6x1x128xf32>) {
    %e = tensor.empty() : tensor<4x1x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
    %p = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%h, %w : tensor<1x128xf32>, tensor<4x128x64xf32>) outs(%f : tensor<4x1x64xf32>) {
    ^bb0(%a: f32, %bw: f32, %c: f32):
      %m = arith.mulf %a, %bw : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<4x1x64xf32>
    %pf = tensor.collapse_shape %p [[0, 1, 2]] : tensor<4x1x64xf32> into tensor<256xf32>
    %p2 = tensor.expand_shape %pf [[0, 1]] output_shape [1, 256] : tensor<256xf32> into tensor<1x256xf32>
    %e2 = tensor.empty() : tensor<1x128xf32>
    %hn = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 0)>, affine_map<(d0, d1) -> (d0, d1 + 128)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p2, %p2, %h : tensor<1x256xf32>, tensor<1x256xf32>, tensor<1x128xf32>) outs(%e2 : tensor<1x128xf32>) {
    ^bb0(%lo: f32, %hi: f32, %hv: f32, %o: f32):
      %j = linalg.index 1 : index
      %xv = tensor.extract %x[%i, %c0, %j] : tensor<6x1x128xf32>
      %hh = arith.mulf %hi, %half : f32
      %s1 = arith.addf %lo, %hh : f32
      %s2 = arith.addf %s1, %xv : f32
      %th = math.tanh %s2 : f32
      %q = arith.mulf %hv, %quarter : f32
      %n = arith.addf %th, %q : f32
      linalg.yield %n : f32
    } -> tensor<1x128xf32>
    %row = tensor.expand_shape %hn [[0, 1], [2]] output_shape [1, 1, 128] : tensor<1x128xf32> into tensor<1x1x128xf32>
    %yn = tensor.insert_slice %row into %y[%i, 0, 0] [1, 1, 128] [1, 1, 1] : tensor<1x1x128xf32> into tensor<6x1x128xf32>
    scf.yield %hn, %yn : tensor<1x128xf32>, tensor<6x1x128xf32>
  }
  %hhead = tensor.extract_slice %r#0[0, 0] [1, 8] [1, 1] : tensor<1x128xf32> to tensor<1x8xf32>
  %htail = tensor.extract_slice %r#0[0, 120] [1, 8] [1, 1] : tensor<1x128xf32> to tensor<1x8xf32>
  %y3 = tensor.extract_slice %r#1[3, 0, 64] [1, 1, 8] [1, 1, 1] : tensor<6x1x128xf32> to tensor<1x1x8xf32>
  %y0t = tensor.extract_slice %r#1[0, 0, 120] [1, 1, 8] [1, 1, 1] : tensor<6x1x128xf32> to tensor<1x1x8xf32>
  check.expect_almost_eq_const(%hhead, dense<[[-0.243029, 0.251380, -0.234897, 0.067939, 0.464245, -0.296665, 0.133419, -0.341332]]> : tensor<1x8xf32>) : tensor<1x8xf32>
  check.expect_almost_eq_const(%htail, dense<[[0.384395, -0.296135, 0.166072, -0.313214, -0.156680, 0.318261, -0.199422, -0.003168]]> : tensor<1x8xf32>) : tensor<1x8xf32>
  check.expect_almost_eq_const(%y3, dense<[[[-0.292508, -0.107137, 0.311524, -0.113732, 0.064631, -0.395882, -0.108624, 0.248116]]]> : tensor<1x1x8xf32>) : tensor<1x1x8xf32>
  check.expect_almost_eq_const(%y0t, dense<[[[0.110685, 0.293071, -0.193847, 0.138178, -0.388905, -0.173411, 0.409742, -0.267572]]]> : tensor<1x1x8xf32>) : tensor<1x1x8xf32>
  return
}
