// A check test in the shape of IREE's e2e tests: constants the compiler may
// not fold, the op under test, and check.* assertions.

func.func @tensor_float() {
  %0 = util.unfoldable_constant dense<[-1.0, -0.5, 0.0, 1.0]> : tensor<4xf32>
  %r = math.absf %0 : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.0, 0.5, 0.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @tensor_int() {
  %c1 = arith.constant dense<[1, -2]> : tensor<2xi32>
  %c2 = arith.constant dense<3> : tensor<2xi32>
  %a = util.optimization_barrier %c1 : tensor<2xi32>
  %b = util.optimization_barrier %c2 : tensor<2xi32>
  %s = arith.addi %a, %b overflow<nsw> : tensor<2xi32>
  %m = arith.muli %s, %b : tensor<2xi32>
  check.expect_eq_const(%m, dense<[12, 3]> : tensor<2xi32>) : tensor<2xi32>
  check.expect_eq(%s, %s) : tensor<2xi32>
  return
}

func.func @tolerances() {
  %x = util.unfoldable_constant dense<[0.1, 0.2]> : tensor<2xf32>
  %y = arith.mulf %x, %x fastmath<fast> : tensor<2xf32>
  %e = math.exp %y : tensor<2xf32>
  check.expect_almost_eq_const(%e, dense<[1.01005, 1.04081]> : tensor<2xf32>, atol 1.0e-2, rtol 1.0e-3) : tensor<2xf32>
  check.expect_almost_eq(%e, %e, atol 0.0) : tensor<2xf32>
  return
}

func.func @scalars() {
  %t = util.unfoldable_constant 1 : i32
  %f = arith.constant 0 : i32
  %lt = arith.cmpi slt, %f, %t : i32
  %z = arith.extui %lt : i1 to i32
  check.expect_true(%z) : i32
  check.expect_false(%f) : i32
  %p = arith.constant 1.5 : f32
  %q = arith.negf %p : f32
  %c = arith.cmpf oge, %p, %q : f32
  %sel = arith.select %c, %p, %q : f32
  %fi = arith.fptosi %sel : f32 to i32
  check.expect_true(%fi) : i32
  return
}

func.func @dynamic(%n: index) -> tensor<?x4xf32> {
  %e = tensor.empty(%n) : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
