// Random numbers with IREE's bits: rng (UNIFORM, NORMAL) and
// rng_bit_generator (THREE_FRY, PHILOX, DEFAULT) over several shapes,
// element widths and state layouts. Expected bits come from a Python
// transcription of the generators (tests/e2e is generated from it once;
// the counters, keys and output layout follow IREE's StableHLO lowering).

func.func @tf_3x5_i32() {
  %s = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<3x5xi32>)
  check.expect_eq_const(%ns, dense<[1, 2, 13, 3]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[[-1997982863, -261361928, -1008514867, 1226850200, 1419974734], [1033030661, -1926332264, 1841350787, -976512043, -151263211], [-1953328272, 1083279175, -523581810, 514432126, -231799119]]> : tensor<3x5xi32>) : tensor<3x5xi32>
  return
}

func.func @tf_4x3_i32() {
  %s = util.unfoldable_constant dense<[5, -7, 0, 9]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4x3xi32>)
  check.expect_eq_const(%ns, dense<[5, -7, 15, 0]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[[847587956, -2040819345, 1527890022], [-603872288, -1650027843, 1126132311], [259023630, 1380910377, 151282974], [-1173347461, 388920532, -634951959]]> : tensor<4x3xi32>) : tensor<4x3xi32>
  return
}

func.func @tf_2x3x4_ui32() {
  %s = util.unfoldable_constant dense<[11, 22, 33, 44]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<2x3x4xui32>)
  check.expect_eq_const(%ns, dense<[11, 22, 56, 33]> : tensor<4xi32>) : tensor<4xi32>
  %c = stablehlo.bitcast_convert %v : (tensor<2x3x4xui32>) -> tensor<2x3x4xi32>
  check.expect_eq_const(%c, dense<[[[-1774098183, 990023781, -2022273558, 449861935], [-1789882649, -1527113240, 1411674342, 1823840015], [-1074171307, 1290666400, 258001751, 1360731219]], [[-1050317549, 97989529, -780687992, -843112954], [-1203817208, -1407814163, -2045852634, -966490758], [-139948882, 3867775, 1890376144, -19304260]]]> : tensor<2x3x4xi32>) : tensor<2x3x4xi32>
  return
}

func.func @tf_3_i64() {
  %s = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<3xi64>)
  check.expect_eq_const(%ns, dense<[1, 2, 7, 3]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[-1122540930882522255, 5269281489377511629, -1191747444901996466]> : tensor<3xi64>) : tensor<3xi64>
  return
}

func.func @tf_2x2_i64_state64() {
  %s = util.unfoldable_constant dense<[81985529216486895, 42]> : tensor<2xi64>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<2x2xi64>)
  check.expect_eq_const(%ns, dense<[81985529216486895, 46]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%v, dense<[[-7815867391448177215, 8359708655467283337], [-475905998865061123, 5513554694349512501]]> : tensor<2x2xi64>) : tensor<2x2xi64>
  return
}

func.func @tf_5_i8() {
  %s = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<5xi8>)
  check.expect_eq_const(%ns, dense<[1, 2, 7, 3]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[113, -8, -51, -104, 78]> : tensor<5xi8>) : tensor<5xi8>
  return
}

func.func @ph_3x5_i32() {
  %s = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<3x5xi32>)
  check.expect_eq_const(%ns, dense<[1, 2, 8, 3]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[[-1788415499, 854201270, -855525523, 2043148971, 110723240], [146396481, -1258660138, -1968502964, 2092549078, 1706435752], [-1010746985, 1003695881, 1440230504, -623167419, 1628069388]]> : tensor<3x5xi32>) : tensor<3x5xi32>
  return
}

func.func @ph_2x3_i64() {
  %s = util.unfoldable_constant dense<[9, 8, 7, 6]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<2x3xi64>)
  check.expect_eq_const(%ns, dense<[9, 8, 9, 7]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[[-4650271682872797252, 3061943505318765757, 7778770527654549241], [8847225404498122875, -3170718113498867914, 8428413280230081653]]> : tensor<2x3xi64>) : tensor<2x3xi64>
  return
}

func.func @ph_7_state64() {
  %s = util.unfoldable_constant dense<[-5, 1000]> : tensor<2xi64>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<7xi32>)
  check.expect_eq_const(%ns, dense<[-5, 1002]> : tensor<2xi64>) : tensor<2xi64>
  check.expect_eq_const(%v, dense<[-17130456, -405327122, 117164606, -1962597016, -1975955367, -2055585013, -1714280400]> : tensor<7xi32>) : tensor<7xi32>
  return
}

func.func @default_6_i16() {
  %s = util.unfoldable_constant dense<[3, 1, 4, 1]> : tensor<4xi32>
  %ns, %v = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<6xi16>)
  check.expect_eq_const(%ns, dense<[3, 1, 3, 4]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%v, dense<[7172, -23895, -5382, 8871, -3105, 6364]> : tensor<6xi16>) : tensor<6xi16>
  return
}

func.func @rng_uniform_2x5() {
  %a = util.unfoldable_constant dense<2.0> : tensor<f32>
  %b = util.unfoldable_constant dense<3.5> : tensor<f32>
  %shape = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
  %r = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x5xf32>
  check.expect_almost_eq_const(%r, dense<[[3.241365432739258, 2.1267638206481934, 2.51216197013855, 2.8975603580474854, 3.282958507537842], [2.881805896759033, 3.2672042846679688, 2.152602434158325, 2.5380005836486816, 2.923398971557617]]> : tensor<2x5xf32>) : tensor<2x5xf32>
  return
}

func.func @rng_normal_7() {
  %mu = util.unfoldable_constant dense<1.5> : tensor<f32>
  %sigma = util.unfoldable_constant dense<0.5> : tensor<f32>
  %shape = stablehlo.constant dense<[7]> : tensor<1xi64>
  %r = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<7xf32>
  check.expect_almost_eq_const(%r, dense<[1.7854304313659668, 1.6587966680526733, 1.1367310285568237, 2.2296252250671387, 1.0758055448532104, 1.2733043432235718, 1.8227814435958862]> : tensor<7xf32>) : tensor<7xf32>
  return
}
