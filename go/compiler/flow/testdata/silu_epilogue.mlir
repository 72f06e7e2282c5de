// SiLU after a convolution run as a matrix product: x·sigmoid(x) reads the
// reshaped product twice (a Sigmoid and a Mul). Once fused and its two
// reads merged, it moves above the reshape into the product's epilogue:
// one dispatch besides the fill.
func.func @mm_silu(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<1x8x2x3xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  %shape = arith.constant dense<[1, 8, 2, 3]> : tensor<4xi64>
  %x = tensor.reshape %m(%shape) : (tensor<8x6xf32>, tensor<4xi64>) -> tensor<1x8x2x3xf32>
  %e4 = tensor.empty() : tensor<1x8x2x3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x2x3xf32>) outs(%e4 : tensor<1x8x2x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x8x2x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x8x2x3xf32>, tensor<1x8x2x3xf32>) outs(%e4 : tensor<1x8x2x3xf32>) {
  ^bb0(%v: f32, %g: f32, %o: f32):
    %p = arith.mulf %v, %g : f32
    linalg.yield %p : f32
  } -> tensor<1x8x2x3xf32>
  return %y : tensor<1x8x2x3xf32>
}
