// Host control flow, calls, globals and scalars.
func.func private @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @call_private() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = func.call @square(%a) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_eq_const(%r, dense<[1.0, 4.0, 9.0, 16.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @scf_for_carrying_tensor() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<2xf32>) {
    %n = arith.addf %acc, %acc : tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  }
  check.expect_eq_const(%r, dense<[8.0, 16.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

func.func @scf_if_and_while() {
  %c = util.unfoldable_constant 5 : i32
  %ten = arith.constant 10 : i32
  %lt = arith.cmpi slt, %c, %ten : i32
  %r = scf.if %lt -> (i32) {
    %x = arith.muli %c, %c : i32
    scf.yield %x : i32
  } else {
    scf.yield %c : i32
  }
  %e = arith.constant 25 : i32
  %eq = arith.cmpi eq, %r, %e : i32
  check.expect_true(%eq) : i1
  // Collatz steps from 27 is 111.
  %start = util.unfoldable_constant 27 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %zero = arith.constant 0 : i32
  %res:2 = scf.while (%n = %start, %steps = %zero) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %n, %one : i32
    scf.condition(%more) %n, %steps : i32, i32
  } do {
  ^bb0(%n: i32, %steps: i32):
    %rem = arith.remsi %n, %two : i32
    %odd = arith.cmpi eq, %rem, %one : i32
    %next = scf.if %odd -> (i32) {
      %t = arith.muli %n, %three : i32
      %u = arith.addi %t, %one : i32
      scf.yield %u : i32
    } else {
      %h = arith.divsi %n, %two : i32
      scf.yield %h : i32
    }
    %s = arith.addi %steps, %one : i32
    scf.yield %next, %s : i32, i32
  }
  %want = arith.constant 111 : i32
  %ok = arith.cmpi eq, %res#1, %want : i32
  check.expect_true(%ok) : i1
  return
}

util.global private mutable @counter = dense<2.0> : tensor<f32>

func.func @globals() {
  %v = util.global.load @counter : tensor<f32>
  %one = util.unfoldable_constant dense<1.0> : tensor<f32>
  %n = arith.addf %v, %one : tensor<f32>
  util.global.store %n, @counter : tensor<f32>
  %w = util.global.load @counter : tensor<f32>
  check.expect_eq_const(%w, dense<3.0> : tensor<f32>) : tensor<f32>
  return
}

func.func private @pick(%c: i1, %a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  cf.cond_br %c, ^bb1(%a : tensor<2xf32>), ^bb2
^bb1(%x: tensor<2xf32>):
  %d = arith.addf %x, %x : tensor<2xf32>
  cf.br ^bb3(%d : tensor<2xf32>)
^bb2:
  cf.br ^bb3(%b : tensor<2xf32>)
^bb3(%r: tensor<2xf32>):
  return %r : tensor<2xf32>
}

func.func @cf_branches() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = util.unfoldable_constant dense<[7.0, 8.0]> : tensor<2xf32>
  %t = arith.constant true
  %f = arith.constant false
  %x = func.call @pick(%t, %a, %b) : (i1, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const(%x, dense<[2.0, 4.0]> : tensor<2xf32>) : tensor<2xf32>
  %y = func.call @pick(%f, %a, %b) : (i1, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const(%y, dense<[7.0, 8.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
