// CHLO's element-wise ops as JAX emits them (jax.numpy, jax.lax and
// jax.scipy.special). Expected values from scipy/numpy in float64,
// rounded to f32; special functions are compared with a relative
// tolerance.

func.func @trig_and_hyperbolic() {
  %x = util.unfoldable_constant dense<[0.30000001192092896, -0.699999988079071, 1.5, 2.200000047683716, -1.899999976158142, 0.05000000074505806]> : tensor<6xf32>
  %u = util.unfoldable_constant dense<[0.30000001192092896, -0.699999988079071, 0.5, 0.8999999761581421, -0.949999988079071, 0.05000000074505806]> : tensor<6xf32>
  %p = util.unfoldable_constant dense<[1.2999999523162842, 1.7000000476837158, 2.5, 3.200000047683716, 2.9000000953674316, 1.0499999523162842]> : tensor<6xf32>
  %asin = chlo.asin %u : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%asin, dense<[0.30469265580177307, -0.7753974795341492, 0.5235987901687622, 1.1197694540023804, -1.2532358169555664, 0.05002085864543915]> : tensor<6xf32>) : tensor<6xf32>
  %acos = chlo.acos %u : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%acos, dense<[1.2661036252975464, 2.346193790435791, 1.0471975803375244, 0.4510268568992615, 2.8240320682525635, 1.5207754373550415]> : tensor<6xf32>) : tensor<6xf32>
  %atan = chlo.atan %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%atan, dense<[0.29145681858062744, -0.6107259392738342, 0.9827937483787537, 1.1441688537597656, -1.0863183736801147, 0.04995839670300484]> : tensor<6xf32>) : tensor<6xf32>
  %sinh = chlo.sinh %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%sinh, dense<[0.30452030897140503, -0.758583664894104, 2.129279375076294, 4.4571051597595215, -3.268162727355957, 0.05002083629369736]> : tensor<6xf32>) : tensor<6xf32>
  %cosh = chlo.cosh %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%cosh, dense<[1.04533851146698, 1.2551690340042114, 2.352409601211548, 4.567908763885498, 3.417731523513794, 1.0012502670288086]> : tensor<6xf32>) : tensor<6xf32>
  %tan = chlo.tan %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%tan, dense<[0.30933627486228943, -0.8422883749008179, 14.101420402526855, -1.3738229274749756, 2.927097797393799, 0.05004170909523964]> : tensor<6xf32>) : tensor<6xf32>
  %asinh = chlo.asinh %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%asinh, dense<[0.29567307233810425, -0.6526665687561035, 1.19476318359375, 1.5296604633331299, -1.397998332977295, 0.04997919127345085]> : tensor<6xf32>) : tensor<6xf32>
  %acosh = chlo.acosh %p : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%acosh, dense<[0.7564329504966736, 1.1232309341430664, 1.566799283027649, 1.8309379816055298, 1.7267109155654907, 0.3149247467517853]> : tensor<6xf32>) : tensor<6xf32>
  %atanh = chlo.atanh %u : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%atanh, dense<[0.30951961874961853, -0.8673005104064941, 0.5493061542510986, 1.4722193479537964, -1.8317806720733643, 0.05004173144698143]> : tensor<6xf32>) : tensor<6xf32>
  %erf = chlo.erf %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%erf, dense<[0.3286267817020416, -0.6778011918067932, 0.9661051630973816, 0.9981371760368347, -0.9927904009819031, 0.05637197941541672]> : tensor<6xf32>) : tensor<6xf32>
  %erfc = chlo.erfc %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%erfc, dense<[0.6713732481002808, 1.6778011322021484, 0.0338948518037796, 0.0018628458492457867, 1.9927904605865479, 0.9436280131340027]> : tensor<6xf32>) : tensor<6xf32>
  %sq = chlo.square %x : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%sq, dense<[0.09000000357627869, 0.4899999797344208, 2.25, 4.840000152587891, 3.609999895095825, 0.002500000176951289]> : tensor<6xf32>) : tensor<6xf32>
  return
}

