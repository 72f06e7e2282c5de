// A 1×1 convolution's matmul, its bias, a reshape to NCHW, a clip, a zero
// pad (reads at (i + 7) mod 8, kept inside [1, 9)) and a stride-2
// depthwise convolution, as MobileNetV2's ONNX export lowers: the clip
// moves above the reshape and joins the bias in the matmul's dispatch, and
// the pad (index tests only) is computed inside the convolution, where
// its linalg.index of the padded rows becomes 2·oh + kh.
func.func @f(%w1: tensor<2x3xf32>, %x: tensor<3x64xf32>, %b: tensor<2xf32>, %wd: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<2x3xf32>, tensor<3x64xf32>) outs(%f : tensor<2x64xf32>) -> tensor<2x64xf32>
  %e1 = tensor.empty() : tensor<2x64xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<2x64xf32>, tensor<2xf32>) outs(%e1 : tensor<2x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %shape = arith.constant dense<[1, 2, 8, 8]> : tensor<4xi64>
  %r = tensor.reshape %bias(%shape) : (tensor<2x64xf32>, tensor<4xi64>) -> tensor<1x2x8x8xf32>
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<6.0> : tensor<f32>
  %e2 = tensor.empty() : tensor<1x2x8x8xf32>
  %clip = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %lo, %hi : tensor<1x2x8x8xf32>, tensor<f32>, tensor<f32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %l: f32, %h: f32, %o: f32):
    %0 = arith.maximumf %a, %l : f32
    %1 = arith.minimumf %0, %h : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x8x8xf32>
  %e3 = tensor.empty() : tensor<1x2x9x9xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 7) mod 8, (d3 + 7) mod 8)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%clip : tensor<1x2x8x8xf32>) outs(%e3 : tensor<1x2x9x9xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 2 : index
    %c1 = arith.constant 1 : index
    %c9 = arith.constant 9 : index
    %0 = arith.cmpi sge, %i, %c1 : index
    %1 = arith.cmpi slt, %i, %c9 : index
    %2 = arith.andi %0, %1 : i1
    %j = linalg.index 3 : index
    %3 = arith.cmpi sge, %j, %c1 : index
    %4 = arith.cmpi slt, %j, %c9 : index
    %5 = arith.andi %3, %4 : i1
    %6 = arith.andi %2, %5 : i1
    %z = arith.constant 0.0 : f32
    %7 = arith.select %6, %a, %z : f32
    linalg.yield %7 : f32
  } -> tensor<1x2x9x9xf32>
  %e4 = tensor.empty() : tensor<1x2x4x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %wd : tensor<1x2x9x9xf32>, tensor<2x1x3x3xf32>) outs(%f4 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.mulf %a, %c : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x4x4xf32>
  return %dw : tensor<1x2x4x4xf32>
}
