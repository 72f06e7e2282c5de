"""StableHLO/CHLO beyond the core ops, exported by JAX: region control flow
(lax.cond, lax.switch, lax.while_loop, lax.fori_loop), jax.scipy.special and
jax.numpy functions that lower to CHLO, complex numbers and jnp.fft,
reduce_precision, pads with negative and interior padding, dilated
reduce_window, batch-grouped convolutions and composites. Each function is
lowered with ``jax.jit(f).lower(*args).as_text()``, compiled by gree for
vmvx, run on local-task, and compared with JAX's own result computed in
float64 (so the reference is more precise than either f32 result)."""

import os

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax", reason="jax is not installed (pip install 'jax[cpu]'): no JAX-exported programs to test")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

_rng = np.random.default_rng(20261124)


def rn(*shape, scale=1.0, shift=0.0):
    x = (_rng.standard_normal(shape) * scale + shift).astype(np.float32)
    x[np.abs(x) < 1e-3] = 0.5
    return x


def run(fn, *args):
    """Compiles JAX's f32 lowering of fn with gree and runs it; returns the
    results and JAX's float64 results for the same inputs."""
    text = jax.jit(fn).lower(*args).as_text()
    vmfb = ireec.compile_str(text, target_backends=["vmvx"])
    module = ireert.load_vm_flatbuffer(vmfb, driver="local-task")
    got = module.main(*args)
    got = [np.asarray(g.to_host() if hasattr(g, "to_host") else g) for g in (got if isinstance(got, tuple) else [got])]
    with jax.enable_x64(True):
        wide = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(fn)(*wide))]
    assert len(got) == len(want)
    return got, want


def check(fn, *args, rtol=2e-5, atol=1e-6):
    got, want = run(fn, *args)
    for i, (g, w) in enumerate(zip(got, want)):
        if np.issubdtype(w.dtype, np.floating):
            assert np.all(np.isfinite(w)), f"result {i}: the reference has non-finite values"
            np.testing.assert_allclose(g.astype(np.float64), w, rtol=rtol, atol=atol, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=f"result {i}")


# ---- control flow -----------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 2, 9, -4])
def test_cond_switch_while(k):
    def f(x, i):
        y = lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: jnp.sin(v) - 1.0, x)
        z = lax.switch(i, [lambda v: v + 1.0, lambda v: v * v, lambda v: -jnp.abs(v)], y)

        def body(c):
            n, acc, m = c
            return n + 1, acc * 0.75 + m.sum(), m @ m * 0.5

        return lax.while_loop(lambda c: c[0] < 4, body, (0, z, jnp.eye(3, dtype=x.dtype) + 0.1))

    check(f, rn(3), np.int32(k))
    check(f, -np.abs(rn(3)), np.int32(k))


def test_fori_loop_with_tensor_carry():
    def f(x):
        return lax.fori_loop(0, 5, lambda i, v: jnp.tanh(v * 1.5 + i), x)

    check(f, rn(2, 3))


# ---- CHLO special functions -------------------------------------------------


def unit(*shape):
    """Values inside (-0.95, 0.95), for functions defined on (-1, 1)."""
    return (np.tanh(rn(*shape)) * 0.95).astype(np.float32)


