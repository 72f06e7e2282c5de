// Locations: inline forms, #loc aliases defined at the end of the file, and
// block arguments with locations.
module @locs {
  func.func @f(%arg0: f32 loc("model.py":10:5), %arg1: f32 loc(#loc4)) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32 loc(#loc1)
    %1 = arith.mulf %0, %0 : f32 loc(#loc3)
    %2 = arith.subf %1, %0 : f32 loc("named"("model.py":12:1))
    %3 = arith.divf %2, %0 : f32 loc(fused<"pass">["a.py":1:2, "b.py":3:4])
    %4 = "test.op"(%3) : (f32) -> f32 loc(unknown)
    %5 = "test.op"(%4) : (f32) -> f32 loc("range.py":1:2 to 3:4)
    return %5 : f32 loc(#loc2)
  } loc(#loc)
} loc(#loc)
#loc = loc("model.py":1:1)
#loc1 = loc("model.py":11:3)
#loc2 = loc(callsite("inner.py":5:7 at #loc1))
#loc3 = loc(fused[#loc1, #loc2])
#loc4 = loc("arg1")
