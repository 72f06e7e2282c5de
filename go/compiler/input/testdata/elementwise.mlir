func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xi1> {
  %0 = arith.mulf %a, %b : tensor<?x4xf32>
  %1 = arith.cmpf olt, %0, %a : tensor<?x4xf32>
  return %1 : tensor<?x4xi1>
}
