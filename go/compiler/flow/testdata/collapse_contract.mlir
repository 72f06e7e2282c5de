// A feed-forward matmul with two row loops (batch, sequence) that only A
// and C index, together and in order: merged into one, the generic is a
// matmul of 6×4 by 4×5 between reshapes, its zero fill rebuilt at 6×5.
func.func @ffn(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4xf32>, tensor<4x5xf32>) outs(%f : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %m : tensor<2x3x5xf32>
}

// Attention's scores: batch and head loops that all three operands index
// become one batch loop of a batched matmul.
func.func @scores(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) outs(%f : tensor<1x2x3x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %o, %p : f32
    linalg.yield %t : f32
  } -> tensor<1x2x3x3xf32>
  return %s : tensor<1x2x3x3xf32>
}

// Row loops that A indexes in the other order than C cannot merge without
// moving data: the generic stays as it is.
func.func @swapped_rows(%a: tensor<3x2x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<3x2x4xf32>, tensor<4x5xf32>) outs(%f : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %m : tensor<2x3x5xf32>
}

// An LSTM's input projection: the weight's unit direction dimension (the
// constant 0 in its map) is dropped, sequence and batch rows merge.
func.func @lstm_input(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>) -> tensor<3x1x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x1x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x1x8xf32>) -> tensor<3x1x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<3x1x4xf32>, tensor<1x8x4xf32>) outs(%f : tensor<3x1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x1x8xf32>
  return %y : tensor<3x1x8xf32>
}
