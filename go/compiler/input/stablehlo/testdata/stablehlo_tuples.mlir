// XLA-style tuples in an entry signature are flattened: the tuple
// argument becomes two arguments, the returned tuple two results.
func.func @main(%t: tuple<tensor<4xf32>, tensor<i32>>, %y: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<4xf32>, tensor<i32>>) -> tensor<4xf32>
  %s = stablehlo.add %a, %y : tensor<4xf32>
  %r = stablehlo.tuple %s, %a : tuple<tensor<4xf32>, tensor<4xf32>>
  return %r : tuple<tensor<4xf32>, tensor<4xf32>>
}
