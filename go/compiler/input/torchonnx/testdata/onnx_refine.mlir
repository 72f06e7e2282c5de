// IREE's importer's text (ONNX's rules) of torch's F.pad pattern: the pads
// are a Slice with step -1 and a Transpose of a [4, 2] constant, so the
// Pad's result and everything after it are '?' there. The input conversion
// folds the pads and refines the result shapes: Pad, Softmax, Dropout (its
// mask too), GlobalAveragePool, Flatten, Gemm, ScatterND.
module {
  func.func @pad_pairs(%arg0: !torch.vtensor<[1,2,5,6],f32>) -> (!torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?,?,?],i1>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 2, 3, 4]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<4> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-1, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64> 
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-9223372036854775807> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %7 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64> 
    %none = torch.constant.none
    %8 = torch.operator "onnx.ConstantOfShape"(%1) {torch.onnx.value = dense<0> : tensor<1xsi64>} : (!torch.vtensor<[1],si64>) -> !torch.vtensor<[4],si64> 
    %9 = torch.operator "onnx.Concat"(%0, %8) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[8],si64> 
    %10 = torch.operator "onnx.Reshape"(%9, %2) : (!torch.vtensor<[8],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,2],si64> 
    %11 = torch.operator "onnx.Slice"(%10, %3, %4, %5, %6) : (!torch.vtensor<[4,2],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[4,2],si64> 
    %12 = torch.operator "onnx.Transpose"(%11) {torch.onnx.perm = [1 : si64, 0 : si64]} : (!torch.vtensor<[4,2],si64>) -> !torch.vtensor<[2,4],si64> 
    %13 = torch.operator "onnx.Reshape"(%12, %7) : (!torch.vtensor<[2,4],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[8],si64> 
    %14 = torch.operator "onnx.Cast"(%13) {torch.onnx.to = 7 : si64} : (!torch.vtensor<[8],si64>) -> !torch.vtensor<[8],si64> 
    %15 = torch.operator "onnx.Pad"(%arg0, %14) : (!torch.vtensor<[1,2,5,6],f32>, !torch.vtensor<[8],si64>) -> !torch.vtensor<[?,?,?,?],f32> 
    %16 = torch.operator "onnx.Softmax"(%15) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32> 
    %r = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32> 
    %t = torch.operator "onnx.Constant"() {torch.onnx.value = dense<false> : tensor<i1>} : () -> !torch.vtensor<[],i1> 
    %17:2 = torch.operator "onnx.Dropout"(%16, %r, %t) : (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[?,?,?,?],i1>) 
    %18 = torch.operator "onnx.GlobalAveragePool"(%17#0) : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,1,1],f32> 
    %19 = torch.operator "onnx.Flatten"(%18) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,?,1,1],f32>) -> !torch.vtensor<[?,?],f32> 
    %w = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> !torch.vtensor<[3,2],f32> 
    %b = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0.5, 0.25, 0.125]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32> 
    %20 = torch.operator "onnx.Gemm"(%19, %w, %b) {torch.onnx.transB = 1 : si64} : (!torch.vtensor<[?,?],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,?],f32> 
    %i = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[[0, 2]]> : tensor<1x2xsi64>} : () -> !torch.vtensor<[1,2],si64> 
    %u = torch.operator "onnx.Constant"() {torch.onnx.value = dense<7.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32> 
    %21 = torch.operator "onnx.ScatterND"(%20, %i, %u) : (!torch.vtensor<[?,?],f32>, !torch.vtensor<[1,2],si64>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[?,?],f32> 
    return %21, %17#1 : !torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?,?,?],i1>
  }
}

