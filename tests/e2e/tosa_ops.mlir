// gree's own TOSA check tests (run by tests/python/test_e2e.py on
// local-sync and local-task). Expected values follow the TOSA
// specification's integer pseudo-code (computed once with the numpy
// reference in tests/python/test_tosa_quant.py).

// RESCALE i32 -> i8, multiplier 2^30, shift 33 (x/8 + 5): double rounding
// moves the ties (x = ±4, ±12) and their neighbours away from zero.
func.func @rescale_double_round_ties() {
  %x = util.unfoldable_constant dense<[          3,           4,           5,          -3,          -4,          -5,          11,          12,         -12,         -13,     1048576,    -1048576,  2147483647, -2147483648]> : tensor<14xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %d = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<14xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<14xi8>
  check.expect_eq_const(%d, dense<[   6,    6,    6,    5,    4,    4,    7,    7,    3,    3,  127, -128,  127, -128]> : tensor<14xi8>) : tensor<14xi8>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<14xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<14xi8>
  check.expect_eq_const(%r, dense<[   5,    6,    6,    5,    5,    4,    6,    7,    4,    3,  127, -128,  127, -128]> : tensor<14xi8>) : tensor<14xi8>
  return
}

// Per-channel RESCALE with 16-bit multipliers and zero points, and an
// unsigned (output_unsigned, zero point 128) output, in the older attribute form.
func.func @rescale_per_channel_scale16_and_unsigned() {
  %x = util.unfoldable_constant dense<[[-128,   -1,    0,   77],
 [ 127,   55,  -77,    3],
 [   9, -100,  100, -128]]> : tensor<3x4xi8>
  %r = tosa.rescale %x {double_round = false, input_zp = -3 : i32, multiplier = array<i32: 19000, 32767, 16384, 23170>, output_zp = 7 : i32, per_channel = true, scale32 = false, shift = array<i8: 15, 14, 13, 16>} : (tensor<3x4xi8>) -> tensor<3x4xi8>
  check.expect_eq_const(%r, dense<[[ -65,   11,   13,   35],
 [  82,  123, -128,    9],
 [  14, -128,  127,  -37]]> : tensor<3x4xi8>) : tensor<3x4xi8>
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %u = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<3x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<3x4xi8>
  check.expect_eq_const(%u, dense<[[   0, -125, -124,  -15],
 [  -1,  -46,   23, -120],
 [-111,    0,   -1,    0]]> : tensor<3x4xi8>) : tensor<3x4xi8>
  return
}

