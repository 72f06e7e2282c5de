// StableHLO region control flow (while, if, case) on tensors, as JAX
// exports it: predicates and branch indices are rank-0 tensors read on the
// host. Expected values from numpy (float64, rounded to f32).

func.func @while_newton_and_matrix_power() {
  %x = util.unfoldable_constant dense<[2.0, 9.0, 0.5, 0.0010000000474974513]> : tensor<4xf32>
  %m = util.unfoldable_constant dense<[[0.8999999761581421, 0.20000000298023224], [-0.30000001192092896, 1.100000023841858]]> : tensor<2x2xf32>
  %eye = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %steps = util.unfoldable_constant dense<6> : tensor<i32>
  %r:4 = stablehlo.while(%i = %zero, %y = %x, %p = %eye, %n = %steps) : tensor<i32>, tensor<4xf32>, tensor<2x2xf32>, tensor<i32>
    cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %q = stablehlo.divide %x, %y : tensor<4xf32>
    %s = stablehlo.add %y, %q : tensor<4xf32>
    %h = stablehlo.constant dense<0.5> : tensor<4xf32>
    %y1 = stablehlo.multiply %s, %h : tensor<4xf32>
    %p1 = stablehlo.dot_general %p, %m, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    stablehlo.return %i1, %y1, %p1, %n : tensor<i32>, tensor<4xf32>, tensor<2x2xf32>, tensor<i32>
  }
  check.expect_eq_const(%r#0, dense<6> : tensor<i32>) : tensor<i32>
  check.expect_almost_eq_const(%r#1, dense<[1.4142135381698608, 3.0, 0.7071067690849304, 0.03274526819586754]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r#2, dense<[[-0.21412500739097595, 1.003000020980835], [-1.5045000314712524, 0.7888749837875366]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @while_with_if_collatz() {
  %start = util.unfoldable_constant dense<27> : tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%v = %start, %c = %zero) : tensor<i64>, tensor<i64>
    cond {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %ne = stablehlo.compare NE, %v, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %ne : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %two = stablehlo.constant dense<2> : tensor<i64>
    %three = stablehlo.constant dense<3> : tensor<i64>
    %rem = stablehlo.remainder %v, %two : tensor<i64>
    %odd = stablehlo.compare EQ, %rem, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %next = "stablehlo.if"(%odd) ({
      %t = stablehlo.multiply %v, %three : tensor<i64>
      %u = stablehlo.add %t, %one : tensor<i64>
      stablehlo.return %u : tensor<i64>
    }, {
      %h = stablehlo.divide %v, %two : tensor<i64>
      stablehlo.return %h : tensor<i64>
    }) : (tensor<i1>) -> tensor<i64>
    %c1 = stablehlo.add %c, %one : tensor<i64>
    stablehlo.return %next, %c1 : tensor<i64>, tensor<i64>
  }
  check.expect_eq_const(%r#0, dense<1> : tensor<i64>) : tensor<i64>
  check.expect_eq_const(%r#1, dense<111> : tensor<i64>) : tensor<i64>
  return
}

func.func @if_two_results_then() {
  %a = util.unfoldable_constant dense<[[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %thr = util.unfoldable_constant dense<1.0> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  %p = stablehlo.compare GT, %s, %thr, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r:2 = "stablehlo.if"(%p) ({
    %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
    %d = stablehlo.multiply %a, %two : tensor<2x3xf32>
    stablehlo.return %d, %s : tensor<2x3xf32>, tensor<f32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<2x3xf32>
    %d = stablehlo.subtract %a, %one : tensor<2x3xf32>
    %n = stablehlo.negate %s : tensor<f32>
    stablehlo.return %d, %n : tensor<2x3xf32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<2x3xf32>, tensor<f32>)
  check.expect_almost_eq_const(%r#0, dense<[[3.0, -4.0, 6.5], [1.0, 8.0, -2.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_almost_eq_const(%r#1, dense<6.25> : tensor<f32>) : tensor<f32>
  return
}

func.func @if_two_results_else() {
  %a = util.unfoldable_constant dense<[[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %thr = util.unfoldable_constant dense<10.0> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  %p = stablehlo.compare GT, %s, %thr, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r:2 = "stablehlo.if"(%p) ({
    %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
    %d = stablehlo.multiply %a, %two : tensor<2x3xf32>
    stablehlo.return %d, %s : tensor<2x3xf32>, tensor<f32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<2x3xf32>
    %d = stablehlo.subtract %a, %one : tensor<2x3xf32>
    %n = stablehlo.negate %s : tensor<f32>
    stablehlo.return %d, %n : tensor<2x3xf32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<2x3xf32>, tensor<f32>)
  check.expect_almost_eq_const(%r#0, dense<[[0.5, -3.0, 2.25], [-0.5, 3.0, -2.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_almost_eq_const(%r#1, dense<-6.25> : tensor<f32>) : tensor<f32>
  return
}

func.func @case_index_0() {
  %v = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %i = util.unfoldable_constant dense<0> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %ten = stablehlo.constant dense<10.0> : tensor<4xf32>
    %a = stablehlo.add %v, %ten : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %a = stablehlo.multiply %v, %v : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %m = stablehlo.abs %v : tensor<4xf32>
    %a = stablehlo.subtract %m, %one : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[11.0, 8.0, 13.0, 10.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @case_index_1() {
  %v = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %i = util.unfoldable_constant dense<1> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %ten = stablehlo.constant dense<10.0> : tensor<4xf32>
    %a = stablehlo.add %v, %ten : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %a = stablehlo.multiply %v, %v : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %m = stablehlo.abs %v : tensor<4xf32>
    %a = stablehlo.subtract %m, %one : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.0, 4.0, 9.0, 0.25]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @case_index_7() {
  %v = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %i = util.unfoldable_constant dense<7> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %ten = stablehlo.constant dense<10.0> : tensor<4xf32>
    %a = stablehlo.add %v, %ten : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %a = stablehlo.multiply %v, %v : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %m = stablehlo.abs %v : tensor<4xf32>
    %a = stablehlo.subtract %m, %one : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[0.0, 1.0, 2.0, -0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @case_index_minus1() {
  %v = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %i = util.unfoldable_constant dense<-1> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %ten = stablehlo.constant dense<10.0> : tensor<4xf32>
    %a = stablehlo.add %v, %ten : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %a = stablehlo.multiply %v, %v : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %m = stablehlo.abs %v : tensor<4xf32>
    %a = stablehlo.subtract %m, %one : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[0.0, 1.0, 2.0, -0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @case_single_branch() {
  %v = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %i = util.unfoldable_constant dense<3> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.add %v, %v : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[2.0, -4.0, 6.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}
