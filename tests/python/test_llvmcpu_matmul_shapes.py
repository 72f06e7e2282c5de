"""llvm-cpu matrix products on the shapes of MobileNetV2's 1×1 convolutions
and classifier and on the edges of the microkernel's blocking (small K, N
against 32-column blocks with remainders 1..17, M below one 8-row block,
M = 1 with a transposed B, batches, a transposed C), through the whole
pipeline, against float64 numpy (within (K+1) ulps of the sum of product
magnitudes: every k-sum runs in order, with fused multiply-adds) and
against vmvx. Skipped, with the reason, where LLVM 19 is not installed."""

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

pytestmark = pytest.mark.skipif("llvm-cpu" not in ireec.query_available_targets(),
                                reason="llvm-cpu needs LLVM 19 at run time (apt-get install libllvm19 lld-19)")

# (name, M, K, N, layout): "nn" is A[M,K]·B[K,N]; "nt" B given as [N,K]
# (linalg.matmul_transpose_b); "tc" writes C transposed ([N,M]); "b3" is a
# batch of 3.
CASES = [
    ("conv96x16", 96, 16, 300, "nn"),
    ("conv32x27", 32, 27, 196, "nn"),
    ("conv24x144", 24, 144, 100, "nn"),
    ("n49", 40, 160, 49, "nn"),
    ("n196", 24, 96, 196, "nn"),
    ("m1", 1, 33, 7, "nn"),
    ("m5", 5, 40, 100, "nn"),
    ("m13n17", 13, 5, 17, "nn"),
    ("k300", 9, 300, 33, "nn"),
    ("fc", 1, 1280, 100, "nt"),
    ("nt_small", 3, 33, 40, "nt"),
    ("nt_rows", 11, 40, 33, "nt"),
    ("tc", 37, 19, 21, "tc"),
    ("batched", 12, 30, 70, "b3"),
]


def program(name, m, k, n, layout):
    if layout == "nn":
        a, b, c = f"{m}x{k}", f"{k}x{n}", f"{m}x{n}"
        op = f"linalg.matmul ins(%a, %b : tensor<{a}xf32>, tensor<{b}xf32>) outs(%f : tensor<{c}xf32>) -> tensor<{c}xf32>"
    elif layout == "nt":
        a, b, c = f"{m}x{k}", f"{n}x{k}", f"{m}x{n}"
        op = f"linalg.matmul_transpose_b ins(%a, %b : tensor<{a}xf32>, tensor<{b}xf32>) outs(%f : tensor<{c}xf32>) -> tensor<{c}xf32>"
    elif layout == "b3":
        a, b, c = f"3x{m}x{k}", f"3x{k}x{n}", f"3x{m}x{n}"
        op = f"linalg.batch_matmul ins(%a, %b : tensor<{a}xf32>, tensor<{b}xf32>) outs(%f : tensor<{c}xf32>) -> tensor<{c}xf32>"
    else:  # tc: C[n, m] = sum_k A[m, k] B[k, n]
        a, b, c = f"{m}x{k}", f"{k}x{n}", f"{n}x{m}"
        op = (f"linalg.generic {{indexing_maps = [affine_map<(i, j, p) -> (i, p)>, affine_map<(i, j, p) -> (p, j)>, "
              f"affine_map<(i, j, p) -> (j, i)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}} "
              f"ins(%a, %b : tensor<{a}xf32>, tensor<{b}xf32>) outs(%f : tensor<{c}xf32>) {{\n"
              f"  ^bb0(%x: f32, %y: f32, %o: f32):\n    %p = arith.mulf %x, %y : f32\n    %s = arith.addf %o, %p : f32\n"
              f"    linalg.yield %s : f32\n  }} -> tensor<{c}xf32>")
    return f"""
func.func @{name}(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>) -> tensor<{c}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{c}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{c}xf32>) -> tensor<{c}xf32>
  %r = {op}
  return %r : tensor<{c}xf32>
}}
"""


