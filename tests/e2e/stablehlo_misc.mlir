// StableHLO ops beyond the element-wise and structural core:
// reduce_precision, pad with negative/interior padding, reduce_window and
// convolution dilations and groups, batch_norm_training, map, tuple,
// composite and the dynamic-shape ops on static shapes. Expected values
// from numpy / JAX in float64.

func.func @reduce_precision() {
  %x = util.unfoldable_constant dense<[37.03701400756836, -86.41969299316406, 185.18505859375, 271.6047668457031, -234.56773376464844, 6.172835350036621]> : tensor<6xf32>
  %r = stablehlo.reduce_precision %x, format = e4m3 : tensor<6xf32>
  check.expect_almost_eq_const(%r, dense<[36.0, -88.0, 192.0, 0x7F800000, -240.0, 6.0]> : tensor<6xf32>) : tensor<6xf32>
  %b = util.unfoldable_constant dense<[1.0000002153053333e-39, 3.0000000054977558e+38, -7.000000105838868e-39, 65519.0, 65520.0, -100000.0]> : tensor<6xf32>
  %h = "stablehlo.reduce_precision"(%b) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<6xf32>) -> tensor<6xf32>
  %hb = stablehlo.bitcast_convert %h : (tensor<6xf32>) -> tensor<6xi32>
  check.expect_eq_const(%hb, dense<[0, 2139095040, -2147483648, 1199562752, 2139095040, -8388608]> : tensor<6xi32>) : tensor<6xi32>
  return
}

func.func @pad_negative_and_interior() {
  %a = util.unfoldable_constant dense<[[1.5, 3.0, 4.5], [6.0, 7.5, 9.0]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<-9.0> : tensor<f32>
  %p = stablehlo.pad %a, %v, low = [-1, 1], high = [2, -1], interior = [1, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x7xf32>
  check.expect_almost_eq_const(%p, dense<[[-9.0, -9.0, -9.0, -9.0, -9.0, -9.0, -9.0], [-9.0, 6.0, -9.0, -9.0, 7.5, -9.0, -9.0], [-9.0, -9.0, -9.0, -9.0, -9.0, -9.0, -9.0], [-9.0, -9.0, -9.0, -9.0, -9.0, -9.0, -9.0]]> : tensor<4x7xf32>) : tensor<4x7xf32>
  %lo = stablehlo.constant dense<[0, -1]> : tensor<2xi32>
  %hi = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %in = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %d = stablehlo.dynamic_pad %a, %v, %lo, %hi, %in : (tensor<2x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x2xf32>
  check.expect_almost_eq_const(%d, dense<[[3.0, 4.5], [-9.0, -9.0], [7.5, 9.0], [-9.0, -9.0]]> : tensor<4x2xf32>) : tensor<4x2xf32>
  return
}

func.func @reduce_window_dilations() {
  %x = util.unfoldable_constant dense<[[-2.630000114440918, -2.259999990463257, -1.8899999856948853, -1.5199999809265137, -1.149999976158142, -0.7799999713897705], [-0.4099998474121094, -0.039999961853027344, 0.3299999237060547, 0.7000000476837158, 1.070000171661377, 1.440000057220459], [1.809999942779541, 2.1800003051757812, 2.5500001907348633, 2.9200000762939453, 3.2899999618530273, 3.6599998474121094], [4.03000020980835, 4.400000095367432, 4.769999980926514, 5.140000343322754, 5.510000228881836, 5.880000114440918]]> : tensor<4x6xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>, padding = dense<[[1, 0], [2, 1]]> : tensor<2x2xi64>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<7x3xf32>
  check.expect_almost_eq_const(%m, dense<[[-1.8899999856948853, -1.149999976158142, -1.149999976158142], [-1.8899999856948853, -1.149999976158142, -1.149999976158142], [0.3299999237060547, 1.070000171661377, 1.070000171661377], [0.3299999237060547, 1.070000171661377, 1.070000171661377], [2.5500001907348633, 3.2899999618530273, 3.2899999618530273], [2.5500001907348633, 3.2899999618530273, 3.2899999618530273], [4.769999980926514, 5.510000228881836, 5.510000228881836]]> : tensor<7x3xf32>) : tensor<7x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 2], [1, 1]]> : tensor<2x2xi64>, base_dilations = array<i64: 1, 3>, window_dilations = array<i64: 2, 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<1x17xf32>
  check.expect_almost_eq_const(%s, dense<[[-0.820000171661377, -0.820000171661377, 0.0, -0.07999968528747559, -0.07999968528747559, 0.0, 0.660000205039978, 0.660000205039978, 0.0, 1.4000000953674316, 1.4000000953674316, 0.0, 2.1399998664855957, 2.1399998664855957, 0.0, 2.879999876022339, 2.879999876022339]]> : tensor<1x17xf32>) : tensor<1x17xf32>
  return
}

func.func @convolution_batch_groups() {
  %l = util.unfoldable_constant dense<[[[[-2.630000114440918, -2.259999990463257, -1.8899999856948853], [-1.5199999809265137, -1.149999976158142, -0.7799999713897705]], [[-0.4099998474121094, -0.039999961853027344, 0.3299999237060547], [0.7000000476837158, 1.070000171661377, 1.440000057220459]]], [[[1.809999942779541, 2.1800003051757812, 2.5500001907348633], [2.9200000762939453, 3.2899999618530273, 3.6599998474121094]], [[4.03000020980835, 4.400000095367432, 4.769999980926514], [5.140000343322754, 5.510000228881836, 5.880000114440918]]]]> : tensor<2x2x2x3xf32>
  %r = util.unfoldable_constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 10.0], [11.0, 12.0]], [[13.0, 14.0], [15.0, 16.0]]]]> : tensor<2x2x2x2xf32>
  %c = stablehlo.convolution(%l, %r) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x2x2x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x1x2xf32>
  check.expect_almost_eq_const(%c, dense<[[[[-5.139997482299805, 8.180001258850098]], [[388.94000244140625, 425.94000244140625]]]]> : tensor<1x2x1x2xf32>) : tensor<1x2x1x2xf32>
  return
}

