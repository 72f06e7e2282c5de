module {
  func.func @literals_f16() -> (!torch.vtensor<[4],f16>, !torch.vtensor<[2],bf16>, !torch.vtensor<[3],si4>, !torch.vtensor<[5],si2>, !torch.vtensor<[3],ui2>, !torch.vtensor<[4],f4E2M1FN>, !torch.vtensor<[3],f8E8M0FNU>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 3.332520e-01, 0x7C00, -0.000000e+00]> : tensor<4xf16>} : () -> !torch.vtensor<[4],f16> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 3.140630e+00]> : tensor<2xbf16>} : () -> !torch.vtensor<[2],bf16> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-8, 7, -1]> : tensor<3xsi4>} : () -> !torch.vtensor<[3],si4> 
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0, 1, -2, -1, 1]> : tensor<5xsi2>} : () -> !torch.vtensor<[5],si2> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[3, 0, 2]> : tensor<3xui2>} : () -> !torch.vtensor<[3],ui2> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 6.000000e+00, -5.000000e-01, -6.000000e+00]> : tensor<4xf4E2M1FN>} : () -> !torch.vtensor<[4],f4E2M1FN> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 8.000000e+00, 7.812500e-03]> : tensor<3xf8E8M0FNU>} : () -> !torch.vtensor<[3],f8E8M0FNU> 
    return %0, %1, %2, %3, %4, %5, %6 : !torch.vtensor<[4],f16>, !torch.vtensor<[2],bf16>, !torch.vtensor<[3],si4>, !torch.vtensor<[5],si2>, !torch.vtensor<[3],ui2>, !torch.vtensor<[4],f4E2M1FN>, !torch.vtensor<[3],f8E8M0FNU>
  }
}

