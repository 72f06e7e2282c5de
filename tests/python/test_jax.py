"""Programs exported by a real client: JAX lowers each function with
``jax.jit(f).lower(*args).as_text()`` (StableHLO in JAX's own text form:
pretty op syntax, ``func.func public``, ``jax.result_info``, private helper
functions, locations, sharding annotations); gree compiles the text for vmvx
through ``iree_go.compiler.compile_str`` and runs it on local-task, and the
results must match JAX's own (XLA CPU) results: f32 within 1e-5 relative
(reductions: relative to the output's largest magnitude), integers and
booleans exactly. Inputs are random, nonzero, from a fixed seed.

Every test runs twice: vmvx on local-task, and vulkan-spirv for lavapipe's
target (--iree-vulkan-target=llvmpipe: JAX's x64 programs and its random and
special functions need f64) on the vulkan driver, which skips, saying why,
where no Vulkan device exists (CI has Mesa's lavapipe)."""

import os

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax", reason="jax is not installed (pip install 'jax[cpu]'): no JAX-exported programs to test")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402
from conftest import vulkan_unavailable  # noqa: E402

RTOL = 1e-5
_rng = np.random.default_rng(20261124)


def rn(*shape, scale=1.0):
    """Random nonzero f32 of the given shape."""
    x = (_rng.standard_normal(shape) * scale).astype(np.float32)
    x[np.abs(x) < 1e-3] = 0.5
    return x


def ri(*shape, lo=-50, hi=50):
    """Random nonzero i32 of the given shape."""
    x = _rng.integers(lo, hi, shape).astype(np.int32)
    x[x == 0] = 7
    return x


# (target backend, driver) of the running test: set by the autouse fixture.
CONFIG = {"backend": "vmvx", "driver": "local-task", "flags": []}


@pytest.fixture(autouse=True, params=[("vmvx", "local-task", []), ("vulkan-spirv", "vulkan", ["--iree-vulkan-target=llvmpipe"])],
                ids=["vmvx", "vulkan"])
def config(request):
    backend, driver, flags = request.param
    if driver == "vulkan" and (why := vulkan_unavailable()):
        pytest.skip(why)
    CONFIG.update(backend=backend, driver=driver, flags=flags)
    yield
    CONFIG.update(backend="vmvx", driver="local-task", flags=[])


def compile_jax(fn, *args, debug_info=False, text=None):
    """Lowers fn with JAX, compiles the text with gree for the test's
    target and loads it on its driver."""
    if text is None:
        text = jax.jit(fn).lower(*args).as_text(debug_info=debug_info)
    vmfb = ireec.compile_str(text, target_backends=[CONFIG["backend"]], extra_args=CONFIG["flags"])
    return ireert.load_vm_flatbuffer(vmfb, driver=CONFIG["driver"])


def check(fn, *args, debug_info=False, reduction=False, text=None, rtol=RTOL):
    """Runs fn through JAX and through gree and compares every output."""
    module = compile_jax(fn, *args, debug_info=debug_info, text=text)
    got = module.main(*jax.tree_util.tree_leaves(args))  # pytrees flatten as in JAX
    got = list(got) if isinstance(got, tuple) else [got]
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    assert len(got) == len(want), f"{len(got)} results, JAX has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g.to_host() if hasattr(g, "to_host") else g)
        w = np.asarray(w)
        assert g.shape == w.shape, f"result {i}: shape {g.shape}, JAX has {w.shape}"
        assert g.dtype == w.dtype, f"result {i}: dtype {g.dtype}, JAX has {w.dtype}"
        if np.issubdtype(w.dtype, np.floating):
            w64 = w.astype(np.float64)
            assert np.all(np.isfinite(w64)), f"result {i}: the reference has non-finite values"
            atol = rtol * float(np.abs(w64).max()) if reduction else 1e-30
            np.testing.assert_allclose(g.astype(np.float64), w64, rtol=rtol, atol=atol, err_msg=f"result {i}")
        elif w.dtype.kind not in "biu":
            # bfloat16 and the float8 types (ml_dtypes, kind "V"): numpy
            # compares them as objects, a NaN unequal to itself, so their
            # bits are compared (a bitcast's NaN payloads included).
            np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"), err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i}")
    return module


# ---- networks ---------------------------------------------------------------


def test_mlp():
    def mlp(x, w1, b1, w2, b2):
        h = jax.nn.relu(x @ w1 + b1)
        return jax.nn.softmax(h @ w2 + b2, axis=-1)

    check(mlp, rn(4, 8), rn(8, 16), rn(16), rn(16, 5), rn(5), reduction=True)


def test_conv_nhwc_same():
    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    check(conv, rn(2, 9, 9, 3), rn(3, 3, 3, 4), reduction=True)


def test_conv_nchw_strided_bias_relu():
    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jax.nn.relu(y + b[None, :, None, None])

    check(conv, rn(2, 3, 9, 9), rn(4, 3, 3, 3), rn(4), reduction=True)


