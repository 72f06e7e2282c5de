func.func @s(%a: tensor<3x4xi32>, %o: index) -> (tensor<2x2xi32>, tensor<2xi32>) {
  %s = tensor.extract_slice %a[1, 1] [2, 2] [1, 1] : tensor<3x4xi32> to tensor<2x2xi32>
  %d = tensor.extract_slice %a[%o, 0] [1, 2] [1, 2] : tensor<3x4xi32> to tensor<2xi32>
  return %s, %d : tensor<2x2xi32>, tensor<2xi32>
}