SPECIAL = {
    "erf": (jax.scipy.special.erf, lambda: rn(4, 5)),
    "erfc": (jax.scipy.special.erfc, lambda: rn(4, 5)),
    "erfinv": (jax.scipy.special.erfinv, lambda: unit(4, 5)),
    "gammaln": (jax.scipy.special.gammaln, lambda: rn(4, 5, scale=3.0, shift=0.2)),
    "digamma": (jax.scipy.special.digamma, lambda: rn(4, 5, scale=3.0, shift=0.2)),
    "i1e": (jax.scipy.special.i1e, lambda: rn(4, 5, scale=8.0)),
    "asin": (jnp.arcsin, lambda: unit(4, 5)),
    "acos": (jnp.arccos, lambda: unit(4, 5)),
    "atan": (jnp.arctan, lambda: rn(4, 5, scale=3.0)),
    "sinh": (jnp.sinh, lambda: rn(4, 5)),
    "cosh": (jnp.cosh, lambda: rn(4, 5)),
    "asinh": (jnp.arcsinh, lambda: rn(4, 5, scale=3.0)),
    "atanh": (jnp.arctanh, lambda: unit(4, 5)),
    "tan": (jnp.tan, lambda: rn(4, 5)),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_function(name):
    fn, make = SPECIAL[name]
    check(fn, make())


def test_acosh_polygamma_zeta_nextafter():
    check(jnp.arccosh, np.abs(rn(7, scale=3.0)) + 1.0)
    n = np.array([1, 2, 3, 1, 2, 0, 4], np.int32)
    check(lambda n, x: jax.scipy.special.polygamma(n, x), n, np.abs(rn(7, scale=3.0)) + 0.2)
    check(lambda s, q: jax.scipy.special.zeta(s, q), np.abs(rn(7, scale=2.0)) + 1.3, np.abs(rn(7)) + 0.1)
    x, y = rn(9), rn(9)
    got, _ = run(jnp.nextafter, x, y)
    np.testing.assert_array_equal(got[0], np.nextafter(x, y))


# ---- complex numbers and FFTs -----------------------------------------------


def test_complex_arithmetic():
    def f(a, b):
        z = a.astype(jnp.complex64) + 1j * b
        w = jnp.exp(z) * (z - 0.5j) / (jnp.conj(z) + 2.0)
        return jnp.abs(w), jnp.angle(jnp.sqrt(z)), (jnp.log(z) ** 2).real, jnp.sum(z * z).imag, jnp.prod(z * 0.8).real

    check(f, rn(6), rn(6), rtol=5e-5, atol=1e-5)


def test_complex_chlo_functions():
    def f(a, b):
        z = a.astype(jnp.complex64) * 0.6 + 0.4j * b
        outs = [jnp.cosh(z), jnp.sinh(z), jnp.tan(z), jnp.arcsin(z), jnp.arccos(z), jnp.arctan(z),
                jnp.arcsinh(z), jnp.arccosh(z * 2.0), jnp.arctanh(z * 0.5), jnp.conj(z)]
        return tuple(v.real for v in outs) + tuple(v.imag for v in outs)

    check(f, unit(8), unit(8), rtol=5e-5, atol=2e-5)


def test_complex_matmul():
    def f(a, b):
        za = a[0] + 1j * a[1]
        zb = b[0] - 2j * b[1]
        p = za @ zb
        return p.real, p.imag

    check(f, rn(2, 3, 4), rn(2, 4, 2), rtol=5e-5, atol=1e-5)


def test_complex_indexing():
    def f(x, i):
        z = x.astype(jnp.complex64) * (1 - 0.5j) + 0.25j
        g = z[jnp.array([4, 0, 2, 2])]
        d = lax.dynamic_slice(z, (i,), (3,))
        u = lax.dynamic_update_slice(z, g[:2] * 1j, (i,))
        return g.imag, d.real, u.imag

    check(f, rn(6), np.int32(2))


def test_complex_values_in_control_flow():
    def f(x):
        z = x.astype(jnp.complex64) * (0.5 - 0.25j)
        z = lax.fori_loop(0, 3, lambda i, w: w * (1 + 0.5j) + i, z)
        z = lax.cond(x[0] > 0, lambda w: w * 1j, lambda w: jnp.conj(w), z)
        return z.real, z.imag

    check(f, rn(5))
    check(f, -np.abs(rn(5)))


@pytest.mark.parametrize("n", [8, 12, 7, 24, 45, 64])
def test_fft_family(n):
    def f(x, y):
        z = x + 1j * y
        fz = jnp.fft.fft(z)
        iz = jnp.fft.ifft(fz)
        rz = jnp.fft.rfft(x)
        back = jnp.fft.irfft(rz, n)
        return fz.real, fz.imag, iz.real, rz.imag, back

    check(f, rn(3, n), rn(3, n), rtol=5e-5, atol=2e-5)


def test_fft_multi_dimensional():
    def f(x):
        a = jnp.fft.fft2(x.astype(jnp.complex64))
        b = jnp.fft.rfftn(x)
        c = jnp.fft.irfftn(b, x.shape)
        return jnp.abs(a), b.real, c

    check(f, rn(4, 6), rtol=5e-5, atol=2e-5)


# ---- other ops --------------------------------------------------------------


def test_reduce_precision_pad_window_conv():
    def f(x, w):
        rp = lax.reduce_precision(x * 100.0, exponent_bits=5, mantissa_bits=2)
        pd = lax.pad(x, jnp.asarray(-3.0, x.dtype), [(-1, 2, 1), (2, -1, 2)])
        rw = lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), [(1, 1), (0, 2)],
                               base_dilation=(1, 2), window_dilation=(2, 1))
        cv = lax.conv_general_dilated(x.reshape(2, 2, 3, 2), w, (1, 1), [(1, 0), (0, 1)],
                                      lhs_dilation=(2, 1), batch_group_count=2)
        return rp, pd, rw, cv

    check(f, rn(6, 4), rn(4, 2, 2, 2), rtol=2e-5, atol=1e-5)