def test_conv_dilated_depthwise():
    def conv(x, w):
        return lax.conv_general_dilated(
            x, w, (1, 1), ((2, 2), (2, 2)), rhs_dilation=(2, 2), feature_group_count=4,
            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    check(conv, rn(1, 7, 7, 4), rn(3, 3, 1, 4), reduction=True)


def test_conv_window_reversal():
    # JAX itself never sets window_reversal; flip it in the text and compare
    # with the convolution of the reversed kernel.
    x, w = rn(1, 6, 6, 2), rn(3, 2, 2, 3)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    text = jax.jit(conv).lower(x, w).as_text()
    assert "reverse = [false, false]" in text
    text = text.replace("reverse = [false, false]", "reverse = [true, false]")
    module = compile_jax(None, text=text)
    got = module.main(x, w).to_host()
    want = np.asarray(jax.jit(conv)(x, w[::-1]))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.abs(want).max())


def test_pooling():
    def pools(x):
        mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        avg = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0
        return mx, avg

    check(pools, rn(2, 8, 8, 3), reduction=True)


def test_layernorm_attention():
    heads, dh = 4, 4

    def block(x, wq, wk, wv, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        xn = (x - mu) / jnp.sqrt(var + 1e-5) * g + b
        bsz, t, d = x.shape
        q = (xn @ wq).reshape(bsz, t, heads, dh)
        k = (xn @ wk).reshape(bsz, t, heads, dh)
        v = (xn @ wv).reshape(bsz, t, heads, dh)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(dh)
        a = jax.nn.softmax(s, axis=-1)
        return jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(bsz, t, d) + x

    check(block, rn(2, 6, 16), rn(16, 16), rn(16, 16), rn(16, 16), rn(16), rn(16), reduction=True)


# ---- control flow (stablehlo.while / case) ----------------------------------


def test_scan():
    def f(xs, c0):
        def body(c, x):
            c = jnp.tanh(c * 0.5 + x)
            return c, c.sum()

        return lax.scan(body, c0, xs)

    check(f, rn(5, 3), rn(3), reduction=True)


def test_fori_loop():
    check(lambda x: lax.fori_loop(0, 5, lambda i, v: v * 0.9 + jnp.sin(v) + i, x), rn(4))


def test_while_loop():
    def f(x):
        def cond(s):
            return s[0] < 6

        def body(s):
            i, v = s
            return i + 1, v * 1.1 + 0.1

        return lax.while_loop(cond, body, (0, x))

    check(f, rn(4))


def test_cond_and_switch():
    def f(x, p, k):
        a = lax.cond(p > 0, lambda v: jnp.exp(v), lambda v: -v, x)
        b = lax.switch(k, [lambda v: v + 1.0, lambda v: v * 3.0, lambda v: jnp.cos(v)], x)
        return a, b

    x = rn(4)
    check(f, x, np.array(0.3, np.float32), np.array(1, np.int32))
    check(f, x, np.array(-0.3, np.float32), np.array(2, np.int32))


# ---- indexing (gather / scatter), sorting ----------------------------------


def test_gather_indexing():
    idx = np.array([3, 1, 7, 7, 0], np.int32)
    check(lambda x, i: (x[i], x[2:5, 1], x[i, 2]), rn(10, 4), idx)


def test_scatter_add_and_set():
    idx = np.array([3, 1, 7, 7, 0], np.int32)
    check(lambda x, i, v: x.at[i].add(v), rn(10, 4), idx, rn(5, 4))
    check(lambda x, i, v: x.at[i].set(v), rn(10, 4), np.array([3, 1, 8, 0], np.int32), rn(4, 4))


def test_take_along_axis():
    idx = _rng.integers(0, 6, (4, 3)).astype(np.int32)
    check(lambda x, i: jnp.take_along_axis(x, i, axis=1), rn(4, 6), idx)


def test_sort_argsort():
    check(lambda x: (jnp.sort(x, axis=-1), jnp.argsort(x, axis=0)), rn(3, 7))


def test_top_k():
    check(lambda x: lax.top_k(x, 3), rn(3, 10))


def test_cumulative():
    check(lambda x: (jnp.cumsum(x, axis=1), jnp.cumprod(x * 0.5, axis=0), lax.cummax(x, axis=1)), rn(4, 6),
          reduction=True)


# ---- element-wise math, integers, conversions ------------------------------


def test_elementwise_float():
    def f(x, y):
        return (jnp.log1p(jnp.abs(x)), jnp.expm1(x), jnp.arctan2(x, y), jnp.where(x > y, x, y),
                jnp.clip(x, -0.5, 0.5), jnp.round(x * 3), jnp.floor(x * 3), jnp.ceil(x * 3), jnp.sign(x),
                x ** 3, lax.rsqrt(jnp.abs(x)), jnp.tanh(x), jax.nn.sigmoid(x), jnp.maximum(x, y),
                jnp.minimum(x, y), jnp.remainder(x, y), jnp.abs(x), jnp.exp(x), jnp.log(jnp.abs(x)),
                jnp.sin(x), jnp.cos(x), jnp.sqrt(jnp.abs(x)), jnp.cbrt(x), jnp.power(jnp.abs(x), y))

    check(f, rn(3, 5), rn(3, 5))


def test_erf_gelu_and_chlo_math():
    def f(x):
        return (lax.erf(x), jax.nn.gelu(x, approximate=False), jax.nn.gelu(x), jnp.sinh(x), jnp.cosh(x),
                jnp.arcsin(jnp.tanh(x)), jnp.arctan(x), jnp.tan(x * 0.5), lax.erf_inv(jnp.tanh(x) * 0.9))

    check(f, rn(3, 5))


def test_logaddexp_and_compares():
    def f(x, y):
        return jnp.logaddexp(x, y), x < y, x >= y, x == x, jnp.isfinite(x), jnp.logical_and(x > 0, y > 0)

    check(f, rn(3, 5), rn(3, 5))


def test_integer_ops():
    def f(a, b):
        return (a + b, a * b, a // b, a % b, a & b, a | b, a ^ b, a << 2, a >> 1, jnp.abs(a), jnp.maximum(a, b),
                a == b, a < b, a >= b, ~a, -a, jnp.sign(a), lax.shift_right_logical(a, 3),
                lax.population_count(a), lax.clz(a), jnp.clip(a, -10, 10), a.sum(axis=0), a.max(axis=1))

    check(f, ri(3, 5), ri(3, 5))


def test_dtype_conversions():
    def f(x, i):
        return (x.astype(jnp.int32), i.astype(jnp.float32), x.astype(jnp.float16).astype(jnp.float32),
                x.astype(jnp.bfloat16).astype(jnp.float32), (x > 0).astype(jnp.float32),
                i.astype(jnp.uint8).astype(jnp.int32), x.astype(jnp.bool_), lax.bitcast_convert_type(x, jnp.int32),
                i.astype(jnp.int8), (i > 0).astype(jnp.int32), i.astype(jnp.uint32))

    check(f, rn(3, 5, scale=10), ri(3, 5, lo=-300, hi=300))


def test_float16_and_bfloat16_math():
    def f(x, y):
        return (x * y + x).astype(jnp.float32), (jnp.exp(y.astype(jnp.bfloat16)) * 2).astype(jnp.float32)

    x = rn(4, 4).astype(np.float16)
    y = rn(4, 4).astype(np.float16)
    module = compile_jax(f, x, y)
    got = module.main(x, y)
    want = jax.jit(f)(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.to_host(), np.asarray(w))


# ---- JAX's text: locations, sharding annotations, export ---------------------


def test_debug_info_locations():
    """With debug_info JAX writes #loc aliases, fused/callsite/name
    locations and source ranges; they parse, and errors point at the Python
    source line."""

    def f(x, w):
        return jax.nn.relu(x @ w).sum(axis=0)

    check(f, rn(4, 8), rn(8, 3), debug_info=True, reduction=True)
    text = jax.jit(f).lower(rn(4, 8), rn(8, 3)).as_text(debug_info=True)
    assert "#loc" in text and "callsite" in text


def test_sharding_annotations_are_identities():
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("a",), axis_types=(AxisType.Auto,))

    def f(x):
        y = lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P("a")))
        return jnp.tanh(y) * 3

    sharded = jax.jit(f, in_shardings=NamedSharding(mesh, P("a")), out_shardings=NamedSharding(mesh, P()))
    x = rn(4, 6)
    text = sharded.lower(x).as_text()
    assert "sdy.mesh" in text and "sdy.sharding_constraint" in text
    module = compile_jax(None, text=text)
    np.testing.assert_allclose(module.main(x).to_host(), np.asarray(sharded(x)), rtol=RTOL)

    # The GSPMD form: custom_call @Sharding and mhlo.sharding attributes.
    old = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        text = jax.jit(f, in_shardings=NamedSharding(mesh, P("a"))).lower(x).as_text()
    finally:
        jax.config.update("jax_use_shardy_partitioner", old)
    assert "@Sharding" in text and "mhlo.sharding" in text
    module = compile_jax(None, text=text)
    np.testing.assert_allclose(module.main(x).to_host(), np.asarray(sharded(x)), rtol=RTOL)


