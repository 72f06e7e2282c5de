// More named ops and tensor ops, each checked against hand-computed values.
func.func @vecmat_and_conv1d() {
  %v = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.vecmat ins(%v, %m : tensor<2xf32>, tensor<2x3xf32>) outs(%f : tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const(%r, dense<[9.0, 12.0, 15.0]> : tensor<3xf32>) : tensor<3xf32>
  // conv_1d_nwc_wcf: 1x4x1 input [1 2 3 4], 2x1x1 filter [1 -1] -> [-1 -1 -1].
  %in = util.unfoldable_constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %w = util.unfoldable_constant dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %e2 = tensor.empty() : tensor<1x3x1xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  %c = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%in, %w : tensor<1x4x1xf32>, tensor<2x1x1xf32>) outs(%f2 : tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  check.expect_almost_eq_const(%c, dense<[[[-1.0], [-1.0], [-1.0]]]> : tensor<1x3x1xf32>) : tensor<1x3x1xf32>
  return
}

func.func @pooling_sum_and_nchw_max() {
  %in = util.unfoldable_constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x1x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %win : tensor<1x2x2x1xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  check.expect_almost_eq_const(%s, dense<10.0> : tensor<1x1x1x1xf32>) : tensor<1x1x1x1xf32>
  %nchw = util.unfoldable_constant dense<[[[[1.0, 5.0, 2.0], [0.0, 3.0, 9.0]]]]> : tensor<1x1x2x3xf32>
  %win2 = tensor.empty() : tensor<2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<1x1x1x2xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %mx = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%nchw, %win2 : tensor<1x1x2x3xf32>, tensor<2x2xf32>) outs(%f2 : tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  check.expect_eq_const(%mx, dense<[[[[5.0, 9.0]]]]> : tensor<1x1x1x2xf32>) : tensor<1x1x1x2xf32>
  return
}

func.func @tensor_reshape_and_batch_matvec() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %shape = arith.constant dense<[3, 2]> : tensor<2xi64>
  %r = tensor.reshape %a(%shape) : (tensor<6xi32>, tensor<2xi64>) -> tensor<3x2xi32>
  check.expect_eq_const(%r, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  %m = util.unfoldable_constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>
  %v = util.unfoldable_constant dense<[[3.0, 4.0], [1.0, -1.0]]> : tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %bm = linalg.batch_matvec ins(%m, %v : tensor<2x2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%bm, dense<[[3.0, 4.0], [1.0, -1.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @scalar_host_math() {
  %x = util.unfoldable_constant 2.0 : f32
  %e = math.exp %x : f32
  %l = math.log %e : f32
  %t = tensor.from_elements %l : tensor<1xf32>
  check.expect_almost_eq_const(%t, dense<[2.0]> : tensor<1xf32>) : tensor<1xf32>
  %a = util.unfoldable_constant 7 : i32
  %b = arith.constant 2 : i32
  %c = arith.ceildivsi %a, %b : i32
  %four = arith.constant 4 : i32
  %ok = arith.cmpi eq, %c, %four : i32
  check.expect_true(%ok) : i1
  return
}
