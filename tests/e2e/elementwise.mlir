// Element-wise arith and math on tensors, fused into one dispatch per chain.
func.func @float_chain() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 3.5, 0.25, -0.5]> : tensor<5xf32>
  %b = util.unfoldable_constant dense<[2.0, 4.0, -1.0, 8.0, 3.0]> : tensor<5xf32>
  %0 = arith.mulf %a, %b : tensor<5xf32>
  %1 = arith.addf %0, %a : tensor<5xf32>
  %2 = arith.subf %1, %b : tensor<5xf32>
  %3 = arith.divf %2, %b : tensor<5xf32>
  check.expect_almost_eq_const(%3, dense<[0.5, -3.5, -1.0, -0.71875, -1.6666666]> : tensor<5xf32>) : tensor<5xf32>
  return
}

func.func @math_unary() {
  %a = util.unfoldable_constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %e = math.exp %a : tensor<4xf32>
  check.expect_almost_eq_const(%e, dense<[1.6487213, 2.7182817, 7.389056, 54.59815]> : tensor<4xf32>) : tensor<4xf32>
  %l = math.log %a : tensor<4xf32>
  check.expect_almost_eq_const(%l, dense<[-0.6931472, 0.0, 0.6931472, 1.3862944]> : tensor<4xf32>) : tensor<4xf32>
  %s = math.sqrt %a : tensor<4xf32>
  check.expect_almost_eq_const(%s, dense<[0.70710677, 1.0, 1.4142135, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %t = math.tanh %a : tensor<4xf32>
  check.expect_almost_eq_const(%t, dense<[0.46211717, 0.7615942, 0.9640276, 0.9993293]> : tensor<4xf32>) : tensor<4xf32>
  %r = math.rsqrt %a : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.4142135, 1.0, 0.70710677, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  %f = math.erf %a : tensor<4xf32>
  check.expect_almost_eq_const(%f, dense<[0.5204999, 0.8427008, 0.9953223, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @math_binary() {
  %a = util.unfoldable_constant dense<[2.0, 3.0, -1.0, 0.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[3.0, 0.5, 2.0, -2.0]> : tensor<4xf32>
  %p = math.powf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%p, dense<[8.0, 1.7320508, 1.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  %t = math.atan2 %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%t, dense<[0.5880026, 1.4056476, -0.4636476, 2.896614]> : tensor<4xf32>) : tensor<4xf32>
  %mx = arith.maximumf %a, %b : tensor<4xf32>
  check.expect_eq_const(%mx, dense<[3.0, 3.0, 2.0, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  %mn = arith.minimumf %a, %b : tensor<4xf32>
  check.expect_eq_const(%mn, dense<[2.0, 0.5, -1.0, -2.0]> : tensor<4xf32>) : tensor<4xf32>
  %rem = arith.remf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%rem, dense<[2.0, 0.0, -1.0, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @integer_ops() {
  %a = util.unfoldable_constant dense<[7, -7, 100, -128]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, -3, 5]> : tensor<4xi32>
  %d = arith.divsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%d, dense<[3, -3, -33, -25]> : tensor<4xi32>) : tensor<4xi32>
  %r = arith.remsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%r, dense<[1, -1, 1, -3]> : tensor<4xi32>) : tensor<4xi32>
  %f = arith.floordivsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%f, dense<[3, -4, -34, -26]> : tensor<4xi32>) : tensor<4xi32>
  %x = arith.xori %a, %b : tensor<4xi32>
  check.expect_eq_const(%x, dense<[5, -5, -103, -123]> : tensor<4xi32>) : tensor<4xi32>
  %sh = util.unfoldable_constant dense<[2, 1, 0, 5]> : tensor<4xi32>
  %s = arith.shli %a, %sh : tensor<4xi32>
  check.expect_eq_const(%s, dense<[28, -14, 100, -4096]> : tensor<4xi32>) : tensor<4xi32>
  %u = arith.shrui %a, %sh : tensor<4xi32>
  check.expect_eq_const(%u, dense<[1, 2147483644, 100, 134217724]> : tensor<4xi32>) : tensor<4xi32>
  %m = arith.maxsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%m, dense<[7, 2, 100, 5]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @small_ints_wrap() {
  %a = util.unfoldable_constant dense<[100, -100, 127, 1]> : tensor<4xi8>
  %b = util.unfoldable_constant dense<[100, -100, 1, -2]> : tensor<4xi8>
  %s = arith.addi %a, %b : tensor<4xi8>
  check.expect_eq_const(%s, dense<[-56, 56, -128, -1]> : tensor<4xi8>) : tensor<4xi8>
  %m = arith.muli %a, %b : tensor<4xi8>
  check.expect_eq_const(%m, dense<[16, 16, 127, -2]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @compare_select() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[4.0, 2.0, 1.0, 5.0]> : tensor<4xf32>
  %c = arith.cmpf olt, %a, %b : tensor<4xf32>
  %s = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  check.expect_eq_const(%s, dense<[1.0, 2.0, 1.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%c, dense<[true, false, false, true]> : tensor<4xi1>) : tensor<4xi1>
  return
}

func.func @casts() {
  %a = util.unfoldable_constant dense<[1.5, -2.5, 300.0, -0.5]> : tensor<4xf32>
  %i = arith.fptosi %a : tensor<4xf32> to tensor<4xi32>
  check.expect_eq_const(%i, dense<[1, -2, 300, 0]> : tensor<4xi32>) : tensor<4xi32>
  %t = arith.trunci %i : tensor<4xi32> to tensor<4xi8>
  check.expect_eq_const(%t, dense<[1, -2, 44, 0]> : tensor<4xi8>) : tensor<4xi8>
  %e = arith.extsi %t : tensor<4xi8> to tensor<4xi64>
  check.expect_eq_const(%e, dense<[1, -2, 44, 0]> : tensor<4xi64>) : tensor<4xi64>
  %h = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %w = arith.extf %h : tensor<4xf16> to tensor<4xf64>
  check.expect_almost_eq_const(%w, dense<[1.5, -2.5, 300.0, -0.5]> : tensor<4xf64>) : tensor<4xf64>
  %f = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>
  check.expect_eq_const(%f, dense<[1.0, -2.0, 300.0, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @long_vector_with_remainder() {
  %a = util.unfoldable_constant dense<1.5> : tensor<1000xf32>
  %b = util.unfoldable_constant dense<2.0> : tensor<1000xf32>
  %m = arith.mulf %a, %b : tensor<1000xf32>
  %s = arith.addf %m, %a : tensor<1000xf32>
  check.expect_eq_const(%s, dense<4.5> : tensor<1000xf32>) : tensor<1000xf32>
  return
}

func.func @sub_byte_integers() {
  %a = util.unfoldable_constant dense<[0, 3, 7, -8, -1]> : tensor<5xi4>
  %b = util.unfoldable_constant dense<[1, 5, 1, -1, 2]> : tensor<5xi4>
  %s = arith.addi %a, %b : tensor<5xi4>
  %u = arith.extui %s : tensor<5xi4> to tensor<5xi32>
  check.expect_eq_const(%u, dense<[1, 8, 8, 7, 1]> : tensor<5xi32>) : tensor<5xi32>
  %x = arith.extsi %s : tensor<5xi4> to tensor<5xi32>
  check.expect_eq_const(%x, dense<[1, -8, -8, 7, 1]> : tensor<5xi32>) : tensor<5xi32>
  return
}