def test_jax_export_module():
    from jax import export

    def f(x, y):
        return jnp.tanh(x) @ y, x.sum()

    x, y = rn(4, 6), rn(6, 3)
    exported = export.export(jax.jit(f))(x, y)
    check(f, x, y, text=str(exported.mlir_module()), reduction=True)


def test_unsupported_custom_call_is_a_clear_error():
    """A LAPACK call gree does not implement (the eigensolver behind
    jnp.linalg.eigh on CPU) is an error that names the target, not a crash
    or a wrong answer."""
    a = rn(4, 4)
    text = jax.jit(jnp.linalg.eigh).lower(a + a.T).as_text()
    with pytest.raises(ireec.CompilerToolError) as e:
        ireec.compile_str(text, target_backends=["vmvx"])
    msg = str(e.value)
    assert "stablehlo.custom_call" in msg and "lapack" in msg and "<stdin>:" in msg


def test_linear_algebra():
    """LAPACK's Cholesky, triangular solve and LU (JAX's CPU custom calls)
    run as loops: cholesky/cho_solve, solve_triangular in every form, solve,
    inv, det, slogdet, lu (square and rectangular), and a failed Cholesky."""
    a0 = rn(5, 5)
    spd = a0 @ a0.T + 5 * np.eye(5, dtype=np.float32)
    tri = np.tril(a0) + 4 * np.eye(5, dtype=np.float32)
    b, bl = rn(5, 3), rn(3, 5)
    sl = jax.scipy.linalg
    check(lambda a, b: (jnp.linalg.cholesky(a), sl.cho_solve(sl.cho_factor(a), b), sl.cholesky(a, lower=False)),
          spd, b, reduction=True)
    check(lambda a, b, c: (sl.solve_triangular(a, b, lower=True), sl.solve_triangular(a.T, b, lower=False),
                           sl.solve_triangular(a, b, lower=True, trans=1),
                           sl.solve_triangular(a, b, lower=True, unit_diagonal=True),
                           lax.linalg.triangular_solve(a, c, left_side=False, lower=True),
                           lax.linalg.triangular_solve(a.T, c, left_side=False, lower=False, transpose_a=True)),
          tri, b, bl, reduction=True)
    sq, rect = rn(5, 5), rn(4, 6)
    check(lambda a, b: (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), jnp.linalg.slogdet(a),
                        sl.lu(a), sl.lu_factor(a)), sq, b, reduction=True)
    check(lambda r: (sl.lu(r), sl.lu(r.T)), rect, reduction=True)
    # Not positive definite: LAPACK's info is non-zero and JAX returns NaNs.
    got = compile_jax(jnp.linalg.cholesky, -spd).main(-spd).to_host()
    want = np.asarray(jnp.linalg.cholesky(-spd))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(want).any()


