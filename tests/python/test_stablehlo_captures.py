"""StableHLO regions that use values defined above them (issue 27): JAX
0.10's exported modules (``jax.export``) hoist constants out of region
bodies, so a sort comparator reads the function's NaN and zero constants,
and while/case regions read outer values. gree reads them in every region
it converts (sort comparators, reduce/map/scatter bodies, while and case
regions).

The hand-written module is go/compiler/input/stablehlo/testdata/stablehlo_captures.mlir
(its input-conversion golden file is next to it); here it is compiled for
llvm-cpu (vmvx where no LLVM is found) and run on local-task against values
worked out by hand (IREE 3.13 computes the same). The JAX part exports
programs with ``jax.export`` and compares with JAX's own results; it skips
where jax is not installed.
"""

import os

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.join(HERE, "..", "..", "go", "compiler", "input", "stablehlo", "testdata", "stablehlo_captures.mlir")


def _backend():
    return "llvm-cpu" if "llvm-cpu" in ireec.query_available_targets() else "vmvx"


def _load(text):
    vmfb = ireec.compile_str(text, target_backends=[_backend()])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules


def _host(r):
    rs = r if isinstance(r, tuple) else (r,)
    return [np.asarray(x.to_host() if hasattr(x, "to_host") else x) for x in rs]


@pytest.fixture(scope="module")
def captures():
    with open(CAPTURES) as f:
        return _load(f.read()).captures


def test_sort_comparator_reads_outer_nan_and_zero(captures):
    x = np.array([[3, 1, np.nan, 0, -0.0], [5, -np.inf, 2, 2, 1], [-1, np.nan, 4, 0, -2]], np.float32)
    (got,) = _host(captures.sort_nan(x))
    want = np.array([[0, -0.0, 1, 3, np.nan], [-np.inf, 1, 2, 2, 5], [-2, -1, 0, 4, np.nan]], np.float32)
    np.testing.assert_array_equal(got, want)
    # Stable, with -0 and 0 equal: the first row keeps 0 before -0.
    assert not np.signbit(got[0, 0]) and np.signbit(got[0, 1])


def test_reduce_and_map_bodies_read_outer_values(captures):
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(_host(captures.reduce_scaled(x, np.float32(0.5)))[0], [3.0, 7.5])
    v = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_array_equal(_host(captures.map_offset(v, np.float32(-1)))[0], v * 2 - 1)


def test_while_and_case_regions_read_outer_values(captures):
    n, acc = _host(captures.while_steps(np.ones(3, np.float32), np.int32(3)))
    assert int(n) == 3
    np.testing.assert_array_equal(acc, [2.5, 4, 7])
    x = np.array([1, 2], np.float32)
    for k, want in [(0, [1, 2]), (1, [11, 22]), (2, [10, 20]), (7, [10, 20]), (-1, [10, 20])]:
        np.testing.assert_array_equal(_host(captures.case_pick(np.int32(k), x))[0], want, err_msg=f"index {k}")


def test_scatter_body_reads_outer_constant(captures):
    got = _host(captures.scatter_scaled(np.ones(5, np.float32), np.array([2, -1], np.float32)))[0]
    np.testing.assert_array_equal(got, [1, 7, 1, -2, 1])


# ---- JAX's exported modules ---------------------------------------------------


@pytest.fixture(scope="module")
def jax_export():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    jax = pytest.importorskip("jax", reason="jax is not installed (pip install 'jax[cpu]')")
    from jax import export

    def exported(fn, *args):
        """The text of jax.export's module for fn on args' shapes."""
        specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
        return export.export(jax.jit(fn))(*specs).mlir_module()

    return jax, exported


def _check_jax(jax_export, fn, *args, expect_capture=True):
    jax, exported = jax_export
    text = exported(fn, *args)
    if expect_capture:
        # The comparator reads constants defined outside it, as the issue
        # describes (else this test would not test captures).
        body = text[text.index('"stablehlo.sort"'):]
        body = body[: body.index("}) :")]
        assert "stablehlo.constant" not in body, "JAX kept the constants inside the comparator"
    vmfb = ireec.compile_str(text, target_backends=[_backend()])
    got = _host(ireert.load_vm_flatbuffer(vmfb, driver="local-task").main(*args))
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _nasty(shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::7] = np.nan
    flat[3::11] = 0.0
    flat[5::11] = -0.0
    flat[2::13] = np.inf
    flat[4::17] = -np.inf
    return x


def test_jax_sort_of_nans_and_zeros(jax_export):
    jnp = jax_export[0].numpy
    _check_jax(jax_export, lambda x: jnp.sort(x, axis=-1), _nasty((6, 19), 1))
    _check_jax(jax_export, lambda x: jnp.sort(x, axis=0), _nasty((23, 4), 2))


def test_jax_argsort_and_multi_operand_sort(jax_export):
    jax = jax_export[0]
    jnp = jax.numpy
    x = _nasty((5, 16), 3)
    _check_jax(jax_export, lambda v: jnp.argsort(v, axis=-1, stable=True), x)
    y = np.arange(80, dtype=np.int32).reshape(5, 16)
    _check_jax(jax_export, lambda a, b: jax.lax.sort((a, b), dimension=1, num_keys=1), x, y)


def test_jax_control_flow_export(jax_export):
    jax = jax_export[0]
    jnp = jax.numpy

    def f(x, k):
        def body(c):
            i, acc = c
            return i + 1, jnp.where(jnp.isnan(acc), 0.0, acc) * 0.5 + 1.0

        _, acc = jax.lax.while_loop(lambda c: c[0] < 5, body, (0, x))
        return jax.lax.switch(k, [lambda v: v, lambda v: jnp.sort(v), lambda v: -v], acc)

    x = _nasty((9,), 4)
    for k in (0, 1, 2):
        _check_jax(jax_export, f, x, np.int32(k), expect_capture=False)
