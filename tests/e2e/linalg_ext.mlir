// IREE's iree_linalg_ext ops as input: attention with more keys than
// queries and a boolean mask, scan, topk_v2 and map_store. Expected
// values were computed with numpy.

func.func @attention_masked_3x5() {
  %q = util.unfoldable_constant dense<[[[0.03, 1.36, 1.22, -0.51], [-0.30, -0.53, 0.57, -0.06], [0.75, -1.85, 1.57, -0.10]]]> : tensor<1x3x4xf32>
  %k = util.unfoldable_constant dense<[[[0.68, -0.14, -0.38, 0.46], [0.82, -0.20, -0.15, 0.69], [-0.87, -1.51, 0.39, -0.67], [-1.92, -0.81, -0.47, -1.19], [-1.49, 0.04, 0.90, -0.23]]]> : tensor<1x5x4xf32>
  %v = util.unfoldable_constant dense<[[[-0.74, 0.38], [0.72, -0.30], [0.54, 1.04], [-0.21, -0.81], [0.35, 0.25]]]> : tensor<1x5x2xf32>
  %mask = util.unfoldable_constant dense<[[[true, true, false, true, false], [false, true, true, true, true], [true, false, false, false, true]]]> : tensor<1x3x5xi1>
  %scale = arith.constant 0.75 : f32
  %init = tensor.empty() : tensor<1x3x2xf32>
  %o = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]}
      ins(%q, %k, %v, %scale, %mask : tensor<1x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x2xf32>, f32, tensor<1x3x5xi1>) outs(%init : tensor<1x3x2xf32>) {
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  } -> tensor<1x3x2xf32>
  check.expect_almost_eq_const(%o, dense<[[[-0.050228, -0.210213], [0.321402, 0.214527], [-0.170879, 0.312123]]]> : tensor<1x3x2xf32>) : tensor<1x3x2xf32>
  return
}

func.func @scan_exclusive_max_rows() {
  %x = util.unfoldable_constant dense<[[3, -1, 4, 1, 5], [-9, 2, -6, 5, 3]]> : tensor<2x5xi32>
  %init = tensor.empty() : tensor<2x5xi32>
  %acc = util.unfoldable_constant dense<[0, -10]> : tensor<2xi32>
  %r:2 = iree_linalg_ext.scan dimension(1) inclusive(false) ins(%x : tensor<2x5xi32>) outs(%init, %acc : tensor<2x5xi32>, tensor<2xi32>) {
  ^bb0(%a: i32, %b: i32):
    %m = arith.maxsi %a, %b : i32
    iree_linalg_ext.yield %m : i32
  } -> tensor<2x5xi32>, tensor<2xi32>
  check.expect_eq_const(%r#0, dense<[[0, 3, 3, 4, 4], [-10, -9, 2, 2, 5]]> : tensor<2x5xi32>) : tensor<2x5xi32>
  check.expect_eq_const(%r#1, dense<[4, 5]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @topk_v2_min_rows() {
  %x = util.unfoldable_constant dense<[[0.5, -2.0, 3.5, -2.5, 1.0, 0.0], [4.0, 3.0, 2.0, 1.0, 0.5, 5.0]]> : tensor<2x6xf32>
  %v0 = util.unfoldable_constant dense<0x7F800000> : tensor<2x2xf32>
  %i0 = util.unfoldable_constant dense<0> : tensor<2x2xi64>
  %r:2 = iree_linalg_ext.topk_v2 dimension(1) is_sorted ins(%x : tensor<2x6xf32>) outs(%v0, %i0 : tensor<2x2xf32>, tensor<2x2xi64>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<2x2xf32>, tensor<2x2xi64>
  check.expect_eq_const(%r#0, dense<[[-2.5, -2.0], [0.5, 1.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_eq_const(%r#1, dense<[[3, 1], [4, 3]]> : tensor<2x2xi64>) : tensor<2x2xi64>
  return
}

func.func @map_store_transpose() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %init = util.unfoldable_constant dense<-1> : tensor<3x3xi32>
  %r = iree_linalg_ext.map_store %x into %init {
  ^bb0(%i: index, %j: index):
    %t = arith.constant true
    iree_linalg_ext.yield %j, %i, %t : index, index, i1
  } : tensor<2x3xi32> into tensor<3x3xi32> -> tensor<3x3xi32>
  check.expect_eq_const(%r, dense<[[1, 4, -1], [2, 5, -1], [3, 6, -1]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  return
}