def test_conv_transpose_and_gradients():
    """conv_transpose and the gradients of a convolution use lhs_dilation
    and swapped dimension numbers."""
    x, w = rn(2, 6, 6, 3), rn(3, 3, 3, 4)

    def up(x, w):
        return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    check(up, x, w, reduction=True)

    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.tanh(y))

    check(jax.grad(loss, argnums=(0, 1)), x, w, reduction=True)


# ---- more networks and library functions ------------------------------------


def test_batchnorm_training_and_resnet_block():
    def bn(x, g, b):
        m = x.mean(axis=(0, 1, 2))
        v = x.var(axis=(0, 1, 2))
        return (x - m) / jnp.sqrt(v + 1e-5) * g + b

    check(bn, rn(4, 5, 5, 3), rn(3), rn(3), reduction=True)

    def block(x, w1, w2, g, b):
        dn = ("NHWC", "HWIO", "NHWC")
        y = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn)
        y = jax.nn.relu(y * g + b)
        y = lax.conv_general_dilated(y, w2, (1, 1), "SAME", dimension_numbers=dn)
        return jnp.mean(jax.nn.relu(y + x), axis=(1, 2))

    check(block, rn(1, 8, 8, 4), rn(3, 3, 4, 4), rn(3, 3, 4, 4), rn(4), rn(4), reduction=True)


def test_nn_functions():
    def f(x):
        return (jax.nn.log_softmax(x), jax.nn.silu(x), jax.nn.elu(x), jax.nn.leaky_relu(x), jax.nn.softplus(x),
                jax.nn.one_hot(jnp.argmax(x, 1), 7), jnp.argmin(x, 0), jax.nn.relu6(x), jax.nn.hard_tanh(x),
                jax.nn.logsumexp(x, axis=1), jax.nn.standardize(x, axis=1))

    check(f, rn(3, 7), reduction=True)


def test_mlp_value_and_grad():
    def f(x, w1, w2, y):
        def loss(w1, w2):
            h = jnp.tanh(x @ w1)
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ w2) * y, axis=-1))

        return jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)

    check(f, rn(4, 8), rn(8, 16), rn(16, 3), np.eye(3, dtype=np.float32)[[0, 2, 1, 2]], reduction=True)


def test_vmap_batched_matmul():
    check(lambda a, b: (jax.vmap(jnp.matmul)(a, b), jnp.einsum("bij,bjk->bik", a, b)), rn(5, 3, 4), rn(5, 4, 2),
          reduction=True)


def test_reductions():
    def f(x, i):
        return (x.prod(axis=1), x.min(axis=0), x.max(), (x > 0).any(axis=1), (x > -2).all(axis=0), i.sum(),
                i.min(axis=1), i.prod(axis=0), jnp.var(x), jnp.std(x, axis=1), jnp.linalg.norm(x, axis=1),
                jnp.mean(x, axis=(0, 1)))

    check(f, rn(4, 6), ri(4, 6, lo=-5, hi=5), reduction=True)


def test_data_movement():
    def f(x, k):
        return (jnp.flip(x, 1), jnp.roll(x, 2, axis=0), jnp.pad(x, 2, mode="reflect"), jnp.pad(x, 1, mode="edge"),
                jnp.repeat(x, 2, axis=0), jnp.tile(x, (1, 2)), lax.dynamic_slice(x, (k, k), (2, 3)),
                lax.dynamic_update_slice(x, jnp.ones((2, 2), x.dtype), (k, 1)), jnp.triu(x), jnp.tril(x, -1),
                x.T.reshape(3, 10), jnp.stack([x, -x], axis=1), jnp.split(x, 3, axis=1)[1], jnp.swapaxes(x[None], 0, 2),
                jnp.diagonal(x), jnp.trace(x))

    check(f, rn(5, 6), np.array(2, np.int32), reduction=True)


