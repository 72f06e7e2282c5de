// Generic operation form: regions, several blocks, successors, forward
// references, properties and multi-result groups.
"builtin.module"() ({
  "func.func"() <{function_type = (i32, i1) -> (i32, f32), sym_name = "generic"}> ({
  ^bb0(%arg0: i32, %cond: i1):
    %0:2 = "test.pair"(%arg0) : (i32) -> (i32, f32)
    "cf.cond_br"(%cond)[^bb1, ^bb2] {operandSegmentSizes = array<i32: 1, 0, 0>} : (i1) -> ()
  ^bb1:
    %1 = "arith.addi"(%0#0, %arg0) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    "cf.br"()[^bb3] : () -> ()
  ^bb2:
    "cf.br"()[^bb3] : () -> ()
  ^bb3:
    "test.region_op"() ({
      %2 = "test.use"(%0#1) : (f32) -> f32
      "test.yield"(%2) : (f32) -> ()
    }, {
    ^bb0(%a: f32):
      "test.yield"(%a) : (f32) -> ()
    }) : () -> ()
    "func.return"(%0#0, %0#1) : (i32, f32) -> ()
  }) : () -> ()
  "test.cfg"() ({
    "cf.br"()[^bb2] : () -> ()
  ^bb1:
    "test.consume"(%late) : (i64) -> ()
    "test.done"() : () -> ()
  ^bb2:
    %late = "test.produce"() : () -> i64
    "cf.br"()[^bb1] : () -> ()
  }) : () -> ()
}) {sym_name = "g"} : () -> ()
