// 8-bit floats: stored as codes, computed in f32 and rounded per op.
func.func @f8_arith() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, -0.5]> : tensor<4xf8E4M3FN>
  %b = util.unfoldable_constant dense<[0.5, 2.0, 1.0, 4.0]> : tensor<4xf8E4M3FN>
  %s = arith.addf %a, %b : tensor<4xf8E4M3FN>
  check.expect_almost_eq_const(%s, dense<[1.5, 4.0, 4.0, 3.5]> : tensor<4xf8E4M3FN>) : tensor<4xf8E4M3FN>
  %m = arith.mulf %a, %b : tensor<4xf8E4M3FN>
  check.expect_almost_eq_const(%m, dense<[0.5, 4.0, 3.0, -2.0]> : tensor<4xf8E4M3FN>) : tensor<4xf8E4M3FN>
  return
}

func.func @f8_rounding_and_codes() {
  // 2.25 and 3.25 are ties in f8E5M2: nearest even gives 2.0 (0x40) and 3.0 (0x42).
  %x = util.unfoldable_constant dense<[2.25, 3.25, 1.0e6, -0.0]> : tensor<4xf32>
  %t = arith.truncf %x : tensor<4xf32> to tensor<4xf8E5M2>
  %codes = arith.bitcast %t : tensor<4xf8E5M2> to tensor<4xi8>
  // 1e6 overflows to +inf (0x7C); -0.0 keeps its sign (0x80).
  check.expect_eq_const(%codes, dense<[64, 66, 124, -128]> : tensor<4xi8>) : tensor<4xi8>
  %w = arith.extf %t : tensor<4xf8E5M2> to tensor<4xf32>
  check.expect_almost_eq_const(%w, dense<[2.0, 3.0, 0x7F800000, -0.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @f8_fnuz_no_negative_zero() {
  %x = util.unfoldable_constant dense<[-0.0, 1.0e6]> : tensor<2xf32>
  %t = arith.truncf %x : tensor<2xf32> to tensor<2xf8E5M2FNUZ>
  %codes = arith.bitcast %t : tensor<2xf8E5M2FNUZ> to tensor<2xi8>
  // -0 becomes +0; overflow is NaN (0x80).
  check.expect_eq_const(%codes, dense<[0, -128]> : tensor<2xi8>) : tensor<2xi8>
  return
}

func.func @f4_packed_bytes() {
  // Bytes 0x20 and 0x1E hold f4E2M1FN codes (low nibble first): 0x0 0x2 0xE 0x1 = [0, 1, -4, 0.5].
  %bytes = util.unfoldable_constant dense<[0x20, 0x1E]> : tensor<2xi8>
  %f4 = flow.tensor.bitcast %bytes : tensor<2xi8> -> tensor<4xf4E2M1FN>
  %x = arith.extf %f4 : tensor<4xf4E2M1FN> to tensor<4xf32>
  check.expect_eq_const(%x, dense<[0.0, 1.0, -4.0, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  // Tripling saturates -12 to -6 (0xF) and 3 stays 3 (0x5); 1.5 is 0x3.
  %three = util.unfoldable_constant dense<3.0> : tensor<4xf32>
  %y = arith.mulf %x, %three : tensor<4xf32>
  %t = arith.truncf %y : tensor<4xf32> to tensor<4xf4E2M1FN>
  %packed = flow.tensor.bitcast %t : tensor<4xf4E2M1FN> -> tensor<2xi8>
  check.expect_eq_const(%packed, dense<[0x50, 0x3F]> : tensor<2xi8>) : tensor<2xi8>
  return
}

// bf16 operands of a matrix product with an f32 result (StableHLO's mixed
// dot): on x86 without AVX512-BF16, bf16 vectors must never reach LLVM's
// type legalization, which would call __truncsfbf2.
func.func @bf16_matmul_f32_result() {
  %lhs = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.5, 8.0], [2.0, 2.0, 2.0]]> : tensor<4x3xbf16>
  %rhs = util.unfoldable_constant dense<[[1.0, 0.0, 2.0, -1.0, 3.0], [0.5, 1.0, 1.0, 4.0, -2.0], [2.0, 3.0, -1.0, 0.0, 1.0]]> : tensor<3x5xbf16>
  %r = "stablehlo.dot"(%lhs, %rhs) : (tensor<4x3xbf16>, tensor<3x5xbf16>) -> tensor<4x5xf32>
  check.expect_almost_eq_const(%r, dense<[
      [8.0, 11.0, 1.0, 7.0, 2.0],
      [18.5, 23.0, 7.0, 16.0, 8.0],
      [15.25, 24.5, -9.5, 3.0, 4.0],
      [7.0, 8.0, 4.0, 6.0, 4.0]]> : tensor<4x5xf32>) : tensor<4x5xf32>
  return
}
