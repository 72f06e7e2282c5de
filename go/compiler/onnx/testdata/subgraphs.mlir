module {
  func.func @subgraphs(%arg0: !torch.vtensor<[],i1>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 16 : si64, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si64>} : () -> !torch.vtensor<[],si64> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1> 
    %none = torch.constant.none
    %2 = torch.operator "onnx.If"(%arg0) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],f32> {
      %none_0 = torch.constant.none
      %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<_> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32> 
      %6 = torch.operator "onnx.Add"(%5, %arg1) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> 
      torch.operator_terminator %6 : !torch.vtensor<[2],f32>
    }, {
      %none_0 = torch.constant.none
      %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<__1> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32> 
      %6 = torch.operator "onnx.Add"(%5, %arg1) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> 
      torch.operator_terminator %6 : !torch.vtensor<[2],f32>
    }
    %3 = torch.operator "onnx.Loop"(%0, %1, %2) : (!torch.vtensor<[],si64>, !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[],f32> {
    ^bb0(%arg2: !torch.vtensor<[],si64>, %arg3: !torch.vtensor<[],i1>, %arg4: !torch.vtensor<[2],f32>):
      %none_0 = torch.constant.none
      %5 = torch.operator "onnx.Identity"(%arg3) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[],i1> 
      %6 = torch.operator "onnx.Add"(%arg4, %arg1) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> 
      torch.operator_terminator %5, %6 : !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>
    }
    %4 = torch.operator "onnx.Neg"(%3) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32> 
    return %4 : !torch.vtensor<[2],f32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      _: "0x080000000000A0400000C040",
      __1: "0x080000000000803F00000040"
    }
  }
#-}

