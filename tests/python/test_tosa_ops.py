"""TOSA float, structural and control-flow ops against numpy (float64
references rounded to f32 with tolerances scaled to the reduction length;
exact for data movement): convolutions (2-D, 3-D, depthwise, transposed),
fully_connected, poolings, resize (nearest and bilinear, int and float),
element-wise math, reductions and argmax, gather/scatter, pad/tile/slice/
reverse/concat, cond_if and while_loop; bad input is a diagnostic naming
file:line:col and the op."""

import math

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

RNG = np.random.default_rng(4242)


def _module(src):
    vmfb = ireec.compile_str(src, target_backends=["vmvx"], input_type="tosa")
    return ireert.load_vm_flatbuffer(vmfb, driver="local-task")


def _ty(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _close(got, want, k=1):
    """f32 result vs float64 reference: relative 1e-6·k plus ulps."""
    want = np.asarray(want, dtype=np.float64)
    tol = 1e-6 * k * (np.abs(want) + 1) + 4 * np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= tol), (np.max(err - tol), got.ravel()[np.argmax(err - tol)], want.ravel()[np.argmax(err - tol)])


def ref_conv(x, w, bias, pad, stride, dil):
    """N, spatial…, C input; [OC, K…, IC] weight; pad as (lo, hi) pairs."""
    s = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0)] + [(pad[2 * i], pad[2 * i + 1]) for i in range(s)] + [(0, 0)])
    ks = w.shape[1:-1]
    outs = [(xp.shape[1 + i] - (ks[i] - 1) * dil[i] - 1) // stride[i] + 1 for i in range(s)]
    out = np.zeros([x.shape[0]] + outs + [w.shape[0]]) + bias.astype(np.float64)
    for kidx in np.ndindex(*ks):
        sl = tuple(slice(kidx[i] * dil[i], kidx[i] * dil[i] + (outs[i] - 1) * stride[i] + 1, stride[i]) for i in range(s))
        win = xp[(slice(None),) + sl + (slice(None),)]
        out += np.tensordot(win, w[(slice(None),) + kidx + (slice(None),)].astype(np.float64), axes=([x.ndim - 1], [1]))
    return out


def test_float_conv2d_conv3d_fully_connected():
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((5, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(5).astype(np.float32)
    x3 = RNG.standard_normal((1, 4, 5, 4, 2)).astype(np.float32)
    w3 = RNG.standard_normal((3, 2, 3, 2, 2)).astype(np.float32)
    b3 = RNG.standard_normal(3).astype(np.float32)
    fx = RNG.standard_normal((3, 6)).astype(np.float32)
    fw = RNG.standard_normal((4, 6)).astype(np.float32)
    fb = RNG.standard_normal(4).astype(np.float32)
    want = ref_conv(x, w, b, [1, 1, 2, 0], [2, 1], [1, 2])
    want3 = ref_conv(x3, w3, b3, [1, 0, 0, 1, 1, 1], [1, 2, 1], [1, 1, 2])
    src = f"""
func.func @c2(%x: tensor<2x7x6x3xf32>, %w: tensor<5x3x3x3xf32>, %b: tensor<5xf32>) -> {_ty(want.shape, 'f32')} {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %r = tosa.conv2d %x, %w, %b, %z, %z {{acc_type = f32, dilation = array<i64: 1, 2>, pad = array<i64: 1, 1, 2, 0>, stride = array<i64: 2, 1>}} : (tensor<2x7x6x3xf32>, tensor<5x3x3x3xf32>, tensor<5xf32>, tensor<1xf32>, tensor<1xf32>) -> {_ty(want.shape, 'f32')}
  return %r : {_ty(want.shape, 'f32')}
}}
func.func @c3(%x: tensor<1x4x5x4x2xf32>, %w: tensor<3x2x3x2x2xf32>, %b: tensor<3xf32>) -> {_ty(want3.shape, 'f32')} {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %r = tosa.conv3d %x, %w, %b, %z, %z {{acc_type = f32, dilation = array<i64: 1, 1, 2>, pad = array<i64: 1, 0, 0, 1, 1, 1>, stride = array<i64: 1, 2, 1>}} : (tensor<1x4x5x4x2xf32>, tensor<3x2x3x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> {_ty(want3.shape, 'f32')}
  return %r : {_ty(want3.shape, 'f32')}
}}
func.func @fc(%x: tensor<3x6xf32>, %w: tensor<4x6xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {{
  %r = tosa.fully_connected %x, %w, %b : (tensor<3x6xf32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}}"""
    m = _module(src)
    _close(m.c2(x, w, b).to_host(), want, 27)
    _close(m.c3(x3, w3, b3).to_host(), want3, 24)
    _close(m.fc(fx, fw, fb).to_host(), fx.astype(np.float64) @ fw.T.astype(np.float64) + fb, 6)


def test_transpose_conv2d_with_stride_and_out_pad():
    x = RNG.standard_normal((1, 3, 4, 2)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 2, 2)).astype(np.float32)  # OC KH KW IC
    b = RNG.standard_normal(3).astype(np.float32)
    st, op = (2, 3), (1, -1, 0, 2)  # top, bottom, left, right
    OH = (3 - 1) * st[0] + op[0] + op[1] + 3
    OW = (4 - 1) * st[1] + op[2] + op[3] + 2
    want = np.zeros((1, OH, OW, 3)) + b
    for iy in range(3):
        for ix in range(4):
            for ky in range(3):
                for kx in range(2):
                    oy, ox = iy * st[0] + op[0] + ky, ix * st[1] + op[2] + kx
                    if 0 <= oy < OH and 0 <= ox < OW:
                        want[0, oy, ox] += w[:, ky, kx, :].astype(np.float64) @ x[0, iy, ix].astype(np.float64)
    ot = _ty(want.shape, "f32")
    src = f"""
func.func @main(%x: tensor<1x3x4x2xf32>, %w: tensor<3x3x2x2xf32>, %b: tensor<3xf32>) -> {ot} {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %r = tosa.transpose_conv2d %x, %w, %b, %z, %z {{acc_type = f32, out_pad = array<i64: {', '.join(map(str, op))}>, stride = array<i64: {st[0]}, {st[1]}>}} : (tensor<1x3x4x2xf32>, tensor<3x3x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> {ot}
  return %r : {ot}
}}"""
    _close(_module(src).main(x, w, b).to_host(), want, 12)


def ref_resize(x, scale, offset, border, bilinear):
    N, IH, IW, C = x.shape
    yn, yd, xn, xd = scale
    OH = ((IH - 1) * yn - offset[0] + border[0]) // yd + 1
    OW = ((IW - 1) * xn - offset[1] + border[1]) // xd + 1
    isf = x.dtype.kind == "f"
    out = np.zeros((N, OH, OW, C), dtype=np.float64 if isf else np.int64)
    for oy in range(OH):
        for ox in range(OW):
            y, xx = oy * yd + offset[0], ox * xd + offset[1]
            iy, ix = y // yn, xx // xn  # floor division
            ry, rx = y - iy * yn, xx - ix * xn
            y0, y1 = max(iy, 0), min(iy + 1, IH - 1)
            x0, x1 = max(ix, 0), min(ix + 1, IW - 1)
            if not bilinear:
                out[:, oy, ox] = x[:, y1 if 2 * ry >= yn else y0, x1 if 2 * rx >= xn else x0]
                continue
            v = [x[:, a, c].astype(np.float64 if isf else np.int64) for a, c in ((y0, x0), (y0, x1), (y1, x0), (y1, x1))]
            if isf:
                dy, dx = ry / yn, rx / xn
                uy, ux = 1 - dy, 1 - dx
            else:
                dy, dx, uy, ux = ry, rx, yn - ry, xn - rx
            out[:, oy, ox] = v[0] * uy * ux + v[1] * uy * dx + v[2] * dy * ux + v[3] * dy * dx
    return out


@pytest.mark.parametrize("bilinear", [False, True], ids=["nearest", "bilinear"])
@pytest.mark.parametrize("dt", ["f32", "i8"])
def test_resize(dt, bilinear):
    x = (RNG.standard_normal((1, 4, 5, 2)) * 3).astype(np.float32) if dt == "f32" else RNG.integers(-128, 128, (1, 4, 5, 2)).astype(np.int8)
    scale, offset, border = [6, 2, 4, 3], [-1, 1], [1, 0]
    want = ref_resize(x, scale, offset, border, bilinear)
    ot = "i32" if dt == "i8" and bilinear else dt
    mode = "BILINEAR" if bilinear else "NEAREST_NEIGHBOR"
    rt = _ty(want.shape, ot)
    src = f"""
func.func @main(%x: tensor<1x4x5x2x{dt}>) -> {rt} {{
  %s = tosa.const_shape {{values = dense<{scale}> : tensor<4xindex>}} : () -> !tosa.shape<4>
  %o = tosa.const_shape {{values = dense<{offset}> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %b = tosa.const_shape {{values = dense<{border}> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %s, %o, %b {{mode = {mode}}} : (tensor<1x4x5x2x{dt}>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> {rt}
  return %r : {rt}
}}
func.func @old(%x: tensor<1x4x5x2x{dt}>) -> {rt} {{
  %r = tosa.resize %x {{border = array<i64: {border[0]}, {border[1]}>, mode = "{mode}", offset = array<i64: {offset[0]}, {offset[1]}>, scale = array<i64: {', '.join(map(str, scale))}>}} : (tensor<1x4x5x2x{dt}>) -> {rt}
  return %r : {rt}
}}"""
    m = _module(src)
    for fn in (m.main, m.old):
        got = fn(x).to_host()
        if dt == "f32":
            _close(got, want, 4)
        else:
            np.testing.assert_array_equal(got, want)


def test_float_pools_and_elementwise_math():
    x = RNG.standard_normal((1, 6, 5, 3)).astype(np.float32)
    u = RNG.uniform(0.1, 4, 40).astype(np.float32)
    v = RNG.uniform(-3, 3, 40).astype(np.float32)
    src = """
func.func @maxp(%x: tensor<1x6x5x3xf32>) -> tensor<1x3x3x3xf32> {
  %r = tosa.max_pool2d %x {kernel = array<i64: 3, 2>, pad = array<i64: 1, 1, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x5x3xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
func.func @avgp(%x: tensor<1x6x5x3xf32>) -> tensor<1x3x3x3xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.avg_pool2d %x, %z, %z {acc_type = f32, kernel = array<i64: 3, 2>, pad = array<i64: 1, 1, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x5x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
func.func @math(%u: tensor<40xf32>, %v: tensor<40xf32>) -> (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>) {
  %0 = tosa.pow %u, %v : (tensor<40xf32>, tensor<40xf32>) -> tensor<40xf32>
  %1 = tosa.erf %v : (tensor<40xf32>) -> tensor<40xf32>
  %2 = tosa.sin %v : (tensor<40xf32>) -> tensor<40xf32>
  %3 = tosa.cos %v : (tensor<40xf32>) -> tensor<40xf32>
  %4 = tosa.sigmoid %v : (tensor<40xf32>) -> tensor<40xf32>
  %5 = tosa.rsqrt %u : (tensor<40xf32>) -> tensor<40xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>
}"""
    m = _module(src)
    xp = np.pad(x.astype(np.float64), [(0, 0), (1, 1), (1, 0), (0, 0)], constant_values=-np.inf)
    mx = np.zeros((1, 3, 3, 3))
    av = np.zeros((1, 3, 3, 3))
    for oy in range(3):
        for ox in range(3):
            mx[0, oy, ox] = xp[0, 2 * oy : 2 * oy + 3, 2 * ox : 2 * ox + 2].max(axis=(0, 1))
            ys = [y for y in range(2 * oy - 1, 2 * oy + 2) if 0 <= y < 6]
            xs = [q for q in range(2 * ox - 1, 2 * ox + 1) if 0 <= q < 5]
            av[0, oy, ox] = x[0][np.ix_(ys, xs)].astype(np.float64).mean(axis=(0, 1))
    np.testing.assert_array_equal(m.maxp(x).to_host(), mx.astype(np.float32))
    _close(m.avgp(x).to_host(), av, 6)
    u64, v64 = u.astype(np.float64), v.astype(np.float64)
    wants = [u64**v64, np.array([math.erf(t) for t in v64]), np.sin(v64), np.cos(v64), 1 / (1 + np.exp(-v64)), 1 / np.sqrt(u64)]
    for got, want in zip(m.math(u, v), wants):
        _close(got.to_host(), want, 2)


def test_reductions_argmax_and_comparisons():
    x = RNG.integers(-50, 50, (3, 4, 5)).astype(np.int32)
    x[1, :, 2] = 49  # ties: argmax takes the first
    f = RNG.standard_normal((4, 6)).astype(np.float32)
    f[2, 3] = np.nan
    bools = RNG.integers(0, 2, (3, 4)).astype(bool)
    src = """
func.func @red(%x: tensor<3x4x5xi32>) -> (tensor<3x1x5xi32>, tensor<1x4x5xi32>, tensor<3x4x1xi32>, tensor<3x5xi32>) {
  %0 = tosa.reduce_prod %x {axis = 1 : i32} : (tensor<3x4x5xi32>) -> tensor<3x1x5xi32>
  %1 = tosa.reduce_min %x {axis = 0 : i32} : (tensor<3x4x5xi32>) -> tensor<1x4x5xi32>
  %2 = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<3x4x5xi32>) -> tensor<3x4x1xi32>
  %3 = tosa.argmax %x {axis = 1 : i32} : (tensor<3x4x5xi32>) -> tensor<3x5xi32>
  return %0, %1, %2, %3 : tensor<3x1x5xi32>, tensor<1x4x5xi32>, tensor<3x4x1xi32>, tensor<3x5xi32>
}
func.func @fred(%f: tensor<4x6xf32>) -> (tensor<4xi32>, tensor<1x6xf32>) {
  %0 = tosa.argmax %f {axis = 1 : i32} : (tensor<4x6xf32>) -> tensor<4xi32>
  %1 = tosa.reduce_max %f {axis = 0 : i32} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %0, %1 : tensor<4xi32>, tensor<1x6xf32>
}
func.func @logic(%b: tensor<3x4xi1>, %x: tensor<3x4x5xi32>) -> (tensor<1x4xi1>, tensor<3x1xi1>, tensor<3x4x5xi1>, tensor<3x4x5xi32>) {
  %0 = tosa.reduce_all %b {axis = 0 : i32} : (tensor<3x4xi1>) -> tensor<1x4xi1>
  %1 = tosa.reduce_any %b {axis = 1 : i32} : (tensor<3x4xi1>) -> tensor<3x1xi1>
  %c = "tosa.const"() <{values = dense<[[[0, 5, -5, 10, -10]]]> : tensor<1x1x5xi32>}> : () -> tensor<1x1x5xi32>
  %2 = tosa.greater_equal %x, %c : (tensor<3x4x5xi32>, tensor<1x1x5xi32>) -> tensor<3x4x5xi1>
  %n = tosa.logical_not %2 : (tensor<3x4x5xi1>) -> tensor<3x4x5xi1>
  %3 = tosa.select %n, %x, %c : (tensor<3x4x5xi1>, tensor<3x4x5xi32>, tensor<1x1x5xi32>) -> tensor<3x4x5xi32>
  return %0, %1, %2, %3 : tensor<1x4xi1>, tensor<3x1xi1>, tensor<3x4x5xi1>, tensor<3x4x5xi32>
}"""
    m = _module(src)
    r = m.red(x)
    np.testing.assert_array_equal(r[0].to_host(), np.prod(x, axis=1, keepdims=True, dtype=np.int64).astype(np.int32))
    np.testing.assert_array_equal(r[1].to_host(), x.min(axis=0, keepdims=True))
    np.testing.assert_array_equal(r[2].to_host(), x.sum(axis=2, keepdims=True))
    np.testing.assert_array_equal(r[3].to_host(), x.argmax(axis=1))
    fr = m.fred(f)
    np.testing.assert_array_equal(fr[0].to_host(), np.argmax(f, axis=1))  # numpy: first NaN wins too
    np.testing.assert_array_equal(fr[1].to_host(), f.max(axis=0, keepdims=True))
    c = np.array([0, 5, -5, 10, -10])
    lg = m.logic(bools, x)
    np.testing.assert_array_equal(lg[0].to_host(), bools.all(axis=0, keepdims=True))
    np.testing.assert_array_equal(lg[1].to_host(), bools.any(axis=1, keepdims=True))
    np.testing.assert_array_equal(lg[2].to_host(), x >= c)
    np.testing.assert_array_equal(lg[3].to_host(), np.where(x >= c, np.broadcast_to(c, x.shape), x))


def test_data_movement_both_forms():
    x = RNG.integers(-100, 100, (2, 3, 4)).astype(np.int32)
    vals = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    idx = np.array([[4, 0], [2, 3]], dtype=np.int32)
    upd = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    src = """
func.func @mv(%x: tensor<2x3x4xi32>) -> (tensor<3x2x4xi32>, tensor<2x2x2xi32>, tensor<4x3x8xi32>, tensor<3x6x5xi32>, tensor<2x3x4xi32>, tensor<2x6x4xi32>, tensor<4x6xi32>) {
  %0 = tosa.transpose %x {perms = array<i32: 1, 0, 2>} : (tensor<2x3x4xi32>) -> tensor<3x2x4xi32>
  %s0 = tosa.const_shape {values = dense<[0, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s1 = tosa.const_shape {values = dense<[2, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.slice %x, %s0, %s1 : (tensor<2x3x4xi32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x2x2xi32>
  %m = tosa.const_shape {values = dense<[2, 1, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.tile %x, %m : (tensor<2x3x4xi32>, !tosa.shape<3>) -> tensor<4x3x8xi32>
  %pd = tosa.const_shape {values = dense<[1, 0, 2, 1, 0, 1]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %pc = "tosa.const"() <{values = dense<-7> : tensor<1xi32>}> : () -> tensor<1xi32>
  %3 = tosa.pad %x, %pd, %pc : (tensor<2x3x4xi32>, !tosa.shape<6>, tensor<1xi32>) -> tensor<3x6x5xi32>
  %4 = tosa.reverse %x {axis = 2 : i32} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  %5 = tosa.concat %x, %4 {axis = 1 : i32} : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x6x4xi32>
  %ns = tosa.const_shape {values = dense<[4, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %6 = tosa.reshape %x, %ns : (tensor<2x3x4xi32>, !tosa.shape<2>) -> tensor<4x6xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x2x4xi32>, tensor<2x2x2xi32>, tensor<4x3x8xi32>, tensor<3x6x5xi32>, tensor<2x3x4xi32>, tensor<2x6x4xi32>, tensor<4x6xi32>
}
func.func @old(%x: tensor<2x3x4xi32>) -> (tensor<4x2x3xi32>, tensor<2x2x2xi32>, tensor<2x9x4xi32>, tensor<3x6x5xi32>, tensor<6x4xi32>) {
  %perms = "tosa.const"() <{value = dense<[2, 0, 1]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %0 = tosa.transpose %x, %perms : (tensor<2x3x4xi32>, tensor<3xi32>) -> tensor<4x2x3xi32>
  %1 = tosa.slice %x {size = array<i64: 2, 2, 2>, start = array<i64: 0, 1, 1>} : (tensor<2x3x4xi32>) -> tensor<2x2x2xi32>
  %2 = tosa.tile %x {multiples = array<i64: 1, 3, 1>} : (tensor<2x3x4xi32>) -> tensor<2x9x4xi32>
  %pd = "tosa.const"() <{value = dense<[[1, 0], [2, 1], [0, 1]]> : tensor<3x2xi32>}> : () -> tensor<3x2xi32>
  %pc = "tosa.const"() <{value = dense<-7> : tensor<i32>}> : () -> tensor<i32>
  %3 = tosa.pad %x, %pd, %pc : (tensor<2x3x4xi32>, tensor<3x2xi32>, tensor<i32>) -> tensor<3x6x5xi32>
  %4 = tosa.reshape %x {new_shape = array<i64: 6, 4>} : (tensor<2x3x4xi32>) -> tensor<6x4xi32>
  return %0, %1, %2, %3, %4 : tensor<4x2x3xi32>, tensor<2x2x2xi32>, tensor<2x9x4xi32>, tensor<3x6x5xi32>, tensor<6x4xi32>
}
func.func @gs(%v: tensor<2x5x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2x2x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x5x3xf32>) {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x3xf32>
  %1 = tosa.scatter %v, %i, %u : (tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  return %0, %1 : tensor<2x2x3xf32>, tensor<2x5x3xf32>
}"""
    m = _module(src)
    padded = np.pad(x, [(1, 0), (2, 1), (0, 1)], constant_values=-7)
    want = [np.transpose(x, (1, 0, 2)), x[0:2, 1:3, 1:3], np.tile(x, (2, 1, 2)), padded, x[:, :, ::-1], np.concatenate([x, x[:, :, ::-1]], axis=1), x.reshape(4, 6)]
    for got, w in zip(m.mv(x), want):
        np.testing.assert_array_equal(got.to_host(), w)
    want = [np.transpose(x, (2, 0, 1)), x[0:2, 1:3, 1:3], np.tile(x, (1, 3, 1)), padded, x.reshape(6, 4)]
    for got, w in zip(m.old(x), want):
        np.testing.assert_array_equal(got.to_host(), w)
    g, s = m.gs(vals, idx, upd)
    np.testing.assert_array_equal(g.to_host(), np.stack([vals[n, idx[n]] for n in range(2)]))
    want = vals.copy()
    for n in range(2):
        want[n, idx[n]] = upd[n]
    np.testing.assert_array_equal(s.to_host(), want)


def test_cond_if_with_inputs_and_while_with_two_carried_tensors():
    src = """
func.func @cif(%c: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %r = tosa.cond_if %c (%x = %a, %y = %b) : tensor<i1> (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
    %s = tosa.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    tosa.yield %s : tensor<3xf32>
  } else {
    %s = tosa.sub %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    tosa.yield %s : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
func.func @fib(%n: tensor<i32>) -> tensor<i32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %o = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %r:3 = tosa.while_loop (%i = %n, %a = %z, %b = %o) : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>) {
    %k = tosa.greater %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %k : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %a: tensor<i32>, %b: tensor<i32>):
    %i2 = tosa.sub %i, %o : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %i2, %b, %s : tensor<i32>, tensor<i32>, tensor<i32>
  }
  return %r#1 : tensor<i32>
}"""
    m = _module(src)
    a, b = np.array([1.5, 2, -3], np.float32), np.array([0.25, -1, 4], np.float32)
    np.testing.assert_array_equal(m.cif(np.array(True), a, b).to_host(), a + b)
    np.testing.assert_array_equal(m.cif(np.array(False), a, b).to_host(), a - b)
    for n, want in [(0, 0), (1, 1), (10, 55), (30, 832040)]:
        assert int(m.fib(np.array(n, np.int32)).to_host()) == want


def test_unsupported_op_and_attribute_name_location():
    src = """func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = tosa.custom %x {domain_name = "tflite", implementation_attrs = "", operator_name = "MyOp"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}"""
    with pytest.raises(ireec.CompilerToolError) as e:
        ireec.compile_str(src, target_backends=["vmvx"], input_type="tosa")
    assert ":2:3: error: 'tosa.custom' op is not supported by gree" in str(e.value)
    bad = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.clamp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    with pytest.raises(ireec.CompilerToolError) as e:
        ireec.compile_str(bad, target_backends=["vmvx"])
    assert ":2:3: error: 'tosa.clamp' op needs min_val and max_val" in str(e.value)


def test_clamp_int_and_float_nan_modes():
    x = np.array([1, 0, 5, 2, -7, 2147483647], dtype=np.int32)
    f = np.array([1.0, 0.0, 4.5, np.nan, -np.inf, 2.0], dtype=np.float32)
    src = """
func.func @ci(%x: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %0 = tosa.clamp %x {max_val = 4 : i32, min_val = 1 : i32} : (tensor<6xi32>) -> tensor<6xi32>
  %1 = tosa.clamp %x {max_fp = 1.0 : f32, max_int = 3 : i64, min_fp = 0.0 : f32, min_int = -2 : i64} : (tensor<6xi32>) -> tensor<6xi32>
  return %0, %1 : tensor<6xi32>, tensor<6xi32>
}
func.func @cf(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %0 = tosa.clamp %x {max_val = 4.0 : f32, min_val = 1.0 : f32} : (tensor<6xf32>) -> tensor<6xf32>
  %1 = tosa.clamp %x {max_val = 4.0 : f32, min_val = 1.0 : f32, nan_mode = IGNORE} : (tensor<6xf32>) -> tensor<6xf32>
  return %0, %1 : tensor<6xf32>, tensor<6xf32>
}"""
    m = _module(src)
    a, b = m.ci(x)
    np.testing.assert_array_equal(a.to_host(), np.clip(x, 1, 4))
    np.testing.assert_array_equal(b.to_host(), np.clip(x, -2, 3))
    p, q = m.cf(f)
    np.testing.assert_array_equal(p.to_host(), np.clip(f, 1, 4))  # NaN propagates
    np.testing.assert_array_equal(q.to_host(), np.where(np.isnan(f), 1.0, np.clip(f, 1, 4)).astype(np.float32))


def test_variables_keep_state_across_calls():
    src = """
module {
  tosa.variable @acc = dense<[1.5, -2.0, 0.25]> : tensor<3xf32>
  tosa.variable @count : tensor<i32>
  func.func @step(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>) {
    %a = tosa.variable_read @acc : tensor<3xf32>
    %s = tosa.add %a, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    tosa.variable_write @acc, %s : tensor<3xf32>
    %c = tosa.variable_read @count : tensor<i32>
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %c, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.variable_write @count, %n : tensor<i32>
    return %s, %n : tensor<3xf32>, tensor<i32>
  }
}"""
    m = _module(src)
    acc = np.array([1.5, -2.0, 0.25], np.float32)
    for i in range(1, 4):
        x = np.array([i, -0.5 * i, 2.0], np.float32)
        s, n = m.step(x)
        acc = acc + x
        np.testing.assert_array_equal(s.to_host(), acc)
        assert int(n.to_host()) == i


def test_fft2d_and_rfft2d_match_numpy():
    re = RNG.standard_normal((2, 4, 6)).astype(np.float32)
    im = RNG.standard_normal((2, 4, 6)).astype(np.float32)
    src = """
func.func @rfft(%x: tensor<2x4x6xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %re, %im = tosa.rfft2d %x : (tensor<2x4x6xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>)
  return %re, %im : tensor<2x4x4xf32>, tensor<2x4x4xf32>
}
func.func @fft(%a: tensor<2x4x6xf32>, %b: tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %re, %im = tosa.fft2d %a, %b {inverse = false} : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>)
  return %re, %im : tensor<2x4x6xf32>, tensor<2x4x6xf32>
}
func.func @ifft(%a: tensor<2x4x6xf32>, %b: tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %re, %im = tosa.fft2d %a, %b {inverse = true} : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>)
  return %re, %im : tensor<2x4x6xf32>, tensor<2x4x6xf32>
}"""
    m = _module(src)
    z = re.astype(np.float64) + 1j * im.astype(np.float64)
    for got, want in [(m.rfft(re), np.fft.rfft2(re.astype(np.float64))), (m.fft(re, im), np.fft.fft2(z)), (m.ifft(re, im), np.fft.ifft2(z) * 24)]:
        _close(got[0].to_host(), want.real, 40)
        _close(got[1].to_host(), want.imag, 40)


def test_dense_resource_weights_and_shapes():
    # Weights as TFLite exports them: dense_resource blobs (4-byte alignment
    # header, then little-endian elements), read for both data and padding.
    src = """
func.func @main(%x: tensor<4xf32>) -> tensor<7xf32> {
  %w = "tosa.const"() <{values = dense_resource<w1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %p = "tosa.const"() <{values = dense_resource<pads> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %c = "tosa.const"() <{values = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %r = tosa.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = tosa.pad %r, %p, %c : (tensor<4xf32>, tensor<1x2xi32>, tensor<f32>) -> tensor<7xf32>
  return %q : tensor<7xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F000000400000404000008040",
      pads: "0x040000000100000002000000"
    }
  }
#-}"""
    got = _module(src).main(np.array([10, 20, 30, 40], np.float32)).to_host()
    np.testing.assert_array_equal(got, np.array([0.5, 11, 22, 33, 44, 0.5, 0.5], np.float32))


def test_float_inverted_residual_network():
    """A MobileNetV2-style float network (TOSA 1.0 form): expand conv →
    relu6 → depthwise → relu6 → project conv → residual add, twice, then
    average pool, reshape, matmul and a softmax of exp/reduce_sum/
    reciprocal/mul — against numpy in float64."""
    x = RNG.standard_normal((1, 12, 12, 8)).astype(np.float32)
    params = []
    for _ in range(2):
        params.append((
            (RNG.standard_normal((16, 1, 1, 8)) * 0.3).astype(np.float32), (RNG.standard_normal(16) * 0.1).astype(np.float32),
            (RNG.standard_normal((3, 3, 16, 1)) * 0.3).astype(np.float32), (RNG.standard_normal(16) * 0.1).astype(np.float32),
            (RNG.standard_normal((8, 1, 1, 16)) * 0.3).astype(np.float32), (RNG.standard_normal(8) * 0.1).astype(np.float32),
        ))
    fcw = (RNG.standard_normal((1, 8, 5)) * 0.5).astype(np.float32)

    def c(name, a):
        t = _ty(a.shape, "f32")
        body = np.array2string(a, separator=", ", threshold=1 << 30, floatmode="unique").replace("\n", "")
        return f'  %{name} = "tosa.const"() <{{values = dense<{body}> : {t}}}> : () -> {t}'

    lines = ["func.func @main(%x: tensor<1x12x12x8xf32>) -> tensor<1x1x5xf32> {",
             '  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>']
    cur = "%x"
    for i, (w1, b1, dw, b2, w3, b3) in enumerate(params):
        for n, a in (("w1", w1), ("b1", b1), ("dw", dw), ("b2", b2), ("w3", w3), ("b3", b3)):
            lines.append(c(f"{n}_{i}", a))
        lines += [
            f"  %e{i} = tosa.conv2d {cur}, %w1_{i}, %b1_{i}, %z, %z {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x12x12x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x12x12x16xf32>",
            f"  %r{i} = tosa.clamp %e{i} {{max_val = 6.0 : f32, min_val = 0.0 : f32}} : (tensor<1x12x12x16xf32>) -> tensor<1x12x12x16xf32>",
            f"  %d{i} = tosa.depthwise_conv2d %r{i}, %dw_{i}, %b2_{i}, %z, %z {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}} : (tensor<1x12x12x16xf32>, tensor<3x3x16x1xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x12x12x16xf32>",
            f"  %s{i} = tosa.clamp %d{i} {{max_val = 6.0 : f32, min_val = 0.0 : f32}} : (tensor<1x12x12x16xf32>) -> tensor<1x12x12x16xf32>",
            f"  %p{i} = tosa.conv2d %s{i}, %w3_{i}, %b3_{i}, %z, %z {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x12x12x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x12x12x8xf32>",
            f"  %o{i} = tosa.add {cur}, %p{i} : (tensor<1x12x12x8xf32>, tensor<1x12x12x8xf32>) -> tensor<1x12x12x8xf32>",
        ]
        cur = f"%o{i}"
    lines.append(c("fcw", fcw))
    lines += [
        f"  %a = tosa.avg_pool2d {cur}, %z, %z {{acc_type = f32, kernel = array<i64: 12, 12>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x12x12x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x8xf32>",
        "  %sh = tosa.const_shape {values = dense<[1, 1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>",
        "  %v = tosa.reshape %a, %sh : (tensor<1x1x1x8xf32>, !tosa.shape<3>) -> tensor<1x1x8xf32>",
        "  %l = tosa.matmul %v, %fcw, %z, %z : (tensor<1x1x8xf32>, tensor<1x8x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x5xf32>",
        "  %mx = tosa.reduce_max %l {axis = 2 : i32} : (tensor<1x1x5xf32>) -> tensor<1x1x1xf32>",
        "  %sub = tosa.sub %l, %mx : (tensor<1x1x5xf32>, tensor<1x1x1xf32>) -> tensor<1x1x5xf32>",
        "  %ex = tosa.exp %sub : (tensor<1x1x5xf32>) -> tensor<1x1x5xf32>",
        "  %sm = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<1x1x5xf32>) -> tensor<1x1x1xf32>",
        "  %rc = tosa.reciprocal %sm : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>",
        '  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>',
        "  %y = tosa.mul %ex, %rc, %shift : (tensor<1x1x5xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x5xf32>",
        "  return %y : tensor<1x1x5xf32>",
        "}",
    ]
    got = _module("\n".join(lines)).main(x).to_host()

    h = x.astype(np.float64)
    for w1, b1, dw, b2, w3, b3 in params:
        e = np.clip(ref_conv(h, w1, b1, [0, 0, 0, 0], [1, 1], [1, 1]), 0, 6)
        dwf = np.zeros((16, 3, 3, 16))
        for ch in range(16):
            dwf[ch, :, :, ch] = dw[:, :, ch, 0]
        d = np.clip(ref_conv(e, dwf, b2, [1, 1, 1, 1], [1, 1], [1, 1]), 0, 6)
        h = h + ref_conv(d, w3, b3, [0, 0, 0, 0], [1, 1], [1, 1])
    logits = h.mean(axis=(1, 2)).reshape(1, 1, 8) @ fcw.astype(np.float64)
    p = np.exp(logits - logits.max(axis=2, keepdims=True))
    want = p / p.sum(axis=2, keepdims=True)
    assert np.abs(got - want).max() < 2e-5, (got, want)


def test_dynamic_batch_softmax_reshape_transpose_matmul_slice_concat():
    src = """
func.func @softmax(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %mx = tosa.reduce_max %x {axis = 1 : i32} : (tensor<?x5xf32>) -> tensor<?x1xf32>
  %sub = tosa.sub %x, %mx : (tensor<?x5xf32>, tensor<?x1xf32>) -> tensor<?x5xf32>
  %ex = tosa.exp %sub : (tensor<?x5xf32>) -> tensor<?x5xf32>
  %sm = tosa.reduce_sum %ex {axis = 1 : i32} : (tensor<?x5xf32>) -> tensor<?x1xf32>
  %rc = tosa.reciprocal %sm : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %ex, %rc, %s : (tensor<?x5xf32>, tensor<?x1xf32>, tensor<1xi8>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}
func.func @shapes(%x: tensor<?x2x3xf32>) -> tensor<3x?xf32> {
  %s = tosa.const_shape {values = dense<[-1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %s : (tensor<?x2x3xf32>, !tosa.shape<2>) -> tensor<?x6xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 1, 0>} : (tensor<?x6xf32>) -> tensor<6x?xf32>
  %s2 = tosa.const_shape {values = dense<[3, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.reshape %1, %s2 : (tensor<6x?xf32>, !tosa.shape<2>) -> tensor<3x?xf32>
  return %2 : tensor<3x?xf32>
}
func.func @mm(%x: tensor<1x?x3xi8>, %w: tensor<1x3x2xi8>) -> tensor<1x?x2xi32> {
  %az = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bz = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.matmul %x, %w, %az, %bz : (tensor<1x?x3xi8>, tensor<1x3x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x?x2xi32>
  return %r : tensor<1x?x2xi32>
}
func.func @sc(%x: tensor<?x6xf32>) -> (tensor<?x3xf32>, tensor<?x9xf32>, tensor<?x6xf32>) {
  %s0 = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1 = tosa.const_shape {values = dense<[-1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.slice %x, %s0, %s1 : (tensor<?x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<?x3xf32>
  %1 = tosa.concat %x, %0 {axis = 1 : i32} : (tensor<?x6xf32>, tensor<?x3xf32>) -> tensor<?x9xf32>
  %t0 = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %t1 = tosa.const_shape {values = dense<[-1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.slice %x, %t0, %t1 : (tensor<?x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<?x6xf32>
  %3 = tosa.concat %2, %x {axis = 0 : i32} : (tensor<?x6xf32>, tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0, %1, %3 : tensor<?x3xf32>, tensor<?x9xf32>, tensor<?x6xf32>
}"""
    m = _module(src)
    w = RNG.integers(-128, 128, (1, 3, 2)).astype(np.int8)
    for n in (1, 4, 7):
        x = RNG.standard_normal((n, 5)).astype(np.float32)
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        _close(m.softmax(x).to_host(), e / e.sum(axis=1, keepdims=True), 8)
        y = RNG.standard_normal((n, 2, 3)).astype(np.float32)
        np.testing.assert_array_equal(m.shapes(y).to_host(), y.reshape(n, 6).T.reshape(3, -1))
        a = RNG.integers(-128, 128, (1, n, 3)).astype(np.int8)
        np.testing.assert_array_equal(m.mm(a, w).to_host(), ((a.astype(np.int64) + 1) @ (w.astype(np.int64) - 2)).astype(np.int32))
        v = RNG.standard_normal((n + 1, 6)).astype(np.float32)  # the row slice stays non-empty
        p, q, u = m.sc(v)
        np.testing.assert_array_equal(p.to_host(), v[:, 2:5])
        np.testing.assert_array_equal(q.to_host(), np.concatenate([v, v[:, 2:5]], axis=1))
        np.testing.assert_array_equal(u.to_host(), np.concatenate([v[1:], v], axis=0))


def test_dynamic_batch_convolutions_pools_resize_match_static():
    """Convolutions, poolings, transpose_conv2d and resize with a dynamic
    batch give exactly the results of the same program compiled for each
    static batch size (those are checked against numpy above), and conv2d
    matches numpy directly."""
    src = """
func.func @main(%x: tensor<Bx6x5x3xf32>, %w: tensor<4x3x3x3xf32>, %dw: tensor<3x3x4x2xf32>, %tw: tensor<2x2x2x8xf32>) -> (tensor<Bx6x5x4xf32>, tensor<Bx6x5x8xf32>, tensor<Bx3x3x8xf32>, tensor<Bx3x3x8xf32>, tensor<Bx6x6x2xf32>, tensor<Bx11x7x2xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b4 = "tosa.const"() <{values = dense<[0.5, -1.0, 0.25, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b8 = "tosa.const"() <{values = dense<0.125> : tensor<8xf32>}> : () -> tensor<8xf32>
  %b2 = "tosa.const"() <{values = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = tosa.conv2d %x, %w, %b4, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<Bx6x5x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<Bx6x5x4xf32>
  %d = tosa.depthwise_conv2d %c, %dw, %b8, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<Bx6x5x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<Bx6x5x8xf32>
  %m = tosa.max_pool2d %d {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 1>, stride = array<i64: 2, 2>} : (tensor<Bx6x5x8xf32>) -> tensor<Bx3x3x8xf32>
  %a = tosa.avg_pool2d %d, %z, %z {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 1>, stride = array<i64: 2, 2>} : (tensor<Bx6x5x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<Bx3x3x8xf32>
  %t = tosa.transpose_conv2d %m, %tw, %b2, %z, %z {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<Bx3x3x8xf32>, tensor<2x2x2x8xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<Bx6x6x2xf32>
  %s = tosa.const_shape {values = dense<[2, 1, 4, 3]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %bd = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %t, %s, %o, %bd {mode = BILINEAR} : (tensor<Bx6x6x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<Bx11x7x2xf32>
  return %c, %d, %m, %a, %t, %r : tensor<Bx6x5x4xf32>, tensor<Bx6x5x8xf32>, tensor<Bx3x3x8xf32>, tensor<Bx3x3x8xf32>, tensor<Bx6x6x2xf32>, tensor<Bx11x7x2xf32>
}"""
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    dw = RNG.standard_normal((3, 3, 4, 2)).astype(np.float32)
    tw = RNG.standard_normal((2, 2, 2, 8)).astype(np.float32)
    dyn = _module(src.replace("tensor<Bx", "tensor<?x"))
    for n in (1, 3):
        x = RNG.standard_normal((n, 6, 5, 3)).astype(np.float32)
        got = [v.to_host() for v in dyn.main(x, w, dw, tw)]
        ref = [v.to_host() for v in _module(src.replace("tensor<Bx", f"tensor<{n}x")).main(x, w, dw, tw)]
        for g, r in zip(got, ref):
            assert g.shape == r.shape
            np.testing.assert_array_equal(g, r)
        _close(got[0], ref_conv(x, w, np.array([0.5, -1.0, 0.25, 2.0]), [1, 1, 1, 1], [1, 1], [1, 1]), 27)
