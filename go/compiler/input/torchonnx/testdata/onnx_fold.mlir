// Shape arithmetic folds to constants: the Reshape's shape comes from
// Shape/Gather/Unsqueeze/Concat on a static input, and ConstantOfShape
// with the importer's '?' result becomes a static fill.
func.func @fold(%arg0: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[6,4],f32>, !torch.vtensor<[?],si64>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Shape"(%arg0) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3],si64>
  %i0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %i1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %a = torch.operator "onnx.Gather"(%0, %i0) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %b = torch.operator "onnx.Gather"(%0, %i1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %ab = torch.operator "onnx.Mul"(%a, %b) : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %ax = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %u = torch.operator "onnx.Unsqueeze"(%ab, %ax) : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  %m1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-1]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %s = torch.operator "onnx.Concat"(%u, %m1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],si64>
  %r = torch.operator "onnx.Reshape"(%arg0, %s) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[6,4],f32>
  %c = torch.operator "onnx.ConstantOfShape"(%u) {torch.onnx.value = dense<7> : tensor<1xsi64>} : (!torch.vtensor<[1],si64>) -> !torch.vtensor<[?],si64>
  return %r, %c : !torch.vtensor<[6,4],f32>, !torch.vtensor<[?],si64>
}
