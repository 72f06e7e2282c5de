module {
  func.func @unranked(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[?],si64>) -> (!torch.vtensor<[?],si64>, !torch.vtensor<[3],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.ReduceSum"(%arg0, %arg1) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> 
    %1 = torch.operator "onnx.ReduceSum"(%arg0, %arg1) {torch.onnx.keepdims = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,?,?],f32> 
    %2 = torch.operator "onnx.Shape"(%0) : (!torch.vtensor<*,f32>) -> !torch.vtensor<[?],si64> 
    %3 = torch.operator "onnx.Shape"(%1) : (!torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[3],si64> 
    return %2, %3 : !torch.vtensor<[?],si64>, !torch.vtensor<[3],si64>
  }
}

