// A transformer's feed-forward block as ONNX exports it: each product runs
// on the rows [128, K], its result reshaped to [1, 128, N], then a bias
// (broadcast along rows) and ReLU, or a bias and the residual connection,
// in [1, 128, N]. The reshape only adds a unit dimension, so the
// element-wise generic moves above it, reading the bias through the
// product's loops, and runs in the product's epilogue: one dispatch per
// product, none for the element-wise work.
func.func @feed_forward(%x: tensor<1x128x64xf32>, %w1: tensor<64x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x64xf32>, %b2: tensor<64xf32>) -> tensor<1x128x64xf32> {
  %z = arith.constant 0.0 : f32
  %rows = arith.constant dense<[128, 64]> : tensor<2xi64>
  %x2 = tensor.reshape %x(%rows) : (tensor<1x128x64xf32>, tensor<2xi64>) -> tensor<128x64xf32>
  %e1 = tensor.empty() : tensor<128x256xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m1 = linalg.matmul ins(%x2, %w1 : tensor<128x64xf32>, tensor<64x256xf32>) outs(%f1 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %s1 = arith.constant dense<[1, 128, 256]> : tensor<3xi64>
  %r1 = tensor.reshape %m1(%s1) : (tensor<128x256xf32>, tensor<3xi64>) -> tensor<1x128x256xf32>
  %e1b = tensor.empty() : tensor<1x128x256xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b1, %r1 : tensor<256xf32>, tensor<1x128x256xf32>) outs(%e1b : tensor<1x128x256xf32>) {
  ^bb0(%b: f32, %v: f32, %o: f32):
    %s = arith.addf %b, %v : f32
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<1x128x256xf32>
  %rows2 = arith.constant dense<[128, 256]> : tensor<2xi64>
  %h2 = tensor.reshape %h(%rows2) : (tensor<1x128x256xf32>, tensor<2xi64>) -> tensor<128x256xf32>
  %e2 = tensor.empty() : tensor<128x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m2 = linalg.matmul ins(%h2, %w2 : tensor<128x256xf32>, tensor<256x64xf32>) outs(%f2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %s2 = arith.constant dense<[1, 128, 64]> : tensor<3xi64>
  %r2 = tensor.reshape %m2(%s2) : (tensor<128x64xf32>, tensor<3xi64>) -> tensor<1x128x64xf32>
  %e2b = tensor.empty() : tensor<1x128x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %b2, %r2 : tensor<1x128x64xf32>, tensor<64xf32>, tensor<1x128x64xf32>) outs(%e2b : tensor<1x128x64xf32>) {
  ^bb0(%res: f32, %b: f32, %v: f32, %o: f32):
    %s = arith.addf %b, %v : f32
    %t = arith.addf %res, %s : f32
    linalg.yield %t : f32
  } -> tensor<1x128x64xf32>
  return %y : tensor<1x128x64xf32>
}

// The same bias and ReLU after a tensor.expand_shape (as linalg programs
// write it): one dispatch besides the fill.
func.func @linear_expand(%a: tensor<128x64xf32>, %w: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<1x128x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m = linalg.matmul ins(%a, %w : tensor<128x64xf32>, tensor<64x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 256] : tensor<128x256xf32> into tensor<1x128x256xf32>
  %e2 = tensor.empty() : tensor<1x128x256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %r : tensor<256xf32>, tensor<1x128x256xf32>) outs(%e2 : tensor<1x128x256xf32>) {
  ^bb0(%b: f32, %v: f32, %o: f32):
    %s = arith.addf %b, %v : f32
    %c0 = arith.constant 0.0 : f32
    %x = arith.maximumf %s, %c0 : f32
    linalg.yield %x : f32
  } -> tensor<1x128x256xf32>
  return %y : tensor<1x128x256xf32>
}
