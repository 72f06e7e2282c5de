// torch-onnx as IREE's ONNX importer writes it: a small conv net head
// (Conv with bias and pads, Relu, GlobalAveragePool, Flatten, Gemm) and an
// If whose branches are constants.
func.func @main_graph(%arg0: !torch.vtensor<[1,2,4,4],f32>, %arg1: !torch.vtensor<[],i1>) -> (!torch.vtensor<[1,3],f32>, !torch.vtensor<[2],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %w = torch.vtensor.literal(dense_resource<_w> : tensor<4x2x3x3xf32>) : !torch.vtensor<[4,2,3,3],f32>
  %b = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0.5, -0.5, 1.0, 0.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %none = torch.constant.none
  %0 = torch.operator "onnx.Conv"(%arg0, %w, %b) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2,2],f32>
  %1 = torch.operator "onnx.Relu"(%0) : (!torch.vtensor<[1,4,2,2],f32>) -> !torch.vtensor<[1,4,2,2],f32>
  %2 = torch.operator "onnx.GlobalAveragePool"(%1) : (!torch.vtensor<[1,4,2,2],f32>) -> !torch.vtensor<[1,4,1,1],f32>
  %3 = torch.operator "onnx.Flatten"(%2) : (!torch.vtensor<[1,4,1,1],f32>) -> !torch.vtensor<[1,4],f32>
  %fc = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.25> : tensor<3x4xf32>} : () -> !torch.vtensor<[3,4],f32>
  %4 = torch.operator "onnx.Gemm"(%3, %fc, %none) {torch.onnx.transB = 1 : si64, torch.onnx.alpha = 2.0 : f32} : (!torch.vtensor<[1,4],f32>, !torch.vtensor<[3,4],f32>, !torch.none) -> !torch.vtensor<[1,3],f32>
  %5 = torch.operator "onnx.If"(%arg1) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],si64> {
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
    torch.operator_terminator %6 : !torch.vtensor<[2],si64>
  }, {
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 0]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
    torch.operator_terminator %6 : !torch.vtensor<[2],si64>
  }
  return %4, %5 : !torch.vtensor<[1,3],f32>, !torch.vtensor<[2],si64>
}

{-#
  dialect_resources: {
    builtin: {
      _w: "0x040000000000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F0000803F0000003F000080BE0000803E000000BF0000403F"
    }
  }
#-}