func.func @batch_norm_training() {
  %x = util.unfoldable_constant dense<[[[0.4000000059604645, 0.289000004529953, 0.19599999487400055, 0.12099998444318771], [0.06399999558925629, 0.02500000037252903, 0.003999997396022081, 0.0010000028414651752], [0.016000008210539818, 0.049000006169080734, 0.10000000149011612, 0.1690000593662262]], [[0.2560000419616699, 0.36100003123283386, 0.4840001165866852, 0.625], [0.7840000987052917, 0.9610002636909485, 1.156000018119812, 1.3690003156661987], [1.600000023841858, 1.8490002155303955, 2.1160004138946533, 2.4010000228881836]]]> : tensor<2x3x4xf32>
  %s = util.unfoldable_constant dense<[1.5, 0.5, 2.0]> : tensor<3xf32>
  %o = util.unfoldable_constant dense<[0.10000000149011612, -0.20000000298023224, 0.30000001192092896]> : tensor<3xf32>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  check.expect_almost_eq_const(%y, dense<[[[0.6659256815910339, -0.40788233280181885, -1.3075593709945679, -2.0331053733825684], [-0.641311526298523, -0.6770563721656799, -0.6963036060333252, -0.6990532279014587], [-1.7879812717437744, -1.7205281257629395, -1.616282343864441, -1.4752438068389893]], [[-0.7271221876144409, 0.2886420488357544, 1.4785382747650146, 2.8425633907318115], [0.018593531101942062, 0.1808203160762787, 0.3595443665981293, 0.5547665357589722], [1.449769139289856, 1.958734154701233, 2.5044915676116943, 3.087040662765503]]]> : tensor<2x3x4xf32>) : tensor<2x3x4xf32>
  check.expect_almost_eq_const(%m, dense<[0.34150001406669617, 0.5455000996589661, 1.0375001430511475]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_almost_eq_const(%v, dense<[0.023042254149913788, 0.2966063618659973, 0.9563784003257751]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @batch_norm_grad() {
  %x = util.unfoldable_constant dense<[[[0.4000000059604645, 0.289000004529953, 0.19599999487400055, 0.12099998444318771], [0.06399999558925629, 0.02500000037252903, 0.003999997396022081, 0.0010000028414651752], [0.016000008210539818, 0.049000006169080734, 0.10000000149011612, 0.1690000593662262]], [[0.2560000419616699, 0.36100003123283386, 0.4840001165866852, 0.625], [0.7840000987052917, 0.9610002636909485, 1.156000018119812, 1.3690003156661987], [1.600000023841858, 1.8490002155303955, 2.1160004138946533, 2.4010000228881836]]]> : tensor<2x3x4xf32>
  %s = util.unfoldable_constant dense<[1.5, 0.5, 2.0]> : tensor<3xf32>
  %m = util.unfoldable_constant dense<[0.34150001406669617, 0.5455000996589661, 1.0375001430511475]> : tensor<3xf32>
  %v = util.unfoldable_constant dense<[0.023042254149913788, 0.2966063618659973, 0.9563784003257751]> : tensor<3xf32>
  %dy = util.unfoldable_constant dense<[[[0.0, 0.5890296697616577, 0.6365082263946533, 0.09878400713205338], [-0.5297617316246033, -0.6712470054626465, -0.19559085369110107, 0.4598906338214874], [0.692550778388977, 0.2884829342365265, -0.380814790725708, -0.6999931335449219]], [[-0.37560105323791504, 0.29411691427230835, 0.693425178527832, 0.45520147681236267], [-0.20153231918811798, -0.6729782223701477, -0.5256910920143127, 0.10491404682397842], [0.639061689376831, 0.5856589674949646, -0.006195916328579187, -0.5923542976379395]]]> : tensor<2x3x4xf32>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %dy) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  check.expect_almost_eq_const(%gx, dense<[[[-3.246103525161743, 3.1242880821228027, 4.1467461585998535, -0.6010134220123291], [-0.24878686666488647, -0.3799982964992523, 0.05513038486242294, 0.6557838320732117], [1.2791188955307007, 0.453254371881485, -0.9147142171859741, -1.5669918060302734]], [[-6.007669448852539, -0.16467157006263733, 2.953399419784546, -0.20497563481330872], [0.08039017021656036, -0.34473860263824463, -0.2020685076713562, 0.38428789377212524], [1.1728590726852417, 1.0641852617263794, -0.14506836235523224, -1.342643141746521]]]> : tensor<2x3x4xf32>) : tensor<2x3x4xf32>
  check.expect_almost_eq_const(%gs, dense<[0.7764568328857422, -0.18744829297065735, -0.007431071251630783]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_almost_eq_const(%go, dense<[2.3914644718170166, -2.231996536254883, 0.5263962149620056]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @map_tuple_and_composite() {
  %p = util.unfoldable_constant dense<[[1.0, -2.0, 3.5], [0.25, 4.0, -1.5]]> : tensor<2x3xf32>
  %q = util.unfoldable_constant dense<[[2.0, 0.5, -1.0], [3.0, -0.25, 2.0]]> : tensor<2x3xf32>
  %m = "stablehlo.map"(%p, %q) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %t = stablehlo.multiply %a, %b : tensor<f32>
    %u = stablehlo.maximum %t, %a : tensor<f32>
    %w = stablehlo.add %u, %one : tensor<f32>
    stablehlo.return %w : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%m, dense<[[3.0, 0.0, 4.5], [1.75, 5.0, -0.5]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %t = stablehlo.tuple %p, %q : tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %e1 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%e1, dense<[[2.0, 0.5, -1.0], [3.0, -0.25, 2.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %c = stablehlo.composite "gree.scale_add" %p, %q {composite_attributes = {k = 3.0 : f32}, decomposition = @scale_add} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%c, dense<[[5.0, -5.5, 9.5], [3.75, 11.75, -2.5]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func private @scale_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %k = stablehlo.constant dense<3.0> : tensor<2x3xf32>
  %s = stablehlo.multiply %a, %k : tensor<2x3xf32>
  %r = stablehlo.add %s, %b : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @einsum() {
  %a = util.unfoldable_constant dense<[[-1.0, -0.5, 0.0], [0.5, 1.0, 1.5]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[-1.0, -0.75, -0.5, -0.25], [0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75]]> : tensor<3x4xf32>
  %c = util.unfoldable_constant dense<[[[-1.5, -1.0, -0.5, 0.0, 0.5], [1.0, 1.5, -1.5, -1.0, -0.5], [0.0, 0.5, 1.0, 1.5, -1.5], [-1.0, -0.5, 0.0, 0.5, 1.0]], [[1.5, -1.5, -1.0, -0.5, 0.0], [0.5, 1.0, 1.5, -1.5, -1.0], [-0.5, 0.0, 0.5, 1.0, 1.5], [-1.5, -1.0, -0.5, 0.0, 0.5]]]> : tensor<2x4x5xf32>
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const(%0, dense<[[1.0, 0.625, 0.25, -0.125], [1.0, 1.75, 2.5, 3.25]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  %1 = stablehlo.unary_einsum %a, config = "ab->b" : (tensor<2x3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const(%1, dense<[-0.5, 0.5, 1.5]> : tensor<3xf32>) : tensor<3xf32>
  %2 = "stablehlo.einsum"(%0, %c) {einsum_config = "ij,ijk->ji"} : (tensor<2x4xf32>, tensor<2x4x5xf32>) -> tensor<4x2xf32>
  check.expect_almost_eq_const(%2, dense<[[-2.5, -1.5], [-0.3125, 0.875], [0.375, 6.25], [0.0, -8.125]]> : tensor<4x2xf32>) : tensor<4x2xf32>
  return
}

func.func @householder_product_batched() {
  %a = util.unfoldable_constant dense<[[[2.040919065475464, -2.5556650161743164, 0.4180988371372223], [-0.5677695870399475, -0.4526492953300476, -0.21559716761112213], [-2.019986152648926, -0.2319323718547821, -0.8652130961418152], [3.3229994773864746, 0.22578661143779755, -0.3526307940483093], [-0.28128743171691895, -0.6680463552474976, -1.0551505088806152]], [[-0.39080098271369934, 0.4819453954696655, -0.23855361342430115], [0.9577587246894836, -0.19980213046073914, 0.02425956539809704], [1.5458208322525024, 0.545105516910553, -0.5052287578582764], [-0.18283897638320923, 0.5405251383781433, 1.935088038444519], [-0.2696203291416168, -0.24355867505073547, 1.0023136138916016]]]> : tensor<2x5x3xf32>
  %t = util.unfoldable_constant dense<[[0.8742438554763794, 0.5908527374267578], [1.1605000495910645, 1.4314638376235962]]> : tensor<2x2xf32>
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%a, %t) : (tensor<2x5x3xf32>, tensor<2x2xf32>) -> tensor<2x5x3xf32>
  check.expect_almost_eq_const(%q, dense<[[[0.1257561445236206, 0.929719090461731, 1.6654525995254517], [0.49636906385421753, -0.11871896684169769, -0.8085554242134094], [1.765960454940796, -1.7409818172454834, -2.395974636077881], [-2.905111789703369, 2.9560494422912598, 5.565239429473877], [0.2459138035774231, 0.13319872319698334, -0.5600185394287109]], [[-0.16050004959106445, 1.824273705482483, -0.1936301290988922], [-1.1114790439605713, 1.315750241279602, -0.9657498002052307], [-1.793925166130066, 2.039701461791992, 0.2753373086452484], [0.21218463778495789, -1.107290506362915, -0.3863680064678192], [0.31289440393447876, -0.1432158499956131, 0.24225516617298126]]]> : tensor<2x5x3xf32>) : tensor<2x5x3xf32>
  return
}

func.func @dynamic_shape_ops() {
  %g = util.unfoldable_constant dense<[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]]> : tensor<3x4xf32>
  %n = stablehlo.get_dimension_size %g, dim = 1 : (tensor<3x4xf32>) -> tensor<i32>
  check.expect_eq_const(%n, dense<4> : tensor<i32>) : tensor<i32>
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %io = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const(%io, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  %s3 = stablehlo.constant dense<[2, 3, 4]> : tensor<3xi64>
  %row = stablehlo.slice %g [1:2, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %bc = stablehlo.dynamic_broadcast_in_dim %row, %s3, dims = [1, 2] : (tensor<1x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  check.expect_almost_eq_const(%bc, dense<[[[2.0, 2.5, 3.0, 3.5], [2.0, 2.5, 3.0, 3.5], [2.0, 2.5, 3.0, 3.5]], [[2.0, 2.5, 3.0, 3.5], [2.0, 2.5, 3.0, 3.5], [2.0, 2.5, 3.0, 3.5]]]> : tensor<2x3x4xf32>) : tensor<2x3x4xf32>
  %s2 = stablehlo.constant dense<[6, 2]> : tensor<2xi32>
  %rs = stablehlo.dynamic_reshape %g, %s2 : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<6x2xf32>
  check.expect_almost_eq_const(%rs, dense<[[0.0, 0.5], [1.0, 1.5], [2.0, 2.5], [3.0, 3.5], [4.0, 4.5], [5.0, 5.5]]> : tensor<6x2xf32>) : tensor<6x2xf32>
  %st = util.unfoldable_constant dense<[0, 1]> : tensor<2xi64>
  %li = util.unfoldable_constant dense<[3, 4]> : tensor<2xi64>
  %sd = util.unfoldable_constant dense<[2, 2]> : tensor<2xi64>
  %sl = stablehlo.real_dynamic_slice %g, %st, %li, %sd : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%sl, dense<[[0.5, 1.5], [4.5, 5.5]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
