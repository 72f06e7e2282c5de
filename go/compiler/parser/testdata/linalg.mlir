// linalg ops in custom form: structured ops with and without bodies,
// named ops (no body region), the map/reduce short forms.

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linalg_ops(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, %v: tensor<8xf32>, %s: f32,
    %bt: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>, %bc: tensor<2x4x16xf32>, %img: tensor<1x8x8x3xf32>, %flt: tensor<3x3x3x4xf32>, %out: tensor<1x6x6x4xf32>,
    %dw: tensor<3x3x3xf32>, %dwo: tensor<1x6x6x3xf32>, %win: tensor<2x2xf32>, %r: tensor<4xf32>, %po: tensor<1x7x7x3xf32>, %tr: tensor<8x4xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%tr, %b : tensor<8x4xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = linalg.batch_matmul ins(%bt, %bb : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%bc : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %3 = linalg.batch_reduce_matmul ins(%bt, %bb : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %4 = linalg.matvec ins(%tr, %r : tensor<8x4xf32>, tensor<4xf32>) outs(%v : tensor<8xf32>) -> tensor<8xf32>
  %5 = linalg.fill ins(%s : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %6 = linalg.copy ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %flt : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%out : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %8 = linalg.depthwise_conv_2d_nhwc_hwc ins(%img, %dw : tensor<1x8x8x3xf32>, tensor<3x3x3xf32>) outs(%dwo : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %9 = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%img, %win : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%po : tensor<1x7x7x3xf32>) -> tensor<1x7x7x3xf32>
  %10 = linalg.map { arith.addf } ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)
  %11 = linalg.map ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)
    (%in: f32, %init: f32) {
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
  %12 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
  %13 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  %14 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%tr : tensor<8x4xf32>) permutation = [1, 0]
  %15 = linalg.broadcast ins(%r : tensor<4xf32>) outs(%a : tensor<4x8xf32>) dimensions = [1]
  %16 = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %17 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) attrs = {foo = 1 : i32} {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 1 : index
    linalg.yield %x : f32
  } -> tensor<4x8xf32>
  %18 = linalg.elementwise <exp> ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %19 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s0 = tensor.empty() : tensor<f32>
  %20 = linalg.dot ins(%v, %v : tensor<8xf32>, tensor<8xf32>) outs(%s0 : tensor<f32>) -> tensor<f32>
  %21 = linalg.elementwise <add> ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