def test_composite_is_inlined():
    def f(x):
        c = lax.composite(lambda v, k=2.0: jnp.tanh(v) * k + 1.0, name="gree.test.scaled_tanh")
        return c(x, k=3.0)

    text = jax.jit(f).lower(rn(5)).as_text()
    assert "stablehlo.composite" in text
    check(f, rn(5))


def test_collectives_on_one_device():
    from jax.sharding import Mesh, PartitionSpec as P

    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:
        from jax.experimental.shard_map import shard_map
    mesh = Mesh(np.array(jax.devices()[:1]), ("i",))

    def f(x):
        y = lax.psum(x * 2.0, "i")
        z = lax.all_gather(y, "i", tiled=True)
        w = lax.ppermute(z, "i", [(0, 0)])
        v = lax.psum_scatter(w, "i", tiled=True)
        return v * lax.axis_index("i") + lax.pmax(v, "i") - lax.pmean(x, "i")

    g = shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    text = jax.jit(g).lower(rn(6)).as_text()
    assert "stablehlo.all_reduce" in text and "stablehlo.collective_permute" in text
    check(g, rn(6))


def test_variadic_reduce_window_argmax_pooling():
    # Two inputs reduced together (value and index of each window's
    # maximum); the body calls JAX's private _where helper.
    def f(x):
        idx = jnp.arange(x.size, dtype=jnp.int32).reshape(x.shape)

        def body(a, b):
            return jnp.maximum(a[0], b[0]), jnp.where(a[0] >= b[0], a[1], b[1])

        init = (jnp.asarray(-jnp.inf, x.dtype), jnp.int32(0))
        v, i = lax.reduce_window((x, idx), init, body, (2, 3), (2, 1), [(0, 1), (1, 1)],
                                 window_dilation=(1, 2))
        return v, i

    check(f, rn(5, 7))


@pytest.mark.parametrize("alg", ["RNG_DEFAULT", "RNG_PHILOX", "RNG_THREE_FRY"])
def test_rng_bit_generator_matches_jax(alg):
    # JAX passes the key as a 2×u64 state (key, counter): the generators
    # then give XLA's bits and advance the state as XLA does.
    algorithm = getattr(lax.RandomAlgorithm, alg)

    def f(k):
        s1, a = lax.rng_bit_generator(k, (3, 5), dtype=jnp.uint32, algorithm=algorithm)
        s2, b = lax.rng_bit_generator(s1, (7,), dtype=jnp.uint8, algorithm=algorithm)
        return s2, a, b

    check(f, np.array([1, 2, 3, 4], np.uint32))
    check(f, np.array([0xDEADBEEF, 7, 0xFFFFFFFF, 12345], np.uint32))
