// An element-wise op feeding a matmul stays its own dispatch: fused, it
// would be recomputed for every row and hide the product from codegen.
func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x12544xf32>) -> tensor<16x12544xf32> {
  %e = tensor.empty() : tensor<32x12544xf32>
  %b2 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%b : tensor<32x12544xf32>) outs(%e : tensor<32x12544xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<32x12544xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x12544xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x12544xf32>) -> tensor<16x12544xf32>
  %r = linalg.matmul ins(%a, %b2 : tensor<16x32xf32>, tensor<32x12544xf32>) outs(%f : tensor<16x12544xf32>) -> tensor<16x12544xf32>
  return %r : tensor<16x12544xf32>
}
