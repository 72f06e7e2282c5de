// TOSA's pretty syntax, both forms: function types, bare enum attribute
// values, const_shape, cond_if (plain and with an input list), while_loop.
func.func @ops(%x: tensor<2x4xi32>, %c: tensor<i1>) -> tensor<2x4xi8> {
  %s = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<2x4xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %sh = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %z8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %q = tosa.rescale %x, %m, %sh, %z, %z8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<2x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x4xi8>
  %old = tosa.clamp %q {max_int = 100 : i64, min_int = -100 : i64, max_fp = 1.0 : f32, min_fp = -1.0 : f32} : (tensor<2x4xi8>) -> tensor<2x4xi8>
  %i = tosa.cond_if %c : tensor<i1> -> tensor<2x4xi8> {
    tosa.yield %old : tensor<2x4xi8>
  } else {
    tosa.yield %q : tensor<2x4xi8>
  }
  %j = tosa.cond_if %c (%a = %x, %b = %x) : tensor<i1> (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32> {
    %t = tosa.add %a, %b : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
    tosa.yield %t : tensor<2x4xi32>
  } else {
    tosa.yield %a : tensor<2x4xi32>
  }
  %w = tosa.while_loop (%v = %x) : (tensor<2x4xi32>) -> tensor<2x4xi32> {
    %k = tosa.reduce_any %c {axis = 0 : i32} : (tensor<i1>) -> tensor<i1>
    tosa.yield %k : tensor<i1>
  } do {
  ^bb0(%v2: tensor<2x4xi32>):
    tosa.yield %v2 : tensor<2x4xi32>
  }
  return %i : tensor<2x4xi8>
}

tosa.variable @v = dense<[1, 2]> : tensor<2xi32>
tosa.variable @w : tensor<3xf32>
func.func @vars(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = tosa.variable_read @v : tensor<2xi32>
  tosa.variable_write @v, %x : tensor<2xi32>
  return %r : tensor<2xi32>
}

func.func @old_if(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %0 = tosa.cond_if %c -> (tensor<f32>) {
    tosa.yield %a : tensor<f32>
  } else {
    tosa.yield %b : tensor<f32>
  }
  return %0 : tensor<f32>
}
