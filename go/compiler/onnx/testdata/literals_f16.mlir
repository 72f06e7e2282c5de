module {
  func.func @literals_f16() -> (!torch.vtensor<[4],f16>, !torch.vtensor<[2],bf16>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 3.332520e-01, 0x7C00, -0.000000e+00]> : tensor<4xf16>} : () -> !torch.vtensor<[4],f16> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 3.140630e+00]> : tensor<2xbf16>} : () -> !torch.vtensor<[2],bf16> 
    return %0, %1 : !torch.vtensor<[4],f16>, !torch.vtensor<[2],bf16>
  }
}

