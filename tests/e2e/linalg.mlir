// Named linalg ops and linalg.generic: contractions, reductions,
// layout changes, convolutions and pooling.
func.func @matmul_static() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]]> : tensor<3x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%m, dense<[[5.0, 7.5], [14.0, 15.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @matmul_accumulate_and_i32() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %b = util.unfoldable_constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi8>
  %c = util.unfoldable_constant dense<[[100, 200], [300, 400]]> : tensor<2x2xi32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xi8>, tensor<2x2xi8>) outs(%c : tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%m, dense<[[119, 222], [343, 450]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %fa = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %fc = util.unfoldable_constant dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %fm = linalg.matmul ins(%fa, %fa : tensor<2x2xf32>, tensor<2x2xf32>) outs(%fc : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%fm, dense<[[8.0, 11.0], [16.0, 23.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @batch_matmul_matvec_dot() {
  %a = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]]> : tensor<2x2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %m = linalg.batch_matmul ins(%a, %a : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%f : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  check.expect_almost_eq_const(%m, dense<[[[7.0, 10.0], [15.0, 22.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>) : tensor<2x2x2xf32>
  %mat = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %v = util.unfoldable_constant dense<[1.0, -1.0, 2.0]> : tensor<3xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %mv = linalg.matvec ins(%mat, %v : tensor<2x3xf32>, tensor<3xf32>) outs(%f2 : tensor<2xf32>) -> tensor<2xf32>
  check.expect_almost_eq_const(%mv, dense<[5.0, 11.0]> : tensor<2xf32>) : tensor<2xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<3xf32>, tensor<3xf32>) outs(%f0 : tensor<f32>) -> tensor<f32>
  check.expect_almost_eq_const(%d, dense<6.0> : tensor<f32>) : tensor<f32>
  return
}

func.func @larger_matmul() {
  // 130x70 * 70x260 of ones: every element is 70.
  %a = util.unfoldable_constant dense<1.0> : tensor<130x70xf32>
  %b = util.unfoldable_constant dense<1.0> : tensor<70x260xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x260xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<130x260xf32>) -> tensor<130x260xf32>
  %m = linalg.matmul ins(%a, %b : tensor<130x70xf32>, tensor<70x260xf32>) outs(%f : tensor<130x260xf32>) -> tensor<130x260xf32>
  check.expect_almost_eq_const(%m, dense<70.0> : tensor<130x260xf32>) : tensor<130x260xf32>
  return
}

func.func @reduce_and_generic_reduction() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  check.expect_almost_eq_const(%s, dense<[6.0, -5.0]> : tensor<2xf32>) : tensor<2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%f3 : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  check.expect_eq_const(%mx, dense<[1.0, 5.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @transpose_broadcast_copy_map() {
  %a = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %e = tensor.empty() : tensor<3x2xi32>
  %t = linalg.transpose ins(%a : tensor<2x3xi32>) outs(%e : tensor<3x2xi32>) permutation = [1, 0]
  check.expect_eq_const(%t, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  %v = util.unfoldable_constant dense<[10, 20]> : tensor<2xi32>
  %e2 = tensor.empty() : tensor<2x3xi32>
  %b = linalg.broadcast ins(%v : tensor<2xi32>) outs(%e2 : tensor<2x3xi32>) dimensions = [1]
  check.expect_eq_const(%b, dense<[[10, 10, 10], [20, 20, 20]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  %c = linalg.copy ins(%a : tensor<2x3xi32>) outs(%e2 : tensor<2x3xi32>) -> tensor<2x3xi32>
  check.expect_eq(%c, %a) : tensor<2x3xi32>
  %m = linalg.map ins(%a, %b : tensor<2x3xi32>, tensor<2x3xi32>) outs(%e2 : tensor<2x3xi32>)
    (%x: i32, %y: i32, %init: i32) {
      %0 = arith.addi %x, %y : i32
      linalg.yield %0 : i32
    }
  check.expect_eq_const(%m, dense<[[11, 12, 13], [24, 25, 26]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @generic_with_index() {
  %e = tensor.empty() : tensor<2x3xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x3xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c10 = arith.constant 10 : index
    %t = arith.muli %i, %c10 : index
    %s = arith.addi %t, %j : index
    %r = arith.index_cast %s : index to i32
    linalg.yield %r : i32
  } -> tensor<2x3xi32>
  check.expect_eq_const(%g, dense<[[0, 1, 2], [10, 11, 12]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @softmax() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(1) ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<[[0.09003057, 0.24472848, 0.66524094], [0.33333334, 0.33333334, 0.33333334]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @conv_2d_nhwc_hwcf_strided() {
  // 1x4x4x1 input 0..15, 2x2x1x1 filter of ones, stride 2.
  %in = util.unfoldable_constant dense<[[[[0.0], [1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0], [7.0]], [[8.0], [9.0], [10.0], [11.0]], [[12.0], [13.0], [14.0], [15.0]]]]> : tensor<1x4x4x1xf32>
  %w = util.unfoldable_constant dense<1.0> : tensor<2x2x1x1xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_almost_eq_const(%c, dense<[[[[10.0], [18.0]], [[42.0], [50.0]]]]> : tensor<1x2x2x1xf32>) : tensor<1x2x2x1xf32>
  return
}

func.func @depthwise_and_pooling() {
  %in = util.unfoldable_constant dense<[[[[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]], [[4.0, 40.0], [5.0, 50.0], [6.0, 60.0]]]]> : tensor<1x2x3x2xf32>
  %w = util.unfoldable_constant dense<[[[1.0, 2.0], [1.0, 2.0]]]> : tensor<1x2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x2x3x2xf32>, tensor<1x2x2xf32>) outs(%f : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%d, dense<[[[[3.0, 60.0], [5.0, 100.0]], [[9.0, 180.0], [11.0, 220.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<1x1x2x2xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %win : tensor<1x2x3x2xf32>, tensor<2x2xf32>) outs(%f2 : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  check.expect_eq_const(%p, dense<[[[[5.0, 50.0], [6.0, 60.0]]]]> : tensor<1x1x2x2xf32>) : tensor<1x1x2x2xf32>
  return
}

func.func @matmul_bias_relu_fused() {
  %a = util.unfoldable_constant dense<[[1.0, -2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, -1.0]]> : tensor<2x2xf32>
  %bias = util.unfoldable_constant dense<[0.5, -10.0]> : tensor<2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<2x2xf32>
  // a·b = [[-5, 4], [15, 2]]; + bias = [[-4.5, -6], [15.5, -8]]; relu.
  check.expect_almost_eq_const(%r, dense<[[0.0, 0.0], [15.5, 0.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @matmul_row_bias_broadcast_map() {
  // The bias is a 1xN row read through (d0, d1) -> (0, d1), as ONNX Gemm's
  // broadcast bias imports: a constant in an epilogue's indexing map.
  %a = util.unfoldable_constant dense<[[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, -1.0], [2.0, 2.0]]> : tensor<3x2xf32>
  %bias = util.unfoldable_constant dense<[[0.5, -10.0]]> : tensor<1x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<2x2xf32>, tensor<1x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  // a·b = [[-4, 5], [13, 0]]; + bias.
  check.expect_almost_eq_const(%r, dense<[[-3.5, -5.0], [13.5, -10.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @conv_bias_fused() {
  %in = util.unfoldable_constant dense<1.0> : tensor<1x3x3x2xf32>
  %w = util.unfoldable_constant dense<0.5> : tensor<2x2x2x3xf32>
  %bias = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x3x3x2xf32>, tensor<2x2x2x3xf32>) outs(%f : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<1x2x2x3xf32>, tensor<3xf32>) outs(%e : tensor<1x2x2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x2x2x3xf32>
  // Each output sums 2x2x2 inputs of 1 times 0.5 = 4, plus the bias.
  check.expect_almost_eq_const(%r, dense<[[[[5.0, 6.0, 7.0], [5.0, 6.0, 7.0]], [[5.0, 6.0, 7.0], [5.0, 6.0, 7.0]]]]> : tensor<1x2x2x3xf32>) : tensor<1x2x2x3xf32>
  return
}

// Matmuls in generic form whose row loops (a transformer's batch and
// sequence) or batch loops (attention's batch and heads) come in pairs:
// flow merges each pair, so that codegen runs them as one matmul.
func.func @matmul_merged_loops() {
  %a = util.unfoldable_constant dense<[[[-2.0, -1.75, -1.5, -1.25], [-1.0, -0.75, -0.5, -0.25], [0.0, 0.25, 0.5, 0.75]], [[1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75], [3.0, 3.25, 3.5, 3.75]]]> : tensor<2x3x4xf32>
  %b = util.unfoldable_constant dense<[[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25], [2.0, 1.0]]> : tensor<4x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4xf32>, tensor<4x2xf32>) outs(%f : tensor<2x3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x2xf32>
  check.expect_almost_eq_const(%m, dense<[[[-3.875, -2.875], [-1.375, -0.625], [1.125, 1.625]], [[3.625, 3.875], [6.125, 6.125], [8.625, 8.375]]]> : tensor<2x3x2xf32>) : tensor<2x3x2xf32>
  // An accumulator that is not a fill is reshaped along.
  %acc = util.unfoldable_constant dense<0.5> : tensor<2x3x2xf32>
  %ma = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4xf32>, tensor<4x2xf32>) outs(%acc : tensor<2x3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x2xf32>
  check.expect_almost_eq_const(%ma, dense<[[[-3.375, -2.375], [-0.875, -0.125], [1.625, 2.125]], [[4.125, 4.375], [6.625, 6.625], [9.125, 8.875]]]> : tensor<2x3x2xf32>) : tensor<2x3x2xf32>
  %q = util.unfoldable_constant dense<[[[[-1.25, -1.0], [-0.75, -0.5], [-0.25, 0.0]], [[0.25, 0.5], [0.75, 1.0], [1.25, 1.5]]]]> : tensor<1x2x3x2xf32>
  %k = util.unfoldable_constant dense<[[[[-2.0, -1.0, 0.0], [1.0, 2.0, -2.0]], [[-1.0, 0.0, 1.0], [2.0, -2.0, -1.0]]]]> : tensor<1x2x2x3xf32>
  %e4 = tensor.empty() : tensor<1x2x3x3xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %s4 = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) outs(%f4 : tensor<1x2x3x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  check.expect_almost_eq_const(%s4, dense<[[[[1.5, -0.75, 2.0], [1.0, -0.25, 1.0], [0.5, 0.25, 0.0]], [[0.75, -1.0, -0.25], [1.25, -2.0, -0.25], [1.75, -3.0, -0.25]]]]> : tensor<1x2x3x3xf32>) : tensor<1x2x3x3xf32>
  // An LSTM's input projection: the weight's unit direction dimension is
  // indexed by the constant 0, the rows are sequence × batch.
  %x = util.unfoldable_constant dense<[[[-1.5, -1.25, -1.0, -0.75]], [[-0.5, -0.25, 0.0, 0.25]], [[0.5, 0.75, 1.0, 1.25]]]> : tensor<3x1x4xf32>
  %w = util.unfoldable_constant dense<[[[1.0, -1.0, 0.5, 2.0], [0.0, 1.0, -2.0, 0.25]]]> : tensor<1x2x4xf32>
  %e3 = tensor.empty() : tensor<3x1x2xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<3x1x2xf32>) -> tensor<3x1x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<3x1x4xf32>, tensor<1x2x4xf32>) outs(%f3 : tensor<3x1x2xf32>) {
  ^bb0(%xa: f32, %wb: f32, %o: f32):
    %p = arith.mulf %xa, %wb : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x1x2xf32>
  check.expect_almost_eq_const(%y, dense<[[[-2.25, 0.5625]], [[0.25, -0.1875]], [[2.75, -0.9375]]]> : tensor<3x1x2xf32>) : tensor<3x1x2xf32>
  return
}

// An element-wise producer whose result is also returned joins its
// consumer as a second result (flow's keepsProducer): both values right.
func.func @producer_kept_as_second_result() {
  %f = util.unfoldable_constant dense<[[0.5, 1.0], [0.0, 2.0]]> : tensor<2x2xf32>
  %c0 = util.unfoldable_constant dense<[[2.0, -1.0], [3.0, 0.25]]> : tensor<2x2xf32>
  %g = util.unfoldable_constant dense<[[1.0, 1.0], [0.5, -1.0]]> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%f, %c0, %g : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %x: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%b: f32, %out: f32):
    %t = math.tanh %b : f32
    linalg.yield %t : f32
  } -> tensor<2x2xf32>
  %d = arith.addf %c, %c : tensor<2x2xf32>
  check.expect_almost_eq_const(%h, dense<[[0.9640276, 0.0], [0.4621172, -0.4621172]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_almost_eq_const(%d, dense<[[4.0, 0.0], [1.0, -1.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
