func.func @mm_bias_relu(%a: tensor<37x45xf32>, %b: tensor<45x70xf32>, %bias: tensor<70xf32>) -> tensor<37x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<37x70xf32>) -> tensor<37x70xf32>
  %m = linalg.matmul ins(%a, %b : tensor<37x45xf32>, tensor<45x70xf32>) outs(%f : tensor<37x70xf32>) -> tensor<37x70xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<37x70xf32>, tensor<70xf32>) outs(%e : tensor<37x70xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<37x70xf32>
  return %r : tensor<37x70xf32>
}
