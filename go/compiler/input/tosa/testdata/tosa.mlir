// TOSA → core tensor ops: broadcasting element-wise ops, rescale (TOSA 1.0
// operands), reshape through const_shape, a keep-dims reduction, cond_if.
func.func @add_bcast(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @rescale(%x: tensor<4xi32>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

func.func @reshape_reduce(%x: tensor<2x3xi32>) -> tensor<1x2xi32> {
  %s = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %s : (tensor<2x3xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
  %1 = tosa.reduce_sum %0 {axis = 0 : i32} : (tensor<3x2xi32>) -> tensor<1x2xi32>
  return %1 : tensor<1x2xi32>
}

func.func @cond(%c: tensor<i1>, %a: tensor<2xi32>) -> tensor<2xi32> {
  %r = tosa.cond_if %c : tensor<i1> -> tensor<2xi32> {
    %n = tosa.negate %a : (tensor<2xi32>) -> tensor<2xi32>
    tosa.yield %n : tensor<2xi32>
  } else {
    tosa.yield %a : tensor<2xi32>
  }
  return %r : tensor<2xi32>
}
