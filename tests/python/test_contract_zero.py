"""Matmuls whose accumulator starts as a +0 fill: codegen drops the fill
loop and marks the Contract "C starts at zero" (printed `contract ... =`
instead of `+=`), on vmvx and llvm-cpu, local-sync and local-task. Checked
against float64 numpy, including K = 0 (the tile must still be written
with zeros), an edge-tile shape, the one-row GEMV, and sign of zero: a
-0.0 fill keeps the plain accumulate (its sums of -0 products stay -0)
while a +0 fill gives +0."""

import re

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert


def matmul(name, m, k, n, fill):
    return f"""
func.func @{name}(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %z = arith.constant {fill} : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


SHAPES = {"wide": (150, 16, 530), "deep": (37, 600, 45), "gemv": (1, 70, 300), "k0": (13, 0, 29)}
PROGRAM = "".join(matmul(n, *s, "0.0") for n, s in SHAPES.items()) + matmul("negzero", 5, 3, 40, "-0.0")


def backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


def test_zero_fill_becomes_the_contract_flag():
    text = ireec.compile_str(PROGRAM, target_backends=["vmvx"], extra_args=["--compile-to=executable-targets"])
    text = text.decode() if isinstance(text, bytes) else text
    contracts = re.findall(r"contract b\d+\[[^]]*\] \* b\d+\[[^]]*\] (\+?=) ", text)
    # One Contract per function: C = A·B for the +0 fills, C += A·B for -0.
    assert sorted(contracts) == ["+="] + ["="] * len(SHAPES), contracts


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_zero_start_against_numpy(backend, driver):
    mod = ireert.load_vm_flatbuffer(ireec.compile_str(PROGRAM, target_backends=[backend]), driver=driver)
    rng = np.random.default_rng(11)
    for name, (m, k, n) in SHAPES.items():
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        want = a.astype(np.float64) @ b.astype(np.float64)
        for _ in range(3):  # repeated calls: buffers may be reused with stale contents
            got = np.asarray(mod[name](a, b).to_host())
            assert got.shape == (m, n)
            if k == 0:
                assert np.array_equal(got.view(np.uint32), np.zeros((m, n), np.uint32)), name
            else:
                err = np.abs(got - want).max() / np.abs(want).max()
                assert err < 1e-5, (name, err)
    # All products -0: a +0 start gives +0 (as adding them to a zero-filled
    # C did), a -0 fill keeps -0.
    a = np.full((5, 3), -0.0, np.float32)
    b = np.ones((3, 40), np.float32)
    assert not np.signbit(np.asarray(mod["wide"](np.full((150, 16), -0.0, np.float32), np.ones((16, 530), np.float32)).to_host())).any()
    assert np.signbit(np.asarray(mod["negzero"](a, b).to_host())).all()
