// IREE's importer's text (ONNX's rules) for torch's expand(2, -1, -1) chain: the
// input conversion folds ConstantOfShape (a dense_resource value), Mul, Equal
// and Where, so the Expand and the Concat after it are static.
module {
  func.func @expand_where(%arg0: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[2,?,4],f32>, !torch.vtensor<[?,?,?],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<token> : tensor<1x1x4xf32>} : () -> !torch.vtensor<[1,1,4],f32> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[2, -1, -1]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %7 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %none = torch.constant.none
    %8 = torch.operator "onnx.ConstantOfShape"(%2) {torch.onnx.value = dense<1> : tensor<1xsi64>} : (!torch.vtensor<[1],si64>) -> !torch.vtensor<[3],si64> 
    %9 = torch.operator "onnx.Mul"(%8, %3) : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],si64> 
    %10 = torch.operator "onnx.Equal"(%1, %9) : (!torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],i1> 
    %11 = torch.operator "onnx.Where"(%10, %8, %1) : (!torch.vtensor<[3],i1>, !torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],si64> 
    %12 = torch.operator "onnx.Expand"(%0, %11) : (!torch.vtensor<[1,1,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?,4],f32> 
    %13 = torch.operator "onnx.Concat"(%12, %arg0) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,?,4],f32> 
    %14 = torch.operator "onnx.Range"(%4, %5, %6) : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],si64> 
    %15 = torch.operator "onnx.Less"(%14, %7) : (!torch.vtensor<[3],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3],i1> 
    %16 = torch.operator "onnx.Not"(%15) : (!torch.vtensor<[3],i1>) -> !torch.vtensor<[3],i1> 
    %17 = torch.operator "onnx.Cast"(%16) {torch.onnx.to = 7 : si64} : (!torch.vtensor<[3],i1>) -> !torch.vtensor<[3],si64> 
    %18 = torch.operator "onnx.Max"(%17, %6) : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],si64> 
    %19 = torch.operator "onnx.Shape"(%12) : (!torch.vtensor<[?,?,4],f32>) -> !torch.vtensor<[3],si64> 
    %20 = torch.operator "onnx.Add"(%18, %19) : (!torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],si64> 
    %21 = torch.operator "onnx.ConstantOfShape"(%20) : (!torch.vtensor<[3],si64>) -> !torch.vtensor<[?,?,?],f32> 
    return %13, %21 : !torch.vtensor<[2,?,4],f32>, !torch.vtensor<[?,?,?],f32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      token: "0x080000000000003F000080BF000000400000803E"
    }
  }
#-}