def test_threefry_random():
    """JAX's PRNG is itself StableHLO: uint32 adds, shifts, xors, bitcasts."""

    def f(k):
        key = jax.random.wrap_key_data(k, impl="threefry2x32")
        return jax.random.bits(key, (8,)), jax.random.uniform(key, (4,)), jax.random.normal(key, (3,))

    check(f, np.array([0, 42], np.uint32))


def test_unsigned_and_small_integers():
    def u(a, b):
        return (a + b, a * b, a // b, a % b, a >> b, a << b, a ^ b, jnp.maximum(a, b), a > b, a.astype(jnp.float32),
                (a >> 3).astype(jnp.int32))

    check(u, _rng.integers(1, 2**31, (8,), dtype=np.uint32), _rng.integers(1, 30, (8,), dtype=np.uint32))

    def s(a, b):
        return (a + a, b + b, a * 3, b // 3, a.astype(jnp.int32) * b, b >> 2, a >> 1, jnp.abs(a), a.astype(jnp.float32),
                b.astype(jnp.float32))

    check(s, _rng.integers(-128, 127, (8,)).astype(np.int8), _rng.integers(0, 255, (8,)).astype(np.uint8))


def test_integer_edge_cases():
    a = np.array([7, -7, 7, -7, 1, -1, 0x7FFFFFFF, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 3, 2, -5], np.int32)
    check(lambda a, b: (a // b, a % b, lax.div(a, b), lax.rem(a, b), jnp.fmod(a, b)), a, b)
    # Shifts by the bit width or more: 0 (or the sign) as in XLA, not poison.
    shifts = np.array([0, 1, 31, 32, 33, 40], np.int32)
    check(lambda a, s: (lax.shift_left(a, s), lax.shift_right_arithmetic(a, s), lax.shift_right_logical(a, s)),
          ri(6), shifts)


def test_float_edge_cases():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.5001, 3.7], np.float32)
    check(lambda x: (jnp.round(x), lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), jnp.trunc(x), jnp.rint(x)), x)
    check(lambda x, y: (jnp.fmod(x, y), jnp.remainder(x, y), lax.rem(x, y), jnp.floor_divide(x, y)), rn(8, scale=5),
          rn(8))


def test_lstm_scan():
    def f(xs, w, b):
        def cell(carry, x):
            h, c = carry
            z = jnp.concatenate([x, h], -1) @ w + b
            i, f, g = jnp.split(z, 3, -1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jnp.tanh(c)
            return (h, c), h

        return lax.scan(cell, (jnp.zeros((2, 3)), jnp.zeros((2, 3))), xs)

    check(f, rn(6, 2, 4), rn(4 + 3, 3 * 3), rn(3 * 3), reduction=True)


def test_searchsorted_and_window_bodies():
    check(lambda a, v: (jnp.searchsorted(a, v), jnp.digitize(v, a)), np.sort(rn(10)), rn(5))
    check(lambda x: (lax.cummax(x, axis=0), lax.cummin(x, axis=1), lax.cumlogsumexp(x, axis=1)), rn(4, 6),
          reduction=True)


def test_select_where_and_bools():
    # jnp.select takes an argmax over booleans (an UNSIGNED i1 compare).
    def f(x, t):
        return (jnp.where(x > t, x, 0.0), jnp.clip(x, t, None), lax.clamp(-t, x, t), jnp.where(x > 0, 1, -1),
                jnp.select([x < -1, x > 1], [x * 2, x * 3], x))

    check(f, rn(4, 5), np.array(0.2, np.float32))

    def g(a, b):
        return (a & b, a | b, a ^ b, ~a, a == b, a != b, a.astype(jnp.int32) + b, jnp.sum(a),
                jnp.count_nonzero(a, axis=1), jnp.argmax(a, axis=0))

    check(g, rn(4, 5) > 0, rn(4, 5) > 0)


def test_mixed_precision_dots():
    a8 = _rng.integers(-100, 100, (4, 8)).astype(np.int8)
    b8 = _rng.integers(-100, 100, (8, 3)).astype(np.int8)
    check(lambda a, b: (jnp.dot(a, b, preferred_element_type=jnp.int32),
                        lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)), a8, b8)
    a, b = rn(4, 8).astype(jnp.bfloat16), rn(8, 3).astype(jnp.bfloat16)
    check(lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32), a, b, reduction=True)


def test_nan_inf_semantics():
    """NaN and infinities propagate as in XLA (max/min/sort/clip/sign, -0)."""
    x = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 3.0, 0.0, -2.0], np.float32)

    def f(x):
        return (jnp.isnan(x), jnp.isinf(x), jnp.nan_to_num(x), jnp.isfinite(x), jnp.maximum(x, 2.0),
                jnp.minimum(x, 2.0), jnp.sign(x), jnp.clip(x, -1, 1), jnp.max(x), jnp.argmax(x), jnp.sort(x),
                jnp.exp(x), jnp.tanh(x), jax.nn.relu(x), jnp.abs(x), -x)

    got = compile_jax(f, x).main(x)
    for i, (g, w) in enumerate(zip(got, f(x))):
        g, w = g.to_host(), np.asarray(w)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=RTOL, equal_nan=True, err_msg=f"result {i}")
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w), err_msg=f"result {i} (signs)")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i}")