def reference(a, b, layout):
    """The exact product (float64) and the sum of product magnitudes."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if layout == "nt":
        b64 = b64.T
    if layout == "b3":
        return a64 @ b64, np.abs(a64) @ np.abs(b64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    if layout == "tc":
        return exact.T, mag.T
    return exact, mag


def test_matmul_shapes_against_numpy_and_vmvx():
    src = "".join(program(*c) for c in CASES)
    llvm = ireec.compile_str(src, target_backends=["llvm-cpu"])
    vmvx = ireert.load_vm_flatbuffer(ireec.compile_str(src, target_backends=["vmvx"]), driver="local-sync")
    rng = np.random.default_rng(4)
    for name, m, k, n, layout in CASES:
        shape_a = {"b3": (3, m, k)}.get(layout, (m, k))
        shape_b = {"b3": (3, k, n), "nt": (n, k)}.get(layout, (k, n))
        a = rng.standard_normal(shape_a).astype(np.float32)
        b = rng.standard_normal(shape_b).astype(np.float32)
        exact, mag = reference(a, b, layout)
        tol = (k + 1) * mag * 2.0**-24
        want = getattr(vmvx, name)(a, b).to_host()
        assert np.all(np.abs(want - exact) <= tol), f"vmvx {name}"
        for driver in ("local-sync", "local-task"):
            got = getattr(ireert.load_vm_flatbuffer(llvm, driver=driver), name)(a, b).to_host()
            assert got.shape == exact.shape, f"{name} on {driver}: shape {got.shape}"
            err = np.abs(got - exact)
            assert np.all(err <= tol), f"{name} on {driver}: max error {err.max()} (tolerance {tol.min()}..{tol.max()})"
            assert np.all(np.abs(got - want) <= 2 * tol), f"{name} on {driver} differs from vmvx"


def test_static_rows_match_dynamic_rows_bit_for_bit():
    """A product with few static rows gets shorter row tiles than its twin
    with a dynamic row count (so that threads share its workgroups); the
    microkernel sums every element the same way on any tile, so both give
    the same bits, with a fused bias and Relu epilogue too."""
    def prog(rows):
        dim = "%d = tensor.dim %a, %c0 : tensor<?x64xf32>" if rows == "?" else "%d = arith.constant 0 : index"
        empty = "tensor.empty(%d)" if rows == "?" else "tensor.empty()"
        return f"""
func.func @f(%a: tensor<{rows}x64xf32>, %b: tensor<64x49xf32>, %bias: tensor<49xf32>) -> tensor<{rows}x49xf32> {{
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  {dim}
  %e = {empty} : tensor<{rows}x49xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{rows}x49xf32>) -> tensor<{rows}x49xf32>
  %p = linalg.matmul ins(%a, %b : tensor<{rows}x64xf32>, tensor<64x49xf32>) outs(%f : tensor<{rows}x49xf32>) -> tensor<{rows}x49xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}} ins(%p, %bias : tensor<{rows}x49xf32>, tensor<49xf32>) outs(%e : tensor<{rows}x49xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  }} -> tensor<{rows}x49xf32>
  return %r : tensor<{rows}x49xf32>
}}
"""
    dyn = ireec.compile_str(prog("?"), target_backends=["llvm-cpu"])
    rng = np.random.default_rng(9)
    b = rng.standard_normal((64, 49)).astype(np.float32)
    bias = rng.standard_normal(49).astype(np.float32)
    for rows in (300, 45):
        a = rng.standard_normal((rows, 64)).astype(np.float32)
        static = ireec.compile_str(prog(str(rows)), target_backends=["llvm-cpu"])
        for driver in ("local-sync", "local-task"):
            got = ireert.load_vm_flatbuffer(static, driver=driver).f(a, b, bias).to_host()
            want = ireert.load_vm_flatbuffer(dyn, driver=driver).f(a, b, bias).to_host()
            np.testing.assert_array_equal(got, want)
            exact = np.maximum(a.astype(np.float64) @ b + bias, 0)
            assert np.abs(got - exact).max() <= 65 * (np.abs(a) @ np.abs(b) + np.abs(bias)).max() * 2.0**-24