// TABLE: i16 input interpolates a 513-entry table (slope × low 7 bits);
// i8 input indexes a 256-entry table at x + 128.
func.func @table_interpolation() {
  %x = util.unfoldable_constant dense<[-32768, -32641,     -1,      0,      1,    127,    128,   1000,  -1000,  20000,  32767,  -5405]> : tensor<12xi16>
  %t = "tosa.const"() <{values = dense<[-29763, -29429, -29098, -28770, -28444, -28121, -27800, -27482, -27166, -26853, -26542, -26234, -25928, -25624, -25323, -25025, -24728, -24435, -24143, -23854, -23568, -23283, -23001, -22722, -22444, -22169, -21897, -21626, -21358, -21093, -20829, -20568, -20309, -20052, -19798, -19545, -19295, -19047, -18802, -18558, -18317, -18077, -17840, -17605, -17373, -17142, -16913, -16687, -16463, -16240, -16020, -15802, -15586, -15372, -15160, -14950, -14742, -14536, -14332, -14130, -13930, -13732, -13535, -13341, -13149, -12959, -12770, -12584, -12399, -12216, -12035, -11856, -11679, -11504, -11330, -11158, -10988, -10820, -10654, -10490, -10327, -10166, -10007,  -9849,  -9693,  -9539,  -9387,  -9236,  -9087,  -8940,  -8794,  -8650,  -8508,  -8367,  -8228,  -8091,  -7955,  -7821,  -7688,  -7557,  -7428,  -7300,  -7174,  -7049,  -6926,  -6804,  -6683,  -6565,  -6447,  -6332,  -6217,  -6105,  -5993,  -5883,  -5775,  -5668,  -5562,  -5458,  -5355,  -5253,  -5153,  -5054,  -4957,  -4861,  -4766,  -4672,  -4580,  -4489,  -4400,  -4311,  -4224,  -4139,  -4054,  -3971,  -3889,  -3808,  -3728,  -3650,  -3573,  -3497,  -3422,  -3348,  -3276,  -3204,  -3134,  -3065,  -2997,  -2930,  -2864,  -2799,  -2736,  -2673,  -2611,  -2551,  -2491,  -2433,  -2375,  -2319,  -2263,  -2209,  -2155,  -2102,  -2051,  -2000,  -1950,  -1901,  -1853,  -1806,  -1760,  -1715,  -1671,  -1627,  -1584,  -1542,  -1501,  -1461,  -1422,  -1383,  -1345,  -1308,  -1272,  -1237,  -1202,  -1168,  -1135,  -1102,  -1070,  -1039,  -1009,   -979,   -950,   -921,   -893,   -866,   -840,   -814,   -788,   -764,   -740,   -716,   -693,   -671,   -649,   -628,   -607,   -587,   -567,   -548,   -529,   -511,   -493,   -475,   -458,   -442,   -426,   -410,   -395,   -380,   -366,   -352,   -338,   -325,   -312,   -299,   -287,   -275,   -263,   -252,   -241,   -230,   -220,   -210,   -200,   -190,   -180,   -171,   -162,   -153,   -144,   -136,   -127,   -119,   -111,   -103,    -95,    -88,    -80,    -73,    -65,    -58,    -51,    -44,    -37,    -30,    -23,    -16,     -8,     -1,      6,     13,     20,     27,     34,     41,     48,     56,     63,     71,     78,     86,     94,    102,    110,    119,    127,    136,    145,    154,    163,    173,    183,    193,    203,    213,    224,    235,    247,    258,    270,    282,    295,    308,    321,    335,    349,    363,    378,    393,    409,    425,    441,    458,    476,    494,    512,    531,    550,    570,    590,    611,    632,    654,    676,    699,    723,    747,    772,    797,    823,    849,    876,    904,    933,    962,    992,   1022,   1053,   1085,   1118,   1151,   1185,   1220,   1255,   1291,   1328,   1366,   1405,   1444,   1484,   1525,   1567,   1610,   1654,   1698,   1743,   1789,   1837,   1884,   1933,   1983,   2034,   2085,   2138,   2192,   2246,   2302,   2358,   2416,   2474,   2534,   2594,   2656,   2719,   2782,   2847,   2913,   2980,   3048,   3117,   3187,   3259,   3331,   3405,   3480,   3556,   3633,   3712,   3791,   3872,   3954,   4037,   4122,   4207,   4294,   4383,   4472,   4563,   4655,   4749,   4844,   4940,   5037,   5136,   5236,   5338,   5441,   5545,   5651,   5758,   5866,   5976,   6088,   6200,   6315,   6430,   6548,   6667,   6787,   6909,   7032,   7157,   7283,   7411,   7540,   7671,   7804,   7938,   8074,   8211,   8350,   8491,   8633,   8777,   8923,   9070,   9219,   9370,   9522,   9676,   9832,   9990,  10149,  10310,  10473,  10637,  10803,  10972,  11141,  11313,  11487,  11662,  11839,  12018,  12199,  12382,  12567,  12753,  12942,  13132,  13324,  13518,  13715,  13913,  14113,  14315,  14519,  14725,  14933,  15143,  15355,  15569,  15785,  16003,  16223,  16446,  16670,  16897,  17125,  17356,  17588,  17823,  18060,  18300,  18541,  18785,  19030,  19278,  19528,  19781,  20035,  20292,  20551,  20812,  21076,  21341,  21609,  21880,  22152,  22427,  22705,  22984,  23266,  23551,  23837,  24126,  24418,  24712,  25008,  25306,  25607,  25911,  26217,  26525,  26836,  27149,  27465,  27783,  28104,  28427,  28753,  29081,  29412,  29746]> : tensor<513xi16>}> : () -> tensor<513xi16>
  %r = tosa.table %x, %t : (tensor<12xi16>, tensor<513xi16>) -> tensor<12xi32>
  check.expect_eq_const(%r, dense<[-3809664, -3767246,    -1032,    -1024,    -1017,     -135,     -128,     5976,    -8152,   952736,  3807154,   -54992]> : tensor<12xi32>) : tensor<12xi32>
  %y = util.unfoldable_constant dense<[-128,   -1,    0,    1,  127,   42]> : tensor<6xi8>
  %t8 = "tosa.const"() <{values = dense<[-128,  -91,  -54,  -17,   20,   57,   94, -125,  -88,  -51,  -14,   23,   60,   97, -122,  -85,  -48,  -11,   26,   63,  100, -119,  -82,  -45,   -8,   29,   66,  103, -116,  -79,  -42,   -5,   32,   69,  106, -113,  -76,  -39,   -2,   35,   72,  109, -110,  -73,  -36,    1,   38,   75,  112, -107,  -70,  -33,    4,   41,   78,  115, -104,  -67,  -30,    7,   44,   81,  118, -101,  -64,  -27,   10,   47,   84,  121,  -98,  -61,  -24,   13,   50,   87,  124,  -95,  -58,  -21,   16,   53,   90,  127,  -92,  -55,  -18,   19,   56,   93, -126,  -89,  -52,  -15,   22,   59,   96, -123,  -86,  -49,  -12,   25,   62,   99, -120,  -83,  -46,   -9,   28,   65,  102, -117,  -80,  -43,   -6,   31,   68,  105, -114,  -77,  -40,   -3,   34,   71,  108, -111,  -74,  -37,    0,   37,   74,  111, -108,  -71,  -34,    3,   40,   77,  114, -105,  -68,  -31,    6,   43,   80,  117, -102,  -65,  -28,    9,   46,   83,  120,  -99,  -62,  -25,   12,   49,   86,  123,  -96,  -59,  -22,   15,   52,   89,  126,  -93,  -56,  -19,   18,   55,   92, -127,  -90,  -53,  -16,   21,   58,   95, -124,  -87,  -50,  -13,   24,   61,   98, -121,  -84,  -47,  -10,   27,   64,  101, -118,  -81,  -44,   -7,   30,   67,  104, -115,  -78,  -41,   -4,   33,   70,  107, -112,  -75,  -38,   -1,   36,   73,  110, -109,  -72,  -35,    2,   39,   76,  113, -106,  -69,  -32,    5,   42,   79,  116, -103,  -66,  -29,    8,   45,   82,  119, -100,  -63,  -26,   11,   48,   85,  122,  -97,  -60,  -23,   14,   51,   88,  125,  -94,  -57,  -20,   17,   54,   91]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %s = tosa.table %y, %t8 : (tensor<6xi8>, tensor<256xi8>) -> tensor<6xi8>
  check.expect_eq_const(%s, dense<[-128,  -37,    0,   37,   91,   18]> : tensor<6xi8>) : tensor<6xi8>
  return
}

// CAST float -> int rounds half to even and saturates.
func.func @cast_rounding() {
  %x = util.unfoldable_constant dense<[   0.5 ,    1.5 ,    2.5 ,   -0.5 ,   -1.5 ,   -2.5 ,  126.5 ,  127.5 , -128.5 ,  300.  , -300.  ,    7.49]> : tensor<12xf32>
  %r = tosa.cast %x : (tensor<12xf32>) -> tensor<12xi8>
  check.expect_eq_const(%r, dense<[   0,    2,    2,    0,   -2,   -2,  126,  127, -128,  127, -128,    7]> : tensor<12xi8>) : tensor<12xi8>
  return
}

// Quantized CONV2D: input zero point -128 (also the padding value), i32 bias.
func.func @conv2d_i8() {
  %x = util.unfoldable_constant dense<[[[[  43,   78],
   [-123,   78],
   [  -8,    3],
   [  33,  -55]],

  [[ 122, -115],
   [ -57,  -30],
   [  18,  -24],
   [ -95, -117]],

  [[-128, -116],
   [ -90,  127],
   [ -80,   39],
   [  64,  -68]],

  [[ -56,  -17],
   [ -61,  121],
   [ -83,  101],
   [  76,   88]]]]> : tensor<1x4x4x2xi8>
  %w = "tosa.const"() <{values = dense<[[[[ -99,  -28],
   [  32,   -2]],

  [[  42,   45],
   [  41, -113]]],


 [[[ 117,   14],
   [ 103,  -59]],

  [[ -36,   97],
   [ -81, -112]]]]> : tensor<2x2x2x2xi8>}> : () -> tensor<2x2x2x2xi8>
  %b = "tosa.const"() <{values = dense<[ 1000, -2000]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %iz = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.conv2d %x, %w, %b, %iz, %wz {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x2x2x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  check.expect_eq_const(%r, dense<[[[[ -5621, -11651],
   [   597,  -6590],
   [ 10287, -14830],
   [ 11047,   -715]],

  [[-19027, -15214],
   [   -59, -10424],
   [  1380,  27077],
   [-15102,  17738]],

  [[-48755,  -1511],
   [ -8141,  17356],
   [ -4709,  11487],
   [  8189,    923]],

  [[-16001, -38103],
   [-18713,  -6445],
   [ -6253,   2067],
   [ -1400,  34912]]]]> : tensor<1x4x4x2xi32>) : tensor<1x4x4x2xi32>
  return
}

// RESIZE bilinear on i8: integer weights (scale_n - r, r), result scaled by 16.
func.func @resize_bilinear_i8() {
  %x = util.unfoldable_constant dense<[[[[-33],
   [ 45],
   [-97]],

  [[ 94],
   [-41],
   [-70]]]]> : tensor<1x2x3x1xi8>
  %s = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<[-1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %s, %o, %b {mode = BILINEAR} : (tensor<1x2x3x1xi8>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x4x6x1xi32>
  check.expect_eq_const(%r, dense<[[[[ -528],
   [ -216],
   [  408],
   [  152],
   [ -984],
   [-1552]],

  [[  -20],
   [   79],
   [  277],
   [  -79],
   [ -989],
   [-1444]],

  [[  996],
   [  669],
   [   15],
   [ -541],
   [ -999],
   [-1228]],

  [[ 1504],
   [  964],
   [ -116],
   [ -772],
   [-1004],
   [-1120]]]]> : tensor<1x4x6x1xi32>) : tensor<1x4x6x1xi32>
  return
}

// AVG_POOL2D on i8: padding is not counted, and the division is the spec's
// reciprocal multiply-and-shift (-10.5 rounds to -11, 10.5 to 11).
func.func @avg_pool_i8() {
  %x = util.unfoldable_constant dense<[[[[-10],
   [-11],
   [  7]],

  [[-12],
   [-14],
   [  9]]]]> : tensor<1x2x3x1xi8>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.avg_pool2d %x, %z, %z {acc_type = i32, kernel = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x3x1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x4x1xi8>
  check.expect_eq_const(%r, dense<[[[[-10],
   [-11],
   [ -2],
   [  7]],

  [[-11],
   [-12],
   [ -2],
   [  8]],

  [[-12],
   [-13],
   [ -3],
   [  9]]]]> : tensor<1x3x4x1xi8>) : tensor<1x3x4x1xi8>
  return
}

// The older generic form of cond_if: region arguments carry the inputs.
func.func @cond_if_generic_form() {
  %c = util.unfoldable_constant dense<true> : tensor<i1>
  %a = util.unfoldable_constant dense<[3, -4]> : tensor<2xi32>
  %r = "tosa.cond_if"(%c, %a) ({
  ^bb0(%x: tensor<2xi32>):
    %s = "tosa.mul"(%x, %x) {shift = 0 : i8} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    "tosa.yield"(%s) : (tensor<2xi32>) -> ()
  }, {
  ^bb0(%x: tensor<2xi32>):
    "tosa.yield"(%x) : (tensor<2xi32>) -> ()
  }) : (tensor<i1>, tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const(%r, dense<[9, 16]> : tensor<2xi32>) : tensor<2xi32>
  return
}

// ARGMAX takes the first of equal maxima; SCATTER then GATHER round-trips.
func.func @argmax_scatter_gather() {
  %x = util.unfoldable_constant dense<[[1.5, 7.0, -2.0, 7.0], [-1.0, -3.0, -1.0, -0.5]]> : tensor<2x4xf32>
  %a = tosa.argmax %x {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 3]> : tensor<2xi32>) : tensor<2xi32>
  %v = util.unfoldable_constant dense<0.5> : tensor<1x4x2xf32>
  %i = "tosa.const"() <{values = dense<[[3, 0]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %u = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
  %s = tosa.scatter %v, %i, %u : (tensor<1x4x2xf32>, tensor<1x2xi32>, tensor<1x2x2xf32>) -> tensor<1x4x2xf32>
  check.expect_almost_eq_const(%s, dense<[[[3.0, 4.0], [0.5, 0.5], [0.5, 0.5], [1.0, 2.0]]]> : tensor<1x4x2xf32>) : tensor<1x4x2xf32>
  %g = tosa.gather %s, %i : (tensor<1x4x2xf32>, tensor<1x2xi32>) -> tensor<1x2x2xf32>
  check.expect_almost_eq_const(%g, dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>) : tensor<1x2x2xf32>
  return
}

// MUL with shift rounds (a·b + 2^(shift-1)) >> shift in 64 bits;
// ARITHMETIC_RIGHT_SHIFT with round adds the last bit shifted out.
func.func @mul_shift_and_rounding_shift() {
  %a = util.unfoldable_constant dense<[3, -3, 5, -5, 65536, -65536, 123457]> : tensor<7xi32>
  %b = util.unfoldable_constant dense<[1, 1, 1, 1, 32768, 65535, -999]> : tensor<7xi32>
  %s = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %a, %b, %s : (tensor<7xi32>, tensor<7xi32>, tensor<1xi8>) -> tensor<7xi32>
  check.expect_eq_const(%m, dense<[2, -1, 3, -2, 1073741824, -2147450880, -61666771]> : tensor<7xi32>) : tensor<7xi32>
  %n = util.unfoldable_constant dense<[2, 2, 3, 3, 31, 30, 4]> : tensor<7xi32>
  %r = tosa.arithmetic_right_shift %a, %n {round = true} : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi32>
  check.expect_eq_const(%r, dense<[1, -1, 1, -1, 0, 0, 7716]> : tensor<7xi32>) : tensor<7xi32>
  return
}

// Older PAD with a splat padding tensor and a rank-0 pad value.
func.func @pad_splat_padding_older_form() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %pd = "tosa.const"() <{value = dense<1> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %pc = "tosa.const"() <{value = dense<-7> : tensor<i32>}> : () -> tensor<i32>
  %r = tosa.pad %x, %pd, %pc : (tensor<2x3xi32>, tensor<2x2xi32>, tensor<i32>) -> tensor<4x5xi32>
  check.expect_eq_const(%r, dense<[[-7, -7, -7, -7, -7], [-7, 1, 2, 3, -7], [-7, 4, 5, 6, -7], [-7, -7, -7, -7, -7]]> : tensor<4x5xi32>) : tensor<4x5xi32>
  return
}