def test_checkpoint_gradient():
    """jax.checkpoint: an optimization barrier over several values."""

    def f(x, w):
        g = jax.checkpoint(lambda x: jnp.sin(x @ w) @ w)
        return jax.grad(lambda x: g(x).sum())(x)

    check(f, rn(4, 8), rn(8, 8), reduction=True)


def test_library_functions():
    check(lambda a, b: (jnp.convolve(a, b), jnp.convolve(a, b, mode="same"), jnp.correlate(a, b)), rn(20), rn(5),
          reduction=True)
    check(lambda x, xp, fp, i: (jnp.interp(x, xp, fp), jnp.bincount(i, length=6)), rn(7), np.sort(rn(10)), rn(10),
          _rng.integers(0, 6, (20,)).astype(np.int32), reduction=True)
    check(lambda x: lax.map(lambda r: jnp.sum(r**2), x), rn(5, 3), reduction=True)
    check(lambda a, b, c: (lax.sort((b, a, c), num_keys=2), jnp.lexsort((a, b))), rn(10), ri(10, lo=-3, hi=3), rn(10))
    idx = np.array([0, 5, 9, -1, -8], np.int32)
    check(lambda x, i: (jnp.take(x, i, axis=0, mode="clip"), jnp.take(x, i, axis=0, mode="fill", fill_value=-1.0)),
          rn(6, 4), idx)


def test_dot_product_attention():
    q, k, v = rn(2, 5, 2, 4), rn(2, 5, 2, 4), rn(2, 5, 2, 4)
    check(lambda q, k, v: (jax.nn.dot_product_attention(q, k, v), jax.nn.dot_product_attention(q, k, v, is_causal=True)),
          q, k, v, reduction=True)


def test_dynamic_slices_clamp():
    """dynamic_slice/dynamic_update_slice clamp their start indices."""

    def f(x, k, m):
        return (lax.dynamic_slice(x, (k, 0), (3, 4)), lax.dynamic_slice(x, (m, 1), (2, 2)),
                lax.dynamic_update_slice(x, jnp.zeros((3, 2), x.dtype), (k, m)), lax.dynamic_index_in_dim(x, k, 0))

    check(f, rn(6, 4), np.array(5, np.int32), np.array(-2, np.int32))


def test_pooling_gradients():
    # max pooling's gradient is select_and_scatter; average pooling's
    # gradient pads with interior padding.
    x = rn(1, 6, 6, 2)
    check(jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()), x)
    check(jax.grad(lambda x: (lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2).sum()), x,
          reduction=True)


def test_dilated_pooling_and_associative_scan():
    x = rn(1, 9, 9, 2)
    check(lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                                       window_dilation=(1, 2, 2, 1)),
                     lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                                       base_dilation=(1, 2, 2, 1))), x, reduction=True)
    check(lambda x: (lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.maximum, x)), rn(16), reduction=True)


def test_reduce_precision():
    check(lambda x: (lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, 8, 7), lax.reduce_precision(x, 4, 3)),
          rn(8, scale=100))


def test_nested_control_flow():
    def f(x, n):
        def outer(i, v):
            return lax.cond(i % 2 == 0, lambda u: lax.fori_loop(0, i, lambda j, w: w * 0.9 + 0.1, u), lambda u: -u, v)

        return lax.fori_loop(0, n, outer, x), lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, jnp.sin(s[1]) + s[1]),
                                                              (0, x))

    check(f, rn(4), np.array(5, np.int32))
    check(lambda xs: lax.scan(lambda c, x: (c * 0.5 + x, c), jnp.zeros(3), xs, reverse=True, unroll=2), rn(6, 3))


def test_shape_polymorphic_export():
    """jax.export with a symbolic batch dimension: dynamic shapes
    (get_dimension_size, dynamic_broadcast_in_dim, dynamic_iota,
    dynamic_reshape) and a @shape_assertion custom call (dropped, as IREE
    does); the module runs for several batch sizes."""
    from jax import export

    def f(x, w):
        return jax.nn.softmax(x @ w, axis=-1), jnp.arange(x.shape[0]), x.reshape(-1)

    (b,) = export.symbolic_shape("b")
    exported = export.export(jax.jit(f))(jax.ShapeDtypeStruct((b, 4), np.float32),
                                         jax.ShapeDtypeStruct((4, 3), np.float32))
    text = str(exported.mlir_module())
    assert "shape_assertion" in text and "tensor<?x4xf32>" in text
    module = compile_jax(None, text=text)
    w = rn(4, 3)
    for batch in (1, 5):
        x = rn(batch, 4)
        got = module.main(x, w)
        for i, (g, want) in enumerate(zip(got, jax.jit(f)(x, w))):
            np.testing.assert_allclose(g.to_host(), np.asarray(want), rtol=RTOL, atol=RTOL, err_msg=f"result {i}")


