module {
  func.func @shapes(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,12],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %none = torch.constant.none
    %3 = torch.operator "onnx.Shape"(%arg0) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3],si64> 
    %4 = torch.operator "onnx.Gather"(%3, %0) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64> 
    %5 = torch.operator "onnx.Unsqueeze"(%4, %1) : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64> 
    %6 = torch.operator "onnx.Concat"(%5, %2) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],si64> 
    %7 = torch.operator "onnx.Reshape"(%arg0, %6) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,12],f32> 
    %8 = torch.operator "onnx.Relu"(%7) : (!torch.vtensor<[2,12],f32>) -> !torch.vtensor<[2,12],f32> 
    return %8 : !torch.vtensor<[2,12],f32>
  }
}

