// dense_resource attributes and the blob section that holds their data.
module {
  func.func @weights() -> (tensor<2xf32>, tensor<3xi16>) {
    %w = arith.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
    %b = arith.constant dense_resource<bias> : tensor<3xi16>
    return %w, %b : tensor<2xf32>, tensor<3xi16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_torch.float32: "0x040000000000803F000000C0",
      bias: "0x02000000010002000300"
    }
  }
#-}
