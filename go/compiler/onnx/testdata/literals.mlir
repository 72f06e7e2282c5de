module {
  func.func @literals(%arg0: !torch.vtensor<[4,?],f32>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[4,?],f32>, !torch.vtensor<[120],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],si64>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],f64>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}, torch.onnx_meta.producer_name = "gree-test", torch.onnx_meta.producer_version = "1"} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<_w_0> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<_w_0_1> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32> 
    %none = torch.constant.none
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<"0x000000000000803E0000003F0000403F0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C41000080410000824100008441000086410000884100008A4100008C4100008E41000090410000924100009441000096410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000B0410000B2410000B4410000B6410000B8410000BA410000BC410000BE410000C0410000C2410000C4410000C6410000C8410000CA410000CC410000CE410000D0410000D2410000D4410000D6410000D8410000DA410000DC410000DE410000E0410000E2410000E4410000E6410000E8410000EA410000EC410000EE41"> : tensor<120xf32>} : () -> !torch.vtensor<[120],f32> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.500000e+00> : tensor<2x2xf32>} : () -> !torch.vtensor<[2,2],f32> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[[1, -2], [3, 9000000000]]> : tensor<2x2xsi64>} : () -> !torch.vtensor<[2,2],si64> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[true, false, true]> : tensor<3xi1>} : () -> !torch.vtensor<[3],i1> 
    %7 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e-01, 1.000000e+20, -0.000000e+00]> : tensor<3xf64>} : () -> !torch.vtensor<[3],f64> 
    %8 = torch.operator "onnx.Constant"() {torch.onnx.value_floats = [5.000000e-01 : f32, 1.000000e-03 : f32, 1.000000e-01 : f32]} : () -> !torch.vtensor<[3],f32> 
    %9:2 = torch.operator "onnx.Split"(%arg0) {torch.onnx.axis = 0 : si64, torch.onnx.num_outputs = 2 : si64} : (!torch.vtensor<[4,?],f32>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>) 
    %10 = torch.operator "onnx.LeakyRelu"(%9#0) {torch.onnx.alpha = 1.000000e-01 : f32} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> 
    %11 = torch.operator "onnx.Resize"(%arg0, %none, %0) {torch.onnx.coordinate_transformation_mode = "asym\22metric\0A", torch.onnx.mode = "nearest"} : (!torch.vtensor<[4,?],f32>, !torch.none, !torch.vtensor<[2],f32>) -> !torch.vtensor<[4,?],f32> 
    %12 = torch.operator "onnx.Add"(%10, %9#1) : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> 
    return %12, %11, %3, %4, %5, %6, %7, %8 : !torch.vtensor<[2,?],f32>, !torch.vtensor<[4,?],f32>, !torch.vtensor<[120],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],si64>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],f64>, !torch.vtensor<[3],f32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      _w_0: "0x080000000000803F00000040",
      _w_0_1: "0x0800000000004040"
    }
  }
#-}

