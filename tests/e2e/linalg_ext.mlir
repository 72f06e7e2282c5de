// IREE's iree_linalg_ext ops as input: attention with more keys than
// queries and a boolean mask, scan, topk_v2, map_store and a Winograd
// convolution round trip. Expected
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

func.func @winograd_conv_roundtrip() {
  // input_transform, times the transformed 3x3 filter U = G g G^T, then
  // output_transform gives the valid 3x3 correlation of an 8x14 image.
  %x = util.unfoldable_constant dense<[[[-0.80, -1.32, -0.25, 0.42, 1.14, 0.11, -0.55, -0.78, 0.75, 1.63, 0.27, -1.23, -0.96, 1.60], [0.20, -1.73, -0.08, -1.16, -0.63, -0.49, -0.71, 0.55, -0.06, -0.59, 0.41, 0.83, -1.64, -0.26], [-0.98, -0.17, -1.29, 0.02, -0.04, -0.30, -1.05, -0.40, -1.09, -1.36, 0.22, -1.11, 1.17, 0.72], [-2.00, 0.27, -1.10, 0.03, 0.04, -1.99, -0.23, -0.26, 0.96, -1.18, 0.74, -1.10, -0.33, -0.84], [1.45, 0.57, 2.43, 0.64, 0.84, 0.84, -0.61, -0.07, 1.35, -0.40, 0.19, -0.02, 0.61, -0.36], [-0.15, 0.24, 0.10, -0.86, 0.90, -1.30, -1.20, -1.28, 0.97, -0.36, -0.97, -1.14, 0.42, -1.05], [-1.27, 0.61, -1.20, -0.32, -0.01, -0.45, -0.05, 1.34, -0.52, -1.26, -1.84, -0.20, -0.35, 0.27], [-0.46, -0.48, -0.72, -0.52, 0.16, -0.38, 0.10, 1.90, 0.48, -1.58, 1.73, 0.35, -0.94, 0.91]]]> : tensor<1x8x14xf32>
  %x4 = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [1, 8, 14, 1] : tensor<1x8x14xf32> into tensor<1x8x14x1xf32>
  %u = arith.constant dense<[[0.0199999996, 0.273333341, -0.00222222228, -0.0415555574, -0.0140000004, -0.318222225, 0.122666664, -0.629999995], [0.288888901, 0.0429629646, 0.0577777773, -0.0189629626, -0.0204444453, 0.125629634, 0.101925924, -0.515555561], [-0.151111111, 0.0301234573, 0.0548148155, -0.00222222228, -0.00469135819, -0.0948148146, -0.134320989, -0.0399999991], [-0.0364444442, -0.017061729, -0.0113333333, 0.00434074085, 0.00376790133, -0.00349629624, -0.0126617281, 0.100333333], [0.00755555555, -0.0157777779, -0.0110370368, 0.00266666664, 0.00219259248, 0.0185481478, 0.0109629631, 0.0527777784], [-0.39644444, 0.106271602, -0.0485925935, -0.00029629629, 0.0151901236, -0.358399987, -0.110617287, 0.266666681], [0.307555556, 0.126814812, -0.0438518524, -0.0270814821, -0.0100148153, -0.00568888895, 0.267377764, -0.494222224], [-0.330000013, -0.437777787, -0.25111112, 0.0892222226, 0.0705555528, 0.248888895, -0.049777776, 1.88]]> : tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8x1x1x2x1xf32>
  %t = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%x4 : tensor<1x8x14x1xf32>) outs(%e : tensor<8x8x1x1x2x1xf32>) -> tensor<8x8x1x1x2x1xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(a, b, n, h, w, c) -> (a, b, n, h, w, c)>, affine_map<(a, b, n, h, w, c) -> (a, b)>, affine_map<(a, b, n, h, w, c) -> (a, b, n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %u : tensor<8x8x1x1x2x1xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8x1x1x2x1xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8x1x1x2x1xf32>
  %ye = tensor.empty() : tensor<1x6x12x1xf32>
  %y = iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%m : tensor<8x8x1x1x2x1xf32>) outs(%ye : tensor<1x6x12x1xf32>) -> tensor<1x6x12x1xf32>
  %y2 = tensor.collapse_shape %y [[0, 1], [2, 3]] : tensor<1x6x12x1xf32> into tensor<6x12xf32>
  check.expect_almost_eq_const(%y2, dense<[[-1.583400, -0.116600, -1.277600, -0.762500, -1.946200, 0.778700, -1.204400, -5.568900, -0.495000, 0.587200, 0.914400, 0.592000], [-0.586200, 0.376300, 2.800600, -3.401000, -1.641800, -0.028300, 1.307300, -2.423200, 1.931600, -1.987000, 0.178800, 1.770200], [6.044300, 2.529300, 2.166400, -0.222000, -0.609700, 1.912400, 4.865500, 0.405500, 0.208900, 0.738100, -0.109500, -1.441500], [2.017000, -0.743500, -0.242900, -0.245500, -3.161800, -3.151800, 3.278700, 0.004800, -3.163500, -1.837100, 1.999200, -1.044500], [-3.168500, -4.358100, 0.186400, -2.276400, -2.639400, 2.943200, 0.944300, -2.685300, -5.677700, -1.758100, 0.849800, 0.300900], [-1.614400, -1.643300, 1.449500, -0.397000, 1.489500, 7.140600, 1.386000, -6.496800, 1.767100, 4.159800, -0.331200, 2.048200]]> : tensor<6x12xf32>, atol 1.0e-03) : tensor<6x12xf32>
  return
}

func.func @scatter_and_gather_with_mask() {
  %orig = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %upd = util.unfoldable_constant dense<[[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]> : tensor<3x2xf32>
  %idx = util.unfoldable_constant dense<[[2], [0], [2]]> : tensor<3x1xi32>
  %mask = util.unfoldable_constant dense<[true, false, true]> : tensor<3xi1>
  %s = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%upd, %idx, %mask : tensor<3x2xf32>, tensor<3x1xi32>, tensor<3xi1>) outs(%orig : tensor<3x2xf32>) {
  ^bb0(%u: f32, %o: f32):
    %a = arith.addf %u, %o : f32
    iree_linalg_ext.yield %a : f32
  } -> tensor<3x2xf32>
  check.expect_eq_const(%s, dense<[[1.0, 2.0], [3.0, 4.0], [65.0, 86.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  %init = util.unfoldable_constant dense<-1.0> : tensor<3x2xf32>
  %g = iree_linalg_ext.gather dimension_map = [0]
      ins(%orig, %idx, %mask : tensor<3x2xf32>, tensor<3x1xi32>, tensor<3xi1>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  check.expect_eq_const(%g, dense<[[5.0, 6.0], [-1.0, -1.0], [5.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}