def test_x64_programs():
    """With jax_enable_x64: f64 math (1e-12 relative) and i64 integers."""
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        x, w = _rng.standard_normal((4, 6)), _rng.standard_normal((6, 3))
        i = _rng.integers(-(2**40), 2**40, (5,))
        idx = np.array([3, 0, 2], np.int64)

        def f(x, w, i, idx):
            return (jnp.tanh(x @ w), jnp.exp(x).sum(0), lax.erf(x), i * 3 + (i >> 5), i // 7, i.astype(jnp.float64),
                    x[idx], jnp.cumsum(x, 1), jnp.argsort(i), x.astype(jnp.float32), jnp.log1p(jnp.abs(x)),
                    jnp.arctan2(x, 1.5))

        got = compile_jax(f, x, w, i, idx).main(x, w, i, idx)
        for k, (g, want) in enumerate(zip(got, f(x, w, i, idx))):
            g, want = g.to_host(), np.asarray(want)
            assert g.dtype == want.dtype, f"result {k}: {g.dtype} vs {want.dtype}"
            if want.dtype == np.float64:
                np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12 * np.abs(want).max(), err_msg=f"result {k}")
            elif want.dtype == np.float32:
                np.testing.assert_allclose(g, want, rtol=RTOL, err_msg=f"result {k}")
            else:
                np.testing.assert_array_equal(g, want, err_msg=f"result {k}")
    finally:
        jax.config.update("jax_enable_x64", old)


def test_small_transformer():
    """A one-layer causal transformer over token ids (embedding gather,
    layer norm, fused QKV, masked softmax attention, GELU MLP, tied output
    projection), with its parameters as a pytree."""
    d, heads, t, vocab = 32, 4, 8, 50
    p = dict(emb=rn(vocab, d, scale=0.1), wqkv=rn(d, 3 * d, scale=0.2), wo=rn(d, d, scale=0.2),
             w1=rn(d, 4 * d, scale=0.2), w2=rn(4 * d, d, scale=0.2), g1=rn(d), b1=rn(d), g2=rn(d), b2=rn(d),
             pos=rn(t, d, scale=0.1))

    def ln(x, g, b):
        m = x.mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(jnp.var(x, -1, keepdims=True) + 1e-6) * g + b

    def f(tok, p):
        x = p["emb"][tok] + p["pos"]
        q, k, v = jnp.split(ln(x, p["g1"], p["b1"]) @ p["wqkv"], 3, -1)
        q, k, v = (z.reshape(2, t, heads, d // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads), -1e9)
        a = (jax.nn.softmax(s, -1) @ v).transpose(0, 2, 1, 3).reshape(2, t, d)
        x = x + a @ p["wo"]
        x = x + jax.nn.gelu(ln(x, p["g2"], p["b2"]) @ p["w1"]) @ p["w2"]
        logits = x @ p["emb"].T
        return jax.nn.log_softmax(logits, -1), jnp.argmax(logits, -1)

    check(f, _rng.integers(0, vocab, (2, t)).astype(np.int32), p, reduction=True)


def test_cnn_training_step():
    """One SGD step of a small CNN classifier: conv, max and average
    pooling, dense, log-softmax cross-entropy and their gradients."""
    p = dict(c1=rn(3, 3, 1, 8, scale=0.3), c2=rn(3, 3, 8, 16, scale=0.2), d=rn(7 * 7 * 16, 10, scale=0.05))

    def step(x, p, y):
        def loss(p):
            dn = ("NHWC", "HWIO", "NHWC")
            h = jax.nn.relu(lax.conv_general_dilated(x, p["c1"], (1, 1), "SAME", dimension_numbers=dn))
            h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            h = jax.nn.relu(lax.conv_general_dilated(h, p["c2"], (1, 1), "SAME", dimension_numbers=dn))
            h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
            logits = h.reshape(x.shape[0], -1) @ p["d"]
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))

        l, g = jax.value_and_grad(loss)(p)
        return l, jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

    check(step, rn(4, 28, 28, 1), p, np.array([1, 3, 5, 7], np.int32), reduction=True)


def test_shard_map_collectives_on_one_device():
    """shard_map over a one-device mesh: psum/pmean (all_reduce), all_gather
    and a self ppermute over groups of one device are identities."""
    from jax import shard_map
    from jax.sharding import AxisType
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("a",), axis_types=(AxisType.Auto,))

    def body(a):
        return (lax.psum(a, "a") * 2 + lax.pmean(a, "a") + lax.all_gather(a, "a").sum(0)
                + lax.ppermute(a, "a", perm=[(0, 0)]))

    check(lambda x: shard_map(body, mesh=mesh, in_specs=P("a"), out_specs=P("a"))(x), rn(4, 6))


def test_approx_top_k():
    """lax.approx_max_k/approx_min_k (@ApproxTopK): the exact top-k, as XLA's
    CPU fallback computes it."""
    check(lambda x: (lax.approx_max_k(x, 4), lax.approx_min_k(x, 3)), rn(3, 20))


