// Result shapes recovered from uses, run-time Pad axes, FlexAttention.
// @reduce_l2: ONNX's expanded ReduceL2 reduces over run-time axes; the
// importer leaves the sum '?', and the chain of element-wise ops down to
// the static result gives it [3,2,1] (keepdims), so the axes are the
// dimensions that became 1. @window: a Range with a run-time limit whose
// scaled result has a static shape. @pad_axes: Pad's axes are an input.
// @flex: FlexAttention with grouped kv heads and a score_mod subgraph
// (gree.graph_attrs names the region), inlined after the scores.
module {
  func.func @reduce_l2(%arg0: !torch.vtensor<[3,2,2],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,2,1],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Mul"(%arg0, %arg0) : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[3,2,2],f32>) -> !torch.vtensor<[3,2,2],f32>
    %1 = torch.operator "onnx.ReduceSum"(%0, %arg1) {torch.onnx.keepdims = 1 : si64, torch.onnx.noop_with_empty_axes = 0 : si64} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?,?],f32>
    %2 = torch.operator "onnx.Sqrt"(%1) : (!torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[?,?,?],f32>
    %3 = torch.operator "onnx.CastLike"(%2, %arg0) : (!torch.vtensor<[?,?,?],f32>, !torch.vtensor<[3,2,2],f32>) -> !torch.vtensor<[3,2,1],f32>
    return %3 : !torch.vtensor<[3,2,1],f32>
  }
  func.func @window(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %2 = torch.operator "onnx.Range"(%0, %arg0, %1) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?],f32>
    %3 = torch.operator "onnx.Mul"(%2, %1) : (!torch.vtensor<[?],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
    return %3 : !torch.vtensor<[4],f32>
  }
  func.func @pad_axes(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2],si64>, %arg2: !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,6],f32> attributes {torch.onnx_meta.ir_version = 10 : si64, torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Pad"(%arg0, %arg1, %none, %arg2) {torch.onnx.mode = "constant"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,6],f32>
    return %0 : !torch.vtensor<[2,6],f32>
  }
  func.func @flex(%arg0: !torch.vtensor<[1,4,3,8],f32>, %arg1: !torch.vtensor<[1,2,5,8],f32>, %arg2: !torch.vtensor<[1,2,5,6],f32>) -> !torch.vtensor<[1,4,3,6],f32> attributes {torch.onnx_meta.ir_version = 13 : si64, torch.onnx_meta.opset_version = 26 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.FlexAttention"(%arg0, %arg1, %arg2) {gree.graph_attrs = ["score_mod"], torch.onnx.scale = 2.500000e-01 : f32} : (!torch.vtensor<[1,4,3,8],f32>, !torch.vtensor<[1,2,5,8],f32>, !torch.vtensor<[1,2,5,6],f32>) -> !torch.vtensor<[1,4,3,6],f32> {
    ^bb0(%arg3: !torch.vtensor<[?,?,?,?],f32>):
      %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
      %2 = torch.operator "onnx.Add"(%arg3, %1) : (!torch.vtensor<[?,?,?,?],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?,?,?,?],f32>
      torch.operator_terminator %2 : !torch.vtensor<[?,?,?,?],f32>
    }
    return %0 : !torch.vtensor<[1,4,3,6],f32>
  }
}
