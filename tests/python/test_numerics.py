"""Numerics bar: element-wise f32 math agrees with numpy's float64 result
rounded to f32 (1e-6 relative, or a couple of ulps near zero); reductions and
matmuls within tolerances scaled by the reduction length; bf16 through
ml_dtypes."""

import ml_dtypes
import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

N = 4099  # not a multiple of the vector width: the remainder loop runs too

UNARY = ["exp", "log", "sqrt", "tanh", "sin", "cos", "erf", "log1p", "expm1", "atan", "cbrt"]


def _module(src):
    return ireert.load_vm_flatbuffer(ireec.compile_str(src, target_backends=["vmvx"]), driver="local-task")


@pytest.fixture(scope="module")
def unary_module():
    fns = "\n".join(
        f"func.func @{op}(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{\n"
        f"  %0 = math.{op} %x : tensor<{N}xf32>\n  return %0 : tensor<{N}xf32>\n}}"
        for op in UNARY
    )
    return _module(fns)


def _reference(op, x):
    import math

    x64 = x.astype(np.float64)
    if op == "erf":
        return np.array([math.erf(v) for v in x64])
    if op == "cbrt":
        return np.cbrt(x64)
    return getattr(np, {"atan": "arctan"}.get(op, op))(x64)


@pytest.mark.parametrize("op", UNARY)
def test_unary_math_matches_float64(unary_module, op):
    rng = np.random.default_rng(7)
    lo, hi = {"log": (1e-3, 50), "sqrt": (0, 100), "log1p": (-0.9, 20), "exp": (-20, 20), "expm1": (-5, 5)}.get(op, (-6, 6))
    x = rng.uniform(lo, hi, N).astype(np.float32)
    got = getattr(unary_module, op)(x).to_host()
    want = _reference(op, x).astype(np.float32)
    tiny = np.finfo(np.float32).tiny
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    tol = 1e-6 * np.abs(want.astype(np.float64)) + 2 * np.spacing(np.abs(want)).astype(np.float64) + tiny
    assert np.all(err <= tol), (op, x[np.argmax(err - tol)], got[np.argmax(err - tol)], want[np.argmax(err - tol)])


def test_reduction_and_matmul_tolerances():
    k = 1537
    m = _module(f"""
func.func @sum(%a: tensor<3x{k}xf32>) -> tensor<3xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.reduce ins(%a : tensor<3x{k}xf32>) outs(%f : tensor<3xf32>) dimensions = [1]
    (%in: f32, %init: f32) {{
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }}
  return %s : tensor<3xf32>
}}
func.func @mm(%a: tensor<33x{k}xf32>, %b: tensor<{k}x65xf32>) -> tensor<33x65xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x65xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<33x65xf32>) -> tensor<33x65xf32>
  %r = linalg.matmul ins(%a, %b : tensor<33x{k}xf32>, tensor<{k}x65xf32>) outs(%f : tensor<33x65xf32>) -> tensor<33x65xf32>
  return %r : tensor<33x65xf32>
}}
""")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, k)).astype(np.float32)
    s = m.sum(a).to_host()
    bound = k * np.finfo(np.float32).eps * np.abs(a).astype(np.float64).sum(axis=1)
    assert np.all(np.abs(s - a.astype(np.float64).sum(axis=1)) <= bound)
    x = rng.standard_normal((33, k)).astype(np.float32)
    y = rng.standard_normal((k, 65)).astype(np.float32)
    r = m.mm(x, y).to_host()
    ref = x.astype(np.float64) @ y.astype(np.float64)
    bound = k * np.finfo(np.float32).eps * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    assert np.all(np.abs(r - ref) <= bound)


def test_bf16_through_ml_dtypes():
    m = _module("""
func.func @scale(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %c = arith.constant dense<2.0> : tensor<8xbf16>
  %0 = arith.mulf %x, %c : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}
""")
    x = np.array([1, 2.5, -3, 0.125, 100, 7, 1e-3, 3.14159], dtype=ml_dtypes.bfloat16)
    out = m.scale(x)
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(out.to_host(), (x.astype(np.float32) * 2).astype(ml_dtypes.bfloat16))
