module {
  func.func @pad_pairs(%arg0: !torch.vtensor<[1,2,5,6],f32>) -> !torch.vtensor<[1,2,12,9],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 2, 3, 4]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<4> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-1, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64> 
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-9223372036854775807> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %7 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %none = torch.constant.none
    %8 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0, 0, 3, 1, 0, 0, 4, 2]> : tensor<8xsi64>} : () -> !torch.vtensor<[8],si64> 
    %9 = torch.operator "onnx.Pad"(%arg0, %8) : (!torch.vtensor<[1,2,5,6],f32>, !torch.vtensor<[8],si64>) -> !torch.vtensor<[1,2,12,9],f32> 
    return %9 : !torch.vtensor<[1,2,12,9],f32>
  }
}

