// util globals and functions and flow tensor ops in custom form.

util.global private @g : tensor<4xf32>
util.global private mutable @h = 3 : i32
util.func public @uf(%a: tensor<4xf32>) -> (%a, i32) {
  %v = util.global.load @h : i32
  %w = util.global.load immutable @g : tensor<4xf32>
  util.global.store %v, @h : i32
  %t = flow.tensor.dynamic_constant dense<1.0> : tensor<2x4xf32> -> tensor<?x4xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %t, %c1 : tensor<?x4xf32>
  %tt = flow.tensor.tie_shape %t : tensor<?x4xf32>{%d}
  %bc = flow.tensor.bitcast %tt : tensor<?x4xf32>{%d} -> tensor<?x4xi32>{%d}
  util.return %a, %v : tensor<4xf32>, i32
}
