func.func @chain(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %0 = arith.mulf %a, %b : tensor<8xf32>
  %1 = arith.addf %0, %c : tensor<8xf32>
  %2 = math.exp %1 : tensor<8xf32>
  %3 = arith.mulf %2, %a : tensor<8xf32>
  return %3 : tensor<8xf32>
}
func.func @reduce_then_scale(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sq = arith.mulf %a, %a : tensor<4x8xf32>
  %s = linalg.reduce ins(%sq : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %r = math.sqrt %s : tensor<4xf32>
  return %r : tensor<4xf32>
}
