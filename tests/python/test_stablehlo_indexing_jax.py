"""StableHLO gather, scatter, sort, top_k and select_and_scatter programs
exported by JAX compile with gree and agree with JAX's own results (an
independent implementation) on local-sync and local-task."""

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not installed (optional: StableHLO programs are exported with it)")
jax.config.update("jax_platforms", "cpu")
jnp = jax.numpy
lax = jax.lax

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

RNG = np.random.default_rng(7)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _maxpool_grad(x, w, padding):
    def loss(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 3), (1, 2, 2), padding)
        return jnp.sum(y * w)

    return jax.grad(loss)(x)


def _vmapped_scatter(x, i, u):
    return jax.vmap(lambda a, j, v: a.at[j].add(v))(x, i, u)


def _vmapped_gather(x, i):
    return jax.vmap(lambda a, j: a[j])(x, i)


X = _f32(6, 5)
ROWS = np.array([4, 0, -1, 2, 4, 1, 5], dtype=np.int32)
COLS = np.array([3, 3, 0, 1], dtype=np.int32)
DUPS = np.array([1, 3, 1, 1, 0, 3, 5], dtype=np.int32)
TIES = np.array([[3, 1, 2, 1, 3, 0, 2, 1], [5, 5, 4, 4, 9, 9, 0, 0]], dtype=np.int32)
NANS = np.array([[0.5, np.nan, -0.0, 0.0, -np.inf, 2.0, np.inf, -3.5]], dtype=np.float32)
POOL = _f32(2, 7, 9)

