// tensor ops and linalg.pack/unpack in custom form.

func.func @tensor_ops(%t: tensor<8x16xf32>, %d: tensor<?x16xf32>, %i: index, %f: f32) {
  %0 = tensor.extract_slice %t[%i, 2] [4, %i] [1, 2] : tensor<8x16xf32> to tensor<4x?xf32>
  %1 = tensor.insert_slice %0 into %t[0, %i] [4, %i] [1, 1] : tensor<4x?xf32> into tensor<8x16xf32>
  %2 = tensor.pad %d nofold low[%i, 0] high[1, 2] {
  ^bb0(%a: index, %b: index):
    tensor.yield %f : f32
  } : tensor<?x16xf32> to tensor<?x18xf32>
  %3 = tensor.expand_shape %d [[0, 1], [2]] output_shape [%i, 2, 16] : tensor<?x16xf32> into tensor<?x2x16xf32>
  %4 = tensor.collapse_shape %t [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %5 = tensor.concat dim(0) %t, %t : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %6 = tensor.generate %i {
  ^bb0(%a: index, %b: index):
    tensor.yield %f : f32
  } : tensor<?x3xf32>
  %7 = tensor.splat %f : tensor<4xf32>
  %8 = tensor.splat %f[%i] : tensor<?x4xf32>
  %9 = tensor.from_elements %f, %f : tensor<2xf32>
  %10 = tensor.bitcast %t : tensor<8x16xf32> to tensor<8x16xi32>
  %11 = tensor.rank %t : tensor<8x16xf32>
  %shape = arith.constant dense<[128]> : tensor<1xi32>
  %12 = tensor.reshape %t(%shape) : (tensor<8x16xf32>, tensor<1xi32>) -> tensor<128xf32>
  %13 = tensor.extract %t[%i, %i] : tensor<8x16xf32>
  %14 = tensor.insert %f into %t[%i, %i] : tensor<8x16xf32>
  %15 = tensor.dim %d, %i : tensor<?x16xf32>
  %16 = tensor.cast %d : tensor<?x16xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<16x2x4xf32>
  %ed = tensor.empty(%i) : tensor<16x2x?xf32>
  %p17 = linalg.pack %t padding_value(%f : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [%i] into %ed : tensor<8x16xf32> -> tensor<16x2x?xf32>
  %17 = linalg.pack %t padding_value(%f : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [4] into %e : tensor<8x16xf32> -> tensor<16x2x4xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %18 = linalg.unpack %17 outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [4] into %e2 : tensor<16x2x4xf32> -> tensor<8x16xf32>
  return
}
