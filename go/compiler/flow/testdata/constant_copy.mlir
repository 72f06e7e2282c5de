func.func @f(%x: tensor<3x2xf32>, %y: tensor<4x3xf32>, %z: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%c : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %a = arith.addf %t, %x : tensor<3x2xf32>
  %r = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %b = linalg.broadcast ins(%r : tensor<3xf32>) outs(%e2 : tensor<4x3xf32>) dimensions = [0]
  %s = arith.mulf %b, %y : tensor<4x3xf32>
  %k = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]> : tensor<2x2x3xf32>
  %e3 = tensor.empty() : tensor<2x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (1, i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%k : tensor<2x2x3xf32>) outs(%e3 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %h = arith.subf %g, %z : tensor<2x3xf32>
  return %a, %s, %h : tensor<3x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}