func.func @special_functions() {
  %w = util.unfoldable_constant dense<[-3.700000047683716, -0.5, 0.0010000000474974513, 0.5, 1.0, 2.0, 7.300000190734863, 33.0, 150.0, -25.5]> : tensor<10xf32>
  %e = util.unfoldable_constant dense<[-0.9999989867210388, -0.8999999761581421, -9.999999747378752e-06, 0.20000000298023224, 0.9900000095367432, 0.9999998807907104, 0.5, 0.0, 0.75, -0.30000001192092896]> : tensor<10xf32>
  %lg = chlo.lgamma %w : tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%lg, dense<[-1.3797398805618286, 1.2655121088027954, 6.90717887878418, 0.5723649263381958, 0.0, 0.0, 7.147892951965332, 81.5579605102539, 600.0094604492188, -58.483116149902344]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  %dg = chlo.digamma %w : tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%dg, dense<[-0.8450775742530823, 0.036489974707365036, -1000.5755004882812, -1.9635100364685059, -0.5772156715393066, 0.42278432846069336, 1.9178203344345093, 3.4812796115875244, 5.007298469543457, 3.2581582069396973]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  %i1e = chlo.bessel_i1e %w : tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%i1e, dense<[-0.1838378608226776, -0.15642079710960388, 0.0004995003109797835, 0.15642079710960388, 0.207910418510437, 0.2152692824602127, 0.13969579339027405, 0.06865008920431137, 0.03249189630150795, -0.07782579213380814]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  %ei = chlo.erf_inv %e : tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%ei, dense<[-3.4570746421813965, -1.1630871295928955, -8.86226916918531e-06, 0.17914345860481262, 1.8213865756988525, 3.7439212799072266, 0.4769362807273865, 0.0, 0.8134198188781738, -0.27246272563934326]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  %n = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 0.0]> : tensor<10xf32>
  %q = util.unfoldable_constant dense<[3.799999952316284, 0.6000000238418579, 0.10100000351667404, 0.6000000238418579, 1.100000023841858, 2.0999999046325684, 7.400000095367432, 33.099998474121094, 150.10000610351562, 25.600000381469727]> : tensor<10xf32>
  %pg = chlo.polygamma %n, %q : tensor<10xf32>, tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%pg, dense<[0.30078116059303284, -9.962830543518066, 57663.30859375, 3.636209487915039, -1.8614572286605835, 0.4147961139678955, -0.002601821441203356, 0.03067244403064251, -4.468192855711095e-05, 3.2229340076446533]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  %s = util.unfoldable_constant dense<[4.800000190734863, 1.600000023841858, 1.1010000705718994, 1.600000023841858, 2.0999999046325684, 3.0999999046325684, 8.40000057220459, 34.099998474121094, 151.10000610351562, 26.600000381469727]> : tensor<10xf32>
  %q2 = util.unfoldable_constant dense<[25.700000762939453, 150.1999969482422, 33.20000076293945, 7.5, 2.200000047683716, 1.2000000476837158, 0.699999988079071, 0.20100000500679016, 0.699999988079071, 3.9000000953674316]> : tensor<10xf32>
  %z = chlo.zeta %s, %q2 : tensor<10xf32>, tensor<10xf32> -> tensor<10xf32>
  check.expect_almost_eq_const(%z, dense<[1.2427245792423491e-06, 0.0825495719909668, 6.961566925048828, 0.5181280970573425, 0.4919717013835907, 0.7121471762657166, 20.018604278564453, 5.767837504686985e+23, 2.545002524113547e+23, 1.8997178178658603e-16]> : tensor<10xf32>, atol 1.0e-6, rtol 1.0e-5) : tensor<10xf32>
  return
}

func.func @classification_and_next_after() {
  %v = util.unfoldable_constant dense<[0x7F800000, 0xFF800000, 1.0, 0.0, -2.0, 3.0000000054977558e+38]> : tensor<6xf32>
  %inf = chlo.is_inf %v : tensor<6xf32> -> tensor<6xi1>
  %pinf = chlo.is_pos_inf %v : tensor<6xf32> -> tensor<6xi1>
  %ninf = chlo.is_neg_inf %v : tensor<6xf32> -> tensor<6xi1>
  check.expect_eq_const(%inf, dense<[true, true, false, false, false, false]> : tensor<6xi1>) : tensor<6xi1>
  check.expect_eq_const(%pinf, dense<[true, false, false, false, false, false]> : tensor<6xi1>) : tensor<6xi1>
  check.expect_eq_const(%ninf, dense<[false, true, false, false, false, false]> : tensor<6xi1>) : tensor<6xi1>
  %t = util.unfoldable_constant dense<[0.0, 0.0, 2.0, -1.0, -3.0, 0x7F800000]> : tensor<6xf32>
  %na = chlo.next_after %v, %t : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %bits = stablehlo.bitcast_convert %na : (tensor<6xf32>) -> tensor<6xi32>
  check.expect_eq_const(%bits, dense<[2139095039, -8388609, 1065353217, -2147483647, -1073741823, 2137108967]> : tensor<6xi32>) : tensor<6xi32>
  %c = "chlo.constant_like"(%v) {value = 2.5 : f32} : (tensor<6xf32>) -> tensor<6xf32>
  check.expect_almost_eq_const(%c, dense<2.5> : tensor<6xf32>) : tensor<6xf32>
  return
}
