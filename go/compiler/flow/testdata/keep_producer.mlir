// A recurrent step: the new cell state c = f·c0 + g is read by the hidden
// state h = o·tanh(c) and returned as well (the next step reads it). The
// cell state's generic joins the hidden state's as its second result: one
// dispatch computes both, element for element.
func.func @lstm_cell(%f: tensor<4x8xf32>, %c0: tensor<4x8xf32>, %g: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%f, %c0, %g : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %x: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%o, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = math.tanh %b : f32
    %p = arith.mulf %a, %t : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %h, %c : tensor<4x8xf32>, tensor<4x8xf32>
}

// A consumer that reads the producer twice (x·x) reads it once after its
// repeated inputs are merged, and then takes it as a second result: one
// dispatch computes −a and its square (without the merge, the other read
// would be of the fused generic's own result, and the producer would stay
// a generic of its own).
func.func @square_of_kept(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%u: f32, %w: f32, %out: f32):
    %m = arith.mulf %u, %w : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y, %x : tensor<4xf32>, tensor<4xf32>
}
