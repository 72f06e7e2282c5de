// stablehlo.while/if/case become scf.while/scf.if on the host; the
// predicate and the branch index are read with tensor.extract, and a
// case index out of range takes the last branch.
func.func public @loop(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    %a1 = stablehlo.add %acc, %x : tensor<4xf32>
    stablehlo.return %i1, %a1 : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}
func.func public @branch(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %1 = "stablehlo.case"(%i) ({
    stablehlo.return %0 : tensor<4xf32>
  }, {
    %a = stablehlo.abs %0 : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %e = stablehlo.exponential %0 : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
