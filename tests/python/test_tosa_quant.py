"""TOSA integer semantics against a numpy reference written from the TOSA
specification's pseudo-code (exact int64 arithmetic): rescale in every mode
(scale32/scale16, single/double rounding, per-channel, zero points,
unsigned input/output), i8/i16 tables with interpolation, mul with shift,
arithmetic_right_shift with rounding, casts, quantized conv2d, depthwise
and average pooling. Both TOSA forms are exercised: 1.0 (operands) and the
older one (attributes)."""

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

RNG = np.random.default_rng(20261124)


def _module(src):
    vmfb = ireec.compile_str(src, target_backends=["vmvx"], input_type="tosa")
    return ireert.load_vm_flatbuffer(vmfb, driver="local-task")


def _run(src, *args, fn="main"):
    return getattr(_module(src), fn)(*args).to_host()


def _ty(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _dense(a):
    return "dense<" + np.array2string(np.asarray(a), separator=", ", threshold=1 << 30).replace("\n", "") + ">"


# ---------------------------------------------------------------- reference


def ref_apply_scale(v, m, s, double):
    v, m, s = (np.asarray(a, dtype=np.int64) for a in (v, m, s))
    rnd = np.where(s > 0, np.left_shift(np.int64(1), np.maximum(s - 1, 0)), 0)
    if double:
        rnd = rnd + np.where(s > 31, np.where(v >= 0, 1 << 30, -(1 << 30)), 0)
    return (v * m + rnd) >> s


def ref_rescale(x, mult, shift, izp, ozp, out_bits, double, per_channel, in_unsigned=False, out_unsigned=False):
    x = np.asarray(x)
    v = x.astype(np.int64)
    if in_unsigned:
        v = v & ((1 << (8 * x.dtype.itemsize)) - 1)
    v = v - izp
    c = np.arange(x.shape[-1]) if per_channel else np.zeros(x.shape[-1], dtype=np.int64)
    r = ref_apply_scale(v, np.asarray(mult)[c], np.asarray(shift)[c], double) + ozp
    lo, hi = (0, (1 << out_bits) - 1) if out_unsigned else (-(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1)
    r = np.clip(r, lo, hi)
    return r.astype({8: np.uint8, 16: np.uint16, 32: np.uint32}[out_bits] if out_unsigned else {8: np.int8, 16: np.int16, 32: np.int32}[out_bits]).view(
        {8: np.int8, 16: np.int16, 32: np.int32}[out_bits]
    )


# ------------------------------------------------------------------ rescale


def as_signed(v, bits):
    """The signless storage of an unsigned zero point (128 → -128 in i8)."""
    return v - (1 << bits) if v >= 1 << (bits - 1) else v

RESCALE_CASES = [
    # in, out, scale32, rounding, per_channel, in_unsigned, out_unsigned, izp, ozp
    ("i32", "i8", True, "SINGLE_ROUND", False, False, False, 0, -3),
    ("i32", "i8", True, "DOUBLE_ROUND", False, False, False, 0, 5),
    ("i32", "i8", True, "DOUBLE_ROUND", True, False, False, 0, -128),
    ("i8", "i32", True, "DOUBLE_ROUND", False, False, False, -7, 0),
    ("i8", "i8", False, "SINGLE_ROUND", True, False, False, 3, -9),
    ("i16", "i16", True, "DOUBLE_ROUND", False, False, False, 0, 0),
    ("i8", "i8", True, "SINGLE_ROUND", False, True, False, 128, -1),
    ("i8", "i8", True, "DOUBLE_ROUND", False, False, True, 2, 128),
    ("i32", "i16", True, "INEXACT_ROUND", True, False, False, 0, 11),
    ("i16", "i8", True, "DOUBLE_ROUND", False, True, False, 32768, -4),
    ("i32", "i16", True, "DOUBLE_ROUND", True, False, True, 0, 32768),
]


@pytest.mark.parametrize("case", RESCALE_CASES, ids=lambda c: "-".join(str(x) for x in c))
def test_rescale_matches_spec(case):
    it, ot, scale32, rounding, per_channel, inu, outu, izp, ozp = case
    C = 5
    nch = C if per_channel else 1
    bits = {"i8": 8, "i16": 16, "i32": 32}
    npt = {"i8": np.int8, "i16": np.int16, "i32": np.int32}
    ib = bits[it]
    if scale32:
        mult = RNG.integers(1 << 30, (1 << 31) - 1, size=nch).astype(np.int32)
        lo_s = 32 if ib == 32 else 20
        shift = RNG.integers(lo_s, lo_s + 12, size=nch).astype(np.int8)
        mult[0], shift[0] = 1 << 30, 33 if ib == 32 else 21  # x·m/2^s = x/8: ties at x ≡ 4 (mod 8)
    else:
        mult = RNG.integers(1 << 14, (1 << 15) - 1, size=nch).astype(np.int16)
        shift = RNG.integers(10, 16, size=nch).astype(np.int8)
    if ib == 32:
        # Keep most results inside the output range so rounding shows.
        lim = min((1 << 31) - 1, (1 << (bits[ot] - 1)) * 3 * (1 << int(shift.min())) // int(mult.max()))
        x = RNG.integers(-lim, lim + 1, size=(4, 6, C), dtype=np.int64)
        x[0, 0, :] = [3, -5, 11, -13, 4]  # around the ties, both signs
        x[0, 1, :] = [-3, 5, 12, -12, -4]
        x = x.astype(np.int32)
    else:
        x = RNG.integers(-(1 << (ib - 1)), 1 << (ib - 1), size=(4, 6, C)).astype(npt[it])
    mt = "i32" if scale32 else "i16"
    src = f"""
func.func @main(%x: {_ty(x.shape, it)}) -> {_ty(x.shape, ot)} {{
  %m = "tosa.const"() <{{values = {_dense(mult)} : {_ty([nch], mt)}}}> : () -> {_ty([nch], mt)}
  %s = "tosa.const"() <{{values = {_dense(shift)} : {_ty([nch], 'i8')}}}> : () -> {_ty([nch], 'i8')}
  %iz = "tosa.const"() <{{values = dense<{as_signed(izp, bits[it])}> : tensor<1x{it}>}}> : () -> tensor<1x{it}>
  %oz = "tosa.const"() <{{values = dense<{as_signed(ozp, bits[ot])}> : tensor<1x{ot}>}}> : () -> tensor<1x{ot}>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {{input_unsigned = {str(inu).lower()}, output_unsigned = {str(outu).lower()}, per_channel = {str(per_channel).lower()}, rounding_mode = {rounding}, scale32 = {str(scale32).lower()}}} : ({_ty(x.shape, it)}, {_ty([nch], mt)}, {_ty([nch], 'i8')}, tensor<1x{it}>, tensor<1x{ot}>) -> {_ty(x.shape, ot)}
  return %r : {_ty(x.shape, ot)}
}}"""
    got = _run(src, x)
    want = ref_rescale(x, mult, shift, izp, ozp, bits[ot], scale32 and rounding == "DOUBLE_ROUND", per_channel, inu, outu)
    np.testing.assert_array_equal(got, want)


def test_rescale_older_attribute_form():
    x = RNG.integers(-(1 << 31), 1 << 31, size=(3, 8), dtype=np.int64).astype(np.int32)
    mult, shift = [1395864371, 1073741824], [35, 34]
    src = f"""
func.func @main(%x: tensor<3x8xi32>) -> tensor<3x8xi8> {{
  %r = tosa.rescale %x {{double_round = true, input_zp = 0 : i32, multiplier = array<i32: {mult[0]}>, output_zp = -2 : i32, per_channel = false, scale32 = true, shift = array<i8: {shift[0]}>}} : (tensor<3x8xi32>) -> tensor<3x8xi8>
  return %r : tensor<3x8xi8>
}}"""
    np.testing.assert_array_equal(_run(src, x), ref_rescale(x, mult[:1], shift[:1], 0, -2, 8, True, False))


# -------------------------------------------------------------------- table


def test_table_i8_and_i16_interpolation():
    t8 = RNG.integers(-128, 128, size=256).astype(np.int8)
    t16 = RNG.integers(-20000, 20000, size=513).astype(np.int16)
    x8 = np.arange(-128, 128, dtype=np.int8)
    x16 = np.concatenate([RNG.integers(-32768, 32768, size=250), [-32768, 32767, -1, 0, 127, 128]]).astype(np.int16)
    src = f"""
func.func @t8(%x: tensor<256xi8>) -> tensor<256xi8> {{
  %t = "tosa.const"() <{{values = {_dense(t8)} : tensor<256xi8>}}> : () -> tensor<256xi8>
  %r = tosa.table %x, %t : (tensor<256xi8>, tensor<256xi8>) -> tensor<256xi8>
  return %r : tensor<256xi8>
}}
func.func @t16(%x: tensor<256xi16>) -> tensor<256xi32> {{
  %t = "tosa.const"() <{{values = {_dense(t16)} : tensor<513xi16>}}> : () -> tensor<513xi16>
  %r = tosa.table %x, %t : (tensor<256xi16>, tensor<513xi16>) -> tensor<256xi32>
  return %r : tensor<256xi32>
}}"""
    m = _module(src)
    np.testing.assert_array_equal(m.t8(x8).to_host(), t8[x8.astype(np.int64) + 128])
    v = x16.astype(np.int64)
    idx, frac = (v + 32768) >> 7, v & 0x7F
    base, nxt = t16.astype(np.int64)[idx], t16.astype(np.int64)[idx + 1]
    np.testing.assert_array_equal(m.t16(x16).to_host(), ((base << 7) + (nxt - base) * frac).astype(np.int32))


# --------------------------------------------------------- mul, shifts, cast


def test_mul_shift_and_rounding_right_shift():
    a = RNG.integers(-40000, 40000, size=64).astype(np.int32)
    b = RNG.integers(-40000, 40000, size=64).astype(np.int32)
    a[:4], b[:4] = [3, -3, 5, -5], [1, 1, 1, 1]  # ties: ±1.5, ±2.5 at shift 1
    x = RNG.integers(-(1 << 31), 1 << 31, size=64, dtype=np.int64).astype(np.int32)
    s = RNG.integers(0, 31, size=64).astype(np.int32)
    src = """
func.func @mul(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> {
  %s = "tosa.const"() <{values = dense<7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.mul %a, %b, %s : (tensor<64xi32>, tensor<64xi32>, tensor<1xi8>) -> tensor<64xi32>
  return %r : tensor<64xi32>
}
func.func @mul1(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> {
  %r = tosa.mul %a, %b {shift = 1 : i8} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  return %r : tensor<64xi32>
}
func.func @ars(%x: tensor<64xi32>, %s: tensor<64xi32>) -> tensor<64xi32> {
  %r = tosa.arithmetic_right_shift %x, %s {round = true} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  return %r : tensor<64xi32>
}"""
    m = _module(src)
    p = a.astype(np.int64) * b.astype(np.int64)
    np.testing.assert_array_equal(m.mul(a, b).to_host(), ((p + (1 << 6)) >> 7).astype(np.int32))
    np.testing.assert_array_equal(m.mul1(a, b).to_host(), ((p + 1) >> 1).astype(np.int32))
    xv, sv = x.astype(np.int64), s.astype(np.int64)
    want = (xv >> sv) + np.where(sv > 0, (xv >> np.maximum(sv - 1, 0)) & 1, 0)
    np.testing.assert_array_equal(m.ars(x, s).to_host(), want.astype(np.int32))


def test_cast_rounds_to_nearest_even_and_saturates():
    f = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, 128.0, -128.5, -129.0, 3e9, -3e9, 1e30, -1e30, 7.49, -7.51, 0.0], dtype=np.float32)
    i = np.array([16777217, -16777219, 2147483647, -2147483648, 255, -1, 0, 1 << 24] + [0] * 10, dtype=np.int32)
    src = """
func.func @f2i8(%x: tensor<18xf32>) -> tensor<18xi8> {
  %r = tosa.cast %x : (tensor<18xf32>) -> tensor<18xi8>
  return %r : tensor<18xi8>
}
func.func @f2i32(%x: tensor<18xf32>) -> tensor<18xi32> {
  %r = tosa.cast %x : (tensor<18xf32>) -> tensor<18xi32>
  return %r : tensor<18xi32>
}
func.func @f2b(%x: tensor<18xf32>) -> tensor<18xi1> {
  %r = tosa.cast %x : (tensor<18xf32>) -> tensor<18xi1>
  return %r : tensor<18xi1>
}
func.func @i2f(%x: tensor<18xi32>) -> tensor<18xf32> {
  %r = tosa.cast %x : (tensor<18xi32>) -> tensor<18xf32>
  return %r : tensor<18xf32>
}
func.func @i2i8(%x: tensor<18xi32>) -> tensor<18xi8> {
  %r = tosa.cast %x : (tensor<18xi32>) -> tensor<18xi8>
  return %r : tensor<18xi8>
}
func.func @f2h(%x: tensor<18xf32>) -> tensor<18xf16> {
  %r = tosa.cast %x : (tensor<18xf32>) -> tensor<18xf16>
  return %r : tensor<18xf16>
}"""
    m = _module(src)
    r = np.round(f.astype(np.float64))  # numpy rounds half to even
    np.testing.assert_array_equal(m.f2i8(f).to_host(), np.clip(r, -128, 127).astype(np.int8))
    np.testing.assert_array_equal(m.f2i32(f).to_host(), np.clip(r, -(2**31), 2**31 - 1).astype(np.int64).astype(np.int32))
    np.testing.assert_array_equal(m.f2b(f).to_host(), f != 0)
    np.testing.assert_array_equal(m.i2f(i).to_host(), i.astype(np.float32))
    np.testing.assert_array_equal(m.i2i8(i).to_host(), i.astype(np.int8))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(m.f2h(f).to_host(), f.astype(np.float16))


# ------------------------------------------------- quantized conv and pools


def ref_conv2d(x, w, bias, izp, wzp, pad, stride, dil):
    x = x.astype(np.int64) - izp
    w = w.astype(np.int64) - wzp
    N, H, W, C = x.shape
    OC, KH, KW, _ = w.shape
    xp = np.zeros((N, H + pad[0] + pad[1], W + pad[2] + pad[3], C), dtype=np.int64)
    xp[:, pad[0] : pad[0] + H, pad[2] : pad[2] + W, :] = x
    OH = (xp.shape[1] - (KH - 1) * dil[0] - 1) // stride[0] + 1
    OW = (xp.shape[2] - (KW - 1) * dil[1] - 1) // stride[1] + 1
    out = np.zeros((N, OH, OW, OC), dtype=np.int64) + bias.astype(np.int64)
    for ky in range(KH):
        for kx in range(KW):
            win = xp[:, ky * dil[0] : ky * dil[0] + (OH - 1) * stride[0] + 1 : stride[0], kx * dil[1] : kx * dil[1] + (OW - 1) * stride[1] + 1 : stride[1], :]
            out += np.einsum("nhwc,oc->nhwo", win, w[:, ky, kx, :])
    return out


def test_quantized_conv2d_with_zero_points_padding_stride_dilation():
    x = RNG.integers(-128, 128, size=(2, 9, 8, 3)).astype(np.int8)
    w = RNG.integers(-128, 128, size=(4, 3, 2, 3)).astype(np.int8)
    bias = RNG.integers(-5000, 5000, size=4).astype(np.int32)
    izp, wzp, pad, stride, dil = -17, 3, [1, 2, 0, 1], [2, 1], [1, 2]
    want = ref_conv2d(x, w, bias, izp, wzp, pad, stride, dil).astype(np.int32)
    ot = _ty(want.shape, "i32")
    src = f"""
func.func @main(%x: tensor<2x9x8x3xi8>, %w: tensor<4x3x2x3xi8>, %b: tensor<4xi32>) -> {ot} {{
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wz = "tosa.const"() <{{values = dense<{wzp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %r = tosa.conv2d %x, %w, %b, %iz, %wz {{acc_type = i32, dilation = array<i64: {dil[0]}, {dil[1]}>, pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride[0]}, {stride[1]}>}} : (tensor<2x9x8x3xi8>, tensor<4x3x2x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> {ot}
  return %r : {ot}
}}
func.func @old(%x: tensor<2x9x8x3xi8>, %w: tensor<4x3x2x3xi8>, %b: tensor<4xi32>) -> {ot} {{
  %r = tosa.conv2d %x, %w, %b {{dilation = array<i64: {dil[0]}, {dil[1]}>, pad = array<i64: {', '.join(map(str, pad))}>, quantization_info = #tosa.conv_quant<input_zp = {izp}, weight_zp = {wzp}>, stride = array<i64: {stride[0]}, {stride[1]}>}} : (tensor<2x9x8x3xi8>, tensor<4x3x2x3xi8>, tensor<4xi32>) -> {ot}
  return %r : {ot}
}}"""
    m = _module(src)
    np.testing.assert_array_equal(m.main(x, w, bias).to_host(), want)
    np.testing.assert_array_equal(m.old(x, w, bias).to_host(), want)


def test_quantized_depthwise_conv2d_multiplier_2():
    x = RNG.integers(-128, 128, size=(1, 6, 7, 3)).astype(np.int8)
    w = RNG.integers(-128, 128, size=(3, 2, 3, 2)).astype(np.int8)  # KH KW C M
    bias = RNG.integers(-900, 900, size=6).astype(np.int32)
    izp, wzp = 5, -2
    # Depthwise = grouped conv: output channel c*M+m reads input channel c.
    want = np.zeros((1, 5, 4, 6), dtype=np.int64)
    for c in range(3):
        for mm in range(2):
            wc = np.transpose(w[:, :, c : c + 1, mm : mm + 1], (3, 0, 1, 2))
            want[..., c * 2 + mm] = ref_conv2d(x[..., c : c + 1], wc, bias[c * 2 + mm : c * 2 + mm + 1], izp, wzp, [0, 1, 1, 0], [1, 2], [1, 1])[..., 0]
    src = f"""
func.func @main(%x: tensor<1x6x7x3xi8>, %w: tensor<3x2x3x2xi8>, %b: tensor<6xi32>) -> tensor<1x5x4x6xi32> {{
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wz = "tosa.const"() <{{values = dense<{wzp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %r = tosa.depthwise_conv2d %x, %w, %b, %iz, %wz {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 1, 1, 0>, stride = array<i64: 1, 2>}} : (tensor<1x6x7x3xi8>, tensor<3x2x3x2xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x4x6xi32>
  return %r : tensor<1x5x4x6xi32>
}}"""
    np.testing.assert_array_equal(_run(src, x, w, bias), want.astype(np.int32))


def ref_avg_pool_i8(x, izp, ozp, k, s, pad):
    N, H, W, C = x.shape
    OH = (H + pad[0] + pad[1] - k[0]) // s[0] + 1
    OW = (W + pad[2] + pad[3] - k[1]) // s[1] + 1
    want = np.zeros((N, OH, OW, C), dtype=np.int64)
    for oy in range(OH):
        for ox in range(OW):
            y0, x0 = oy * s[0] - pad[0], ox * s[1] - pad[2]
            ys = [y for y in range(y0, y0 + k[0]) if 0 <= y < H]
            xs = [q for q in range(x0, x0 + k[1]) if 0 <= q < W]
            acc = (x[:, ys][:, :, xs].astype(np.int64) - izp).sum(axis=(1, 2))
            cnt = len(ys) * len(xs)
            kk = (cnt - 1).bit_length()  # 32 - clz32(cnt - 1)
            mult, shift = (((1 << 30) + 1) << kk) // cnt, 30 + kk
            want[:, oy, ox] = np.clip(ref_apply_scale(acc, mult, shift, False) + ozp, -128, 127)
    return want.astype(np.int8)


def test_quantized_avg_pool2d_rounds_as_spec():
    x = RNG.integers(-128, 128, size=(1, 7, 6, 2)).astype(np.int8)
    izp, ozp, k, s, pad = -9, 4, (3, 2), (2, 2), (1, 1, 1, 0)
    want = ref_avg_pool_i8(x, izp, ozp, k, s, pad)
    ot = _ty(want.shape, "i8")
    src = f"""
func.func @main(%x: tensor<1x7x6x2xi8>) -> {ot} {{
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{{values = dense<{ozp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %r = tosa.avg_pool2d %x, %iz, %oz {{acc_type = i32, kernel = array<i64: {k[0]}, {k[1]}>, pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {s[0]}, {s[1]}>}} : (tensor<1x7x6x2xi8>, tensor<1xi8>, tensor<1xi8>) -> {ot}
  return %r : {ot}
}}
func.func @old(%x: tensor<1x7x6x2xi8>) -> {ot} {{
  %r = tosa.avg_pool2d %x {{acc_type = i32, kernel = array<i64: {k[0]}, {k[1]}>, pad = array<i64: {', '.join(map(str, pad))}>, quantization_info = #tosa.unary_quant<input_zp = {izp}, output_zp = {ozp}>, stride = array<i64: {s[0]}, {s[1]}>}} : (tensor<1x7x6x2xi8>) -> {ot}
  return %r : {ot}
}}"""
    m = _module(src)
    np.testing.assert_array_equal(m.main(x).to_host(), want.astype(np.int8))
    np.testing.assert_array_equal(m.old(x).to_host(), want.astype(np.int8))


def test_quantized_matmul_and_negate_zero_points():
    a = RNG.integers(-128, 128, size=(2, 5, 7)).astype(np.int8)
    b = RNG.integers(-128, 128, size=(2, 7, 3)).astype(np.int8)
    x = np.arange(-128, 128, dtype=np.int8)
    src = """
func.func @mm(%a: tensor<2x5x7xi8>, %b: tensor<2x7x3xi8>) -> tensor<2x5x3xi32> {
  %az = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bz = "tosa.const"() <{values = dense<11> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.matmul %a, %b, %az, %bz : (tensor<2x5x7xi8>, tensor<2x7x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x5x3xi32>
  return %r : tensor<2x5x3xi32>
}
func.func @mm_old(%a: tensor<2x5x7xi8>, %b: tensor<2x7x3xi8>) -> tensor<2x5x3xi32> {
  %r = tosa.matmul %a, %b {quantization_info = #tosa.matmul_quant<a_zp = -3, b_zp = 11>} : (tensor<2x5x7xi8>, tensor<2x7x3xi8>) -> tensor<2x5x3xi32>
  return %r : tensor<2x5x3xi32>
}
func.func @neg(%x: tensor<256xi8>) -> tensor<256xi8> {
  %iz = "tosa.const"() <{values = dense<7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<-20> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.negate %x, %iz, %oz : (tensor<256xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<256xi8>
  return %r : tensor<256xi8>
}
func.func @neg0(%x: tensor<256xi8>) -> tensor<256xi8> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.negate %x, %z, %z : (tensor<256xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<256xi8>
  return %r : tensor<256xi8>
}"""
    m = _module(src)
    want = np.einsum("nhc,ncw->nhw", a.astype(np.int64) + 3, b.astype(np.int64) - 11).astype(np.int32)
    np.testing.assert_array_equal(m.mm(a, b).to_host(), want)
    np.testing.assert_array_equal(m.mm_old(a, b).to_host(), want)
    np.testing.assert_array_equal(m.neg(x).to_host(), np.clip(-(x.astype(np.int64) - 7) - 20, -128, 127).astype(np.int8))
    np.testing.assert_array_equal(m.neg0(x).to_host(), np.clip(-x.astype(np.int64), -128, 127).astype(np.int8))


def test_int16_conv_i48_accumulator_then_rescale():
    x = RNG.integers(-32768, 32768, size=(1, 5, 4, 2)).astype(np.int16)
    w = RNG.integers(-128, 128, size=(3, 2, 2, 2)).astype(np.int8)
    bias = [123456789, -98765, 5]
    conv = ref_conv2d(x, w, np.array(bias), 0, 0, [0, 0, 0, 0], [1, 1], [1, 1])
    want = ref_rescale(conv, [1518500250], [41], 0, 0, 16, True, False)
    src = f"""
func.func @main(%x: tensor<1x5x4x2xi16>, %w: tensor<3x2x2x2xi8>) -> tensor<1x4x3x3xi16> {{
  %b = "tosa.const"() <{{values = dense<{bias}> : tensor<3xi48>}}> : () -> tensor<3xi48>
  %zi = "tosa.const"() <{{values = dense<0> : tensor<1xi16>}}> : () -> tensor<1xi16>
  %zw = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zi, %zw {{acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x5x4x2xi16>, tensor<3x2x2x2xi8>, tensor<3xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x4x3x3xi48>
  %m = "tosa.const"() <{{values = dense<1518500250> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{{values = dense<41> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %z48 = "tosa.const"() <{{values = dense<0> : tensor<1xi48>}}> : () -> tensor<1xi48>
  %r = tosa.rescale %c, %m, %s, %z48, %zi {{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true}} : (tensor<1x4x3x3xi48>, tensor<1xi32>, tensor<1xi8>, tensor<1xi48>, tensor<1xi16>) -> tensor<1x4x3x3xi16>
  return %r : tensor<1x4x3x3xi16>
}}"""
    np.testing.assert_array_equal(_run(src, x, w), want)


def test_rescale_runtime_multiplier_and_shift():
    x = RNG.integers(-(1 << 20), 1 << 20, size=(6, 4), dtype=np.int64).astype(np.int32)
    x[0] = [3, -5, 12, -12]
    mult = np.array([1 << 30, 1395864371, 1518500250, 1779033703], dtype=np.int32)
    shift = np.array([33, 36, 35, 37], dtype=np.int8)
    src = """
func.func @main(%x: tensor<6x4xi32>, %m: tensor<4xi32>, %s: tensor<4xi8>) -> tensor<6x4xi16> {
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<-2> : tensor<1xi16>}> : () -> tensor<1xi16>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<6x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<6x4xi16>
  return %r : tensor<6x4xi16>
}"""
    np.testing.assert_array_equal(_run(src, x, mult, shift), ref_rescale(x, mult, shift, 0, -2, 16, True, True))


def ref_depthwise(x, w, bias, izp, wzp, pad, stride):
    C, M = w.shape[2], w.shape[3]
    outs = []
    for c in range(C):
        for mm in range(M):
            wc = np.transpose(w[:, :, c : c + 1, mm : mm + 1], (3, 0, 1, 2))
            outs.append(ref_conv2d(x[..., c : c + 1], wc, bias[c * M + mm : c * M + mm + 1], izp, wzp, pad, stride, [1, 1])[..., 0])
    return np.stack(outs, axis=-1)


def test_tflite_style_quantized_block_older_form():
    """A quantized block as TFLite → TOSA legalization emits it (older
    attribute form): conv → per-channel rescale → clamp → depthwise →
    rescale → avg_pool → reshape → fully_connected → rescale → table."""
    x = RNG.integers(-128, 128, size=(1, 8, 8, 3)).astype(np.int8)
    w1 = RNG.integers(-127, 128, size=(8, 3, 3, 3)).astype(np.int8)
    b1 = RNG.integers(-3000, 3000, size=8).astype(np.int32)
    m1 = RNG.integers(1 << 30, (1 << 31) - 1, size=8)
    s1 = RNG.integers(38, 41, size=8)
    dw = RNG.integers(-127, 128, size=(3, 3, 8, 1)).astype(np.int8)
    b2 = RNG.integers(-3000, 3000, size=8).astype(np.int32)
    m2 = RNG.integers(1 << 30, (1 << 31) - 1, size=8)
    s2 = RNG.integers(37, 40, size=8)
    fw = RNG.integers(-127, 128, size=(10, 8)).astype(np.int8)
    fb = RNG.integers(-500, 500, size=10).astype(np.int32)
    table = np.clip(np.round(255 / (1 + np.exp(-np.arange(-128, 128) / 16.0))) - 128, -128, 127).astype(np.int8)

    def arr(v, t):
        return f"array<{t}: " + ", ".join(str(int(a)) for a in v) + ">"

    src = f"""
func.func @main(%x: tensor<1x8x8x3xi8>) -> tensor<1x10xi8> {{
  %w1 = "tosa.const"() <{{value = {_dense(w1)} : tensor<8x3x3x3xi8>}}> : () -> tensor<8x3x3x3xi8>
  %b1 = "tosa.const"() <{{value = {_dense(b1)} : tensor<8xi32>}}> : () -> tensor<8xi32>
  %0 = tosa.conv2d %x, %w1, %b1 {{dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, quantization_info = #tosa.conv_quant<input_zp = -128, weight_zp = 0>, stride = array<i64: 2, 2>}} : (tensor<1x8x8x3xi8>, tensor<8x3x3x3xi8>, tensor<8xi32>) -> tensor<1x4x4x8xi32>
  %1 = tosa.rescale %0 {{double_round = true, input_zp = 0 : i32, multiplier = {arr(m1, 'i32')}, output_zp = -128 : i32, per_channel = true, scale32 = true, shift = {arr(s1, 'i8')}}} : (tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi8>
  %2 = tosa.clamp %1 {{max_fp = 6.0 : f32, max_int = 90 : i64, min_fp = 0.0 : f32, min_int = -128 : i64}} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  %dw = "tosa.const"() <{{value = {_dense(dw)} : tensor<3x3x8x1xi8>}}> : () -> tensor<3x3x8x1xi8>
  %b2 = "tosa.const"() <{{value = {_dense(b2)} : tensor<8xi32>}}> : () -> tensor<8xi32>
  %3 = tosa.depthwise_conv2d %2, %dw, %b2 {{dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, quantization_info = #tosa.conv_quant<input_zp = -128, weight_zp = 0>, stride = array<i64: 1, 1>}} : (tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>) -> tensor<1x4x4x8xi32>
  %4 = tosa.rescale %3 {{double_round = true, input_zp = 0 : i32, multiplier = {arr(m2, 'i32')}, output_zp = -128 : i32, per_channel = true, scale32 = true, shift = {arr(s2, 'i8')}}} : (tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi8>
  %5 = tosa.avg_pool2d %4 {{acc_type = i32, kernel = array<i64: 4, 4>, pad = array<i64: 0, 0, 0, 0>, quantization_info = #tosa.unary_quant<input_zp = -128, output_zp = -128>, stride = array<i64: 1, 1>}} : (tensor<1x4x4x8xi8>) -> tensor<1x1x1x8xi8>
  %6 = tosa.reshape %5 {{new_shape = array<i64: 1, 8>}} : (tensor<1x1x1x8xi8>) -> tensor<1x8xi8>
  %fw = "tosa.const"() <{{value = {_dense(fw)} : tensor<10x8xi8>}}> : () -> tensor<10x8xi8>
  %fb = "tosa.const"() <{{value = {_dense(fb)} : tensor<10xi32>}}> : () -> tensor<10xi32>
  %7 = tosa.fully_connected %6, %fw, %fb {{quantization_info = #tosa.conv_quant<input_zp = -128, weight_zp = 0>}} : (tensor<1x8xi8>, tensor<10x8xi8>, tensor<10xi32>) -> tensor<1x10xi32>
  %8 = tosa.rescale %7 {{double_round = true, input_zp = 0 : i32, multiplier = array<i32: 1686629713>, output_zp = 5 : i32, per_channel = false, scale32 = true, shift = array<i8: 37>}} : (tensor<1x10xi32>) -> tensor<1x10xi8>
  %t = "tosa.const"() <{{value = {_dense(table)} : tensor<256xi8>}}> : () -> tensor<256xi8>
  %9 = tosa.table %8, %t : (tensor<1x10xi8>, tensor<256xi8>) -> tensor<1x10xi8>
  return %9 : tensor<1x10xi8>
}}"""
    a0 = ref_conv2d(x, w1, b1, -128, 0, [1, 1, 1, 1], [2, 2], [1, 1])
    a1 = ref_rescale(a0, m1, s1, 0, -128, 8, True, True)
    a2 = np.clip(a1, -128, 90).astype(np.int8)
    a3 = ref_depthwise(a2, dw, b2, -128, 0, [1, 1, 1, 1], [1, 1])
    a4 = ref_rescale(a3, m2, s2, 0, -128, 8, True, True)
    a5 = ref_avg_pool_i8(a4, -128, -128, (4, 4), (1, 1), (0, 0, 0, 0)).reshape(1, 8)
    a7 = (a5.astype(np.int64) + 128) @ fw.T.astype(np.int64) + fb
    a8 = ref_rescale(a7, [1686629713], [37], 0, 5, 8, True, False)
    want = table[a8.astype(np.int64) + 128]
    # The intermediate values must be spread (not all clipped) for the check to mean much.
    assert len(np.unique(a4)) > 20 and len(np.unique(a8)) > 5, (np.unique(a4), a8)
    np.testing.assert_array_equal(_run(src, x), want)


def test_quantized_transpose_conv2d_zero_points():
    x = RNG.integers(-128, 128, size=(2, 3, 4, 3)).astype(np.int8)
    w = RNG.integers(-128, 128, size=(2, 2, 3, 3)).astype(np.int8)  # OC KH KW IC
    bias = np.array([700, -300], dtype=np.int32)
    izp, wzp, st, op = 9, -4, (2, 2), (0, 1, -1, 2)
    OH = (3 - 1) * st[0] + op[0] + op[1] + 2
    OW = (4 - 1) * st[1] + op[2] + op[3] + 3
    want = np.zeros((2, OH, OW, 2), dtype=np.int64) + bias
    xv, wv = x.astype(np.int64) - izp, w.astype(np.int64) - wzp
    for iy in range(3):
        for ix in range(4):
            for ky in range(2):
                for kx in range(3):
                    oy, ox = iy * st[0] + op[0] + ky, ix * st[1] + op[2] + kx
                    if 0 <= oy < OH and 0 <= ox < OW:
                        want[:, oy, ox] += xv[:, iy, ix] @ wv[:, ky, kx, :].T
    ot = _ty(want.shape, "i32")
    src = f"""
func.func @main(%x: tensor<2x3x4x3xi8>, %w: tensor<2x2x3x3xi8>, %b: tensor<2xi32>) -> {ot} {{
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wz = "tosa.const"() <{{values = dense<{wzp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %r = tosa.transpose_conv2d %x, %w, %b, %iz, %wz {{acc_type = i32, out_pad = array<i64: {', '.join(map(str, op))}>, stride = array<i64: {st[0]}, {st[1]}>}} : (tensor<2x3x4x3xi8>, tensor<2x2x3x3xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> {ot}
  return %r : {ot}
}}"""
    np.testing.assert_array_equal(_run(src, x, w, bias), want.astype(np.int32))
