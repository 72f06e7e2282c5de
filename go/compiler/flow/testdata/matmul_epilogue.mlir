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

// Batch matmul + bias with a non-zero fill: in place, the fill stored first.
func.func @bmm_bias(%a: tensor<3x9x20xf32>, %b: tensor<3x20x11xf32>, %bias: tensor<11xf32>) -> tensor<3x9x11xf32> {
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<3x9x11xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<3x9x11xf32>) -> tensor<3x9x11xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<3x9x20xf32>, tensor<3x20x11xf32>) outs(%f : tensor<3x9x11xf32>) -> tensor<3x9x11xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m, %bias : tensor<3x9x11xf32>, tensor<11xf32>) outs(%e : tensor<3x9x11xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x9x11xf32>
  return %r : tensor<3x9x11xf32>
}

// An epilogue that changes the element type cannot run in place: the
// region returns the matmul's result too and the Contract accumulates there.
func.func @mm_bias_f16(%a: tensor<37x45xf32>, %b: tensor<45x70xf32>, %bias: tensor<70xf32>) -> tensor<37x70xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x70xf32>
  %h = tensor.empty() : tensor<37x70xf16>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<37x70xf32>) -> tensor<37x70xf32>
  %m = linalg.matmul ins(%a, %b : tensor<37x45xf32>, tensor<45x70xf32>) outs(%f : tensor<37x70xf32>) -> tensor<37x70xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<37x70xf32>, tensor<70xf32>) outs(%h : tensor<37x70xf16>) {
  ^bb0(%x: f32, %y: f32, %o: f16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<37x70xf16>
  return %r : tensor<37x70xf16>
}

// A depthwise convolution is a contraction that is not matmul-shaped: its
// bias and clip epilogue runs in place too (codegen keeps the convolution
// in registers), so the region returns the epilogue's result alone.
func.func @dw_bias_clip(%x: tensor<4x10x10xf32>, %w: tensor<4x3x3xf32>, %bias: tensor<4xf32>) -> tensor<4x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h + kh, w + kw)>, affine_map<(c, h, w, kh, kw) -> (c, kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<4x10x10xf32>, tensor<4x3x3xf32>) outs(%f : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (c, h, w)>, affine_map<(c, h, w) -> (c)>, affine_map<(c, h, w) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<4x8x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %lo = arith.maximumf %s, %z : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<4x8x8xf32>
  return %r : tensor<4x8x8xf32>
}