def test_bf16_and_f16_networks():
    """bf16/f16 matmuls and convolutions sum their products in f32 and round
    once, as XLA does, so they match JAX bit for bit; element-wise ops round
    after every op. (Reductions JAX writes through f32 may differ in the
    last bf16 bit: XLA keeps its f32 intermediates.)"""
    for dt in (jnp.bfloat16, jnp.float16):
        x, w = rn(4, 16).astype(dt), (rn(16, 8) * 0.3).astype(dt)
        img, k = rn(1, 6, 6, 4).astype(dt), (rn(3, 3, 4, 5) * 0.3).astype(dt)

        def f(x, w, img, k):
            y = x @ w
            conv = lax.conv_general_dilated(img, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return y, jax.nn.gelu(y), jax.nn.softmax(y, -1), conv, jnp.exp(x), jnp.tanh(x) * x + 1

        got = compile_jax(f, x, w, img, k).main(x, w, img, k)
        for i, (g, want) in enumerate(zip(got, jax.jit(f)(x, w, img, k))):
            g, want = g.to_host(), np.asarray(want)
            assert g.dtype == want.dtype, f"{dt.__name__} result {i}: {g.dtype} vs {want.dtype}"
            if i == 2:  # softmax: its sum goes through f32, one ulp of the format
                ulp = 2.0**-7 if dt == jnp.bfloat16 else 2.0**-10
                np.testing.assert_allclose(g.astype(np.float32), want.astype(np.float32), rtol=ulp, err_msg="softmax")
            else:
                np.testing.assert_array_equal(g, want, err_msg=f"{dt.__name__} result {i}")


def test_batched_control_flow_and_training_loops():
    """vmap of while/cond (batched predicates), a GRU's gradient through
    scan, an Adam update, einsum's diagonal and multi-operand forms."""

    def vw(x, n):
        one = lambda x, n: lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.5 - 0.2), (0, x))[1]
        return jax.vmap(one)(x, n), jax.vmap(lambda a, b: lax.cond(b > 0, jnp.sin, jnp.cos, a))(x, x - 0.1)

    check(vw, rn(5), np.array([1, 3, 0, 6, 2], np.int32))

    def gru(xs, w):
        def loss(w):
            def cell(h, x):
                r, u, c = jnp.split(jnp.concatenate([x, h], -1) @ w, 3, -1)
                h = (1 - jax.nn.sigmoid(u)) * h + jax.nn.sigmoid(u) * jnp.tanh(c * jax.nn.sigmoid(r))
                return h, h

            return (lax.scan(cell, jnp.zeros((2, 4)), xs)[1] ** 2).mean()

        return jax.value_and_grad(loss)(w)

    check(gru, rn(5, 2, 3), rn(7, 12, scale=0.3), reduction=True)

    def adam(p, g, m, v, t):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        tf = (t + 1).astype(jnp.float32)
        return p - 1e-3 * (m / (1 - 0.9**tf)) / (jnp.sqrt(v / (1 - 0.999**tf)) + 1e-8), m, v

    check(adam, rn(10), rn(10), rn(10), rn(10) ** 2, np.array(3, np.int32))
    check(lambda a, b, c: (jnp.einsum("ii->i", a), jnp.einsum("ii", a), jnp.einsum("bij,jk->bik", b, c),
                           jnp.einsum("bij,bij->b", b, b)), rn(4, 4), rn(3, 4, 5), rn(5, 2), reduction=True)


def test_random_sampling():
    """jax.random samplers: categorical, permutation (sort by random keys),
    choice without replacement, bernoulli, randint, truncated_normal, gamma
    (a while loop per sample)."""

    def f(k):
        key = jax.random.wrap_key_data(k, impl="threefry2x32")
        k1, k2, k3, k4 = jax.random.split(key, 4)
        return (jax.random.categorical(k1, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(6,)),
                jax.random.permutation(k2, 8), jax.random.choice(k3, 10, (4,), replace=False),
                jax.random.bernoulli(k4, 0.3, (5,)), jax.random.randint(k1, (5,), 0, 100),
                jax.random.truncated_normal(k2, -1.0, 1.0, (4,)), jax.random.gamma(k3, 2.0, (3,)))

    check(f, np.array([0, 7], np.uint32))

    # The "rbg" PRNG: rng_bit_generator, and bitcasts between u32 pairs and u64.
    def g(k):
        key = jax.random.wrap_key_data(k, impl="rbg")
        return jax.random.bits(key, (4,)), jax.random.uniform(key, (3,)), jax.random.key_data(jax.random.split(key, 2))

    check(g, np.array([1, 2, 3, 4], np.uint32))


def test_batched_linear_algebra():
    """vmap'd solves and factorizations: the LAPACK calls carry batch
    dimensions and loop over their matrices."""
    a = rn(2, 3, 4, 4)
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    b = rn(2, 3, 4, 2)
    check(lambda a, s, b: (jnp.linalg.solve(a, b), jnp.linalg.cholesky(s), jnp.linalg.det(a),
                           jax.vmap(jax.vmap(lambda m, v: jax.scipy.linalg.solve_triangular(m, v, lower=True)))(s, b)),
          a, spd, b, reduction=True)


def test_bitcast_between_widths():
    """lax.bitcast_convert_type to a narrower or wider type adds or drops a
    trailing dimension (element 0 holds the low bits, as on XLA's CPU)."""
    x = rn(2, 3)

    def f(x, b):
        return (lax.bitcast_convert_type(x, jnp.uint8), lax.bitcast_convert_type(x, jnp.bfloat16),
                lax.bitcast_convert_type(lax.bitcast_convert_type(x, jnp.uint8), jnp.float32),
                lax.bitcast_convert_type(b, jnp.int16), lax.bitcast_convert_type(x.astype(jnp.float16), jnp.int8))

    check(f, x, _rng.integers(0, 255, (5, 2), dtype=np.uint8))