CASES = {
    # Gathers: row and column takes (negative indices wrap, out-of-range clamps), point gathers.
    "take_rows": (lambda x, i: x[i], (X, ROWS)),
    "take_cols": (lambda x, i: x[:, i], (X, COLS)),
    "take_clip": (lambda x, i: x.at[i * 3].get(mode="clip"), (X, ROWS)),
    "take_fill": (lambda x, i: x.at[i * 2].get(mode="fill", fill_value=-7.0), (X, ROWS)),
    "points": (lambda x, i, j: x[i, j], (X, ROWS[:4], COLS)),
    "take_along_axis": (lambda x, i: jnp.take_along_axis(x, i, axis=1), (X, RNG.integers(0, 5, (6, 3)).astype(np.int32))),
    "vmap_gather": (_vmapped_gather, (_f32(4, 7, 3), np.array([6, 0, 2, 5], dtype=np.int32))),
    "dynamic_slice": (lambda x, i: lax.dynamic_slice(x, (i, 1), (3, 2)), (X, np.int32(4))),
    # Scatters: repeated indices combine in order; set/add/max/min/mul; windows; dropped out-of-range updates.
    "scatter_add_dups": (lambda x, i, u: x.at[i].add(u), (X, DUPS, _f32(7, 5))),
    "scatter_set_rows": (lambda x, i, u: x.at[i].set(u), (X, np.array([5, 0, 2], dtype=np.int32), _f32(3, 5))),
    "scatter_max": (lambda x, i, u: x.at[i].max(u), (X, DUPS, _f32(7, 5))),
    "scatter_min_cols": (lambda x, i, u: x.at[:, i].min(u), (X, COLS, _f32(6, 4))),
    "scatter_mul_points": (lambda x, i, j, u: x.at[i, j].multiply(u), (X, ROWS[:4], COLS, _f32(4))),
    "scatter_drop": (lambda x, i, u: x.at[i * 2].add(u, mode="drop"), (X, ROWS, _f32(7, 5))),
    "scatter_int": (lambda x, i, u: x.at[i].add(u), (np.arange(8, dtype=np.int32), DUPS, np.arange(7, dtype=np.int32) * 10)),
    "vmap_scatter": (_vmapped_scatter, (_f32(3, 6), np.array([5, 0, 2], dtype=np.int32), _f32(3))),
    "segment_sum": (lambda u, s: jax.ops.segment_sum(u, s, num_segments=4), (_f32(9, 2), np.array([0, 3, 3, 1, 0, 2, 3, 1, 1], dtype=np.int32))),
    # Sorts: any axis, NaN and signed zeros in total order, stable argsort with ties, several operands.
    "sort_axis0": (lambda x: jnp.sort(x, axis=0), (X,)),
    "sort_axis1": (lambda x: jnp.sort(x, axis=1), (X,)),
    "sort_nans": (lambda x: jnp.sort(x, axis=1), (NANS,)),
    "argsort_ties": (lambda x: jnp.argsort(x, axis=1, stable=True), (TIES,)),
    "argsort_desc": (lambda x: jnp.argsort(-x, axis=1, stable=True), (TIES,)),
    "sort_keyed": (lambda k, v: lax.sort((k, v), dimension=1, num_keys=1), (TIES, _f32(2, 8))),
    "sort_uint8": (lambda x: jnp.sort(x, axis=0), (RNG.integers(0, 255, (17, 2)).astype(np.uint8),)),
    "sort_f16": (lambda x: jnp.sort(x), (_f32(40).astype(np.float16),)),
    "sort_f8": (lambda x: jnp.sort(x), ((_f32(40) * 3).astype(jnp.float8_e4m3fn),)),
    "top_k": (lambda x: lax.top_k(x, 3), (_f32(4, 9),)),
    "top_k_ties": (lambda x: lax.top_k(x, 4), (TIES,)),
    "top_k_nans": (lambda x: lax.top_k(x, 5), (NANS,)),
    # Library functions built on them (index_vector_dim left at its default, multi-key sorts).
    "searchsorted": (lambda a, v: jnp.searchsorted(a, v), (np.sort(_f32(20)), _f32(7))),
    "sort_two_keys": (lambda a, b, c: lax.sort((a, b, c), dimension=0, num_keys=2), (RNG.integers(0, 3, 30).astype(np.int32), RNG.integers(0, 3, 30).astype(np.int32), np.arange(30, dtype=np.float32))),
    "median": (lambda x: jnp.median(x, axis=1), (_f32(5, 33),)),
    "unique": (lambda x: jnp.unique(x, size=6, fill_value=-1), (RNG.integers(0, 5, 20).astype(np.int32),)),
    "bincount": (lambda x: jnp.bincount(x, length=8), (RNG.integers(0, 8, 50).astype(np.int32),)),
    "scatter_3d": (lambda x, i, u: x.at[i[:, 0], :, i[:, 1]].add(u), (_f32(4, 3, 5), RNG.integers(0, 4, (6, 2)).astype(np.int32), _f32(6, 3))),
    "gather_3d": (lambda x, i: x[i[:, 0], 1:, i[:, 1]], (_f32(4, 3, 5), RNG.integers(0, 4, (6, 2)).astype(np.int32))),
    "argsort_long": (lambda x: jnp.argsort(x), (_f32(3000),)),
    "top_k_long": (lambda x: lax.top_k(x, 10), (_f32(3, 500),)),
    # Inside control flow, and at embedding-table sizes.
    "fori_scatter": (lambda x: lax.fori_loop(0, 4, lambda i, x: x.at[(i * 3) % 5].add(x[i]), x), (_f32(5),)),
    "while_sort": (lambda x: lax.while_loop(lambda c: c[1] < 3, lambda c: (jnp.sort(c[0] * -1.0), c[1] + 1), (x, 0))[0], (_f32(40),)),
    "cond_gather": (lambda x, p: lax.cond(p > 0, lambda: x[jnp.array([2, 0])], lambda: x[jnp.array([1, 1])]), (_f32(4), np.int32(1))),
    "embedding_lookup": (lambda t, i: t[i] * 2.0, (_f32(1000, 64), RNG.integers(0, 1000, 300).astype(np.int32))),
    "embedding_grad": (lambda t, i, g: t.at[i].add(g), (_f32(1000, 64), RNG.integers(0, 1000, 300).astype(np.int32), _f32(300, 64))),
    # select_and_scatter (the gradient of max pooling), with and without padding.
    "maxpool_grad_valid": (lambda x, w: _maxpool_grad(x, w, "VALID"), (POOL, _f32(2, 3, 4))),
    "maxpool_grad_same": (lambda x, w: _maxpool_grad(x, w, "SAME"), (POOL, _f32(2, 4, 5))),
}


@pytest.fixture(scope="module")
def modules():
    return {}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_matches_jax(name, driver, modules):
    fn, args = CASES[name]
    if name not in modules:
        text = jax.jit(fn).lower(*args).as_text()
        modules[name] = ireec.compile_str(text, target_backends=["vmvx"], input_type="stablehlo")
    m = ireert.load_vm_flatbuffer(modules[name], driver=driver)
    got = m.main(*[np.asarray(a) for a in args])
    want = jax.jit(fn)(*args)
    if not isinstance(want, (tuple, list)):
        want, got = (want,), (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g.to_host() if hasattr(g, "to_host") else g)
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if np.issubdtype(w.dtype, np.floating):
            # Sums of a few f32 products in the same order: within a few ulps.
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, equal_nan=True)
            assert np.array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0])), "signed zeros differ"
        else:
            np.testing.assert_array_equal(g, w)
