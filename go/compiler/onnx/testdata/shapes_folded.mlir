module {
  func.func @shapes(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,12],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %none = torch.constant.none
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[2, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64> 
    %4 = torch.operator "onnx.Reshape"(%arg0, %3) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,12],f32> 
    %5 = torch.operator "onnx.Relu"(%4) : (!torch.vtensor<[2,12],f32>) -> !torch.vtensor<[2,12],f32> 
    return %5 : !torch.vtensor<[2,12],f32>
  }
}

