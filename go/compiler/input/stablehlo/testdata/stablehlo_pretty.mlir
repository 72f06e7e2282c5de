// StableHLO pretty forms as JAX emits them: a convolution with compact
// dimension numbers and a reversed second window dimension (the kernel is
// read at 2 - k there), and a reduce in the "applies" form.
func.func public @conv(%x: tensor<1x4x4x2xf32>, %w: tensor<2x3x2x3xf32>) -> tensor<1x3x2x3xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<2x3x2x3xf32>) -> tensor<1x3x2x3xf32>
  return %0 : tensor<1x3x2x3xf32>
}
func.func public @sum(%x: tensor<4x6xf32>) -> tensor<4xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// f16 -> bf16 has no single arith op (same width): through f32.
func.func public @f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = stablehlo.convert %x : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
// jnp.argmax over booleans: the reducer compares i1 values UNSIGNED (true
// > false), which a signed compare gets backwards (predicate 8 is ugt).
func.func public @argmax_bool(%x: tensor<3x5xi1>) -> tensor<5xi32> {
  %0 = stablehlo.iota dim = 0 : tensor<3x5xi32>
  %c = stablehlo.constant dense<false> : tensor<i1>
  %c_0 = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%x init: %c), (%0 init: %c_0) across dimensions = [0] : (tensor<3x5xi1>, tensor<3x5xi32>, tensor<i1>, tensor<i32>) -> (tensor<5xi1>, tensor<5xi32>)
   reducer(%arg1: tensor<i1>, %arg3: tensor<i1>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
    %2 = stablehlo.compare GT, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %3 = stablehlo.compare EQ, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %4 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.and %3, %4 : tensor<i1>
    %6 = stablehlo.or %2, %5 : tensor<i1>
    %7 = stablehlo.select %2, %arg1, %arg3 : tensor<i1>, tensor<i1>
    %8 = stablehlo.select %6, %arg2, %arg4 : tensor<i1>, tensor<i32>
    stablehlo.return %7, %8 : tensor<i1>, tensor<i32>
  }
  return %1#1 : tensor<5xi32>
}
// A reduce_window whose body compares and selects (a running maximum
// written out, as lax.cumlogsumexp's body is).
func.func public @window_select(%x: tensor<6xf32>) -> tensor<6xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %cst) <{padding = dense<[[2, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.select %1, %a, %b : tensor<i1>, tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
// jax.checkpoint puts several values through one optimization barrier.
func.func public @barrier(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %0:2 = stablehlo.optimization_barrier %x, %y : tensor<4xf32>, tensor<2xf32>
  return %0#0, %0#1 : tensor<4xf32>, tensor<2xf32>
}
// jax.export with a symbolic batch: the contraction and the reduction
// size their results from the operands (tensor.dim).
func.func public @dynamic_batch(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> tensor<?xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x3xf32>, tensor<f32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
// lax.associative_scan concatenates empty slices: they are dropped.
func.func public @concat_empty(%x: tensor<2xf32>, %e: tensor<0xf32>) -> tensor<2xf32> {
  %0 = stablehlo.concatenate %x, %e, dim = 0 : (tensor<2xf32>, tensor<0xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// bf16 products are summed in f32 and rounded to bf16 once (as XLA does).
func.func public @dot_bf16(%x: tensor<2x8xbf16>, %w: tensor<8x3xbf16>) -> tensor<2x3xbf16> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8xbf16>, tensor<8x3xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
// bitcast_convert between widths: the narrow side has a trailing
// dimension, element 0 the low bits.
func.func public @bitcast_split(%x: tensor<3xf32>) -> tensor<3x4xui8> {
  %0 = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3x4xui8>
  return %0 : tensor<3x4xui8>
}
func.func public @bitcast_merge(%x: tensor<3x2xui32>) -> tensor<3xui64> {
  %0 = stablehlo.bitcast_convert %x : (tensor<3x2xui32>) -> tensor<3xui64>
  return %0 : tensor<3xui64>
}
