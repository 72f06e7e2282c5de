// scf and cf ops in custom form, with implicit scf.yield terminators.

func.func @scf_ops(%lb: index, %ub: index, %st: index, %f: f32, %c: i1, %n: i32) -> f32 {
  %0 = scf.for %iv = %lb to %ub step %st iter_args(%acc = %f) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  scf.for %iv = %lb to %ub step %st {
    %x = arith.addi %iv, %iv : index
  }
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %1:2 = scf.for %j = %z to %n step %one iter_args(%a = %f, %b = %f) -> (f32, f32) : i32 {
    scf.yield %b, %a : f32, f32
  }
  %2 = scf.if %c -> (f32) {
    scf.yield %f : f32
  } else {
    scf.yield %0 : f32
  }
  scf.if %c {
    %y = arith.addf %f, %f : f32
  }
  %3:2 = scf.while (%arg = %n, %g = %f) : (i32, f32) -> (i32, f32) {
    %cond = arith.cmpi slt, %arg, %n : i32
    scf.condition(%cond) %arg, %g : i32, f32
  } do {
  ^bb0(%x: i32, %y: f32):
    scf.yield %x, %y : i32, f32
  }
  %4 = scf.execute_region -> f32 {
    scf.yield %f : f32
  }
  %5 = scf.index_switch %lb -> f32
  case 2 {
    scf.yield %f : f32
  }
  case 5 {
    scf.yield %2 : f32
  }
  default {
    scf.yield %4 : f32
  }
  cf.assert %c, "oops"
  cf.cond_br %c, ^bb1(%f : f32), ^bb2
^bb1(%r: f32):
  cf.br ^bb2
^bb2:
  return %5 : f32
}
