"""Matmuls with a fused element-wise epilogue (bias, clip) on vmvx and
llvm-cpu, local-sync and local-task: where the epilogue runs in place over
the Contract's tile (flow.EpilogueInPlace) and where the dispatch keeps the
raw product in a buffer of its own (fallbacks), checked against float64
numpy references and, bit for bit, against the same product computed by
an unfused epilogue."""

import re

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

# Sizes beyond one Contract tile (vmvx 128x512, llvm-cpu 96x256) with
# partial edge tiles. Bias per output row (a 1x1 convolution's channel).
PROGRAM = """
func.func @mm_bias_clip(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %bias: tensor<150xf32>) -> tensor<150x530xf32> {
  %z = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<150x530xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x530xf32>) -> tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%f : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<150x530xf32>, tensor<150xf32>) outs(%e : tensor<150x530xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %lo = arith.maximumf %s, %z : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<150x530xf32>
  return %r : tensor<150x530xf32>
}

// The raw product is returned too: the bias add is a dispatch of its own.
func.func @mm_used_twice(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %bias: tensor<150xf32>) -> (tensor<150x530xf32>, tensor<150x530xf32>) {
  %z = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<150x530xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x530xf32>) -> tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%f : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<150x530xf32>, tensor<150xf32>) outs(%e : tensor<150x530xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %lo = arith.maximumf %s, %z : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<150x530xf32>
  return %m, %r : tensor<150x530xf32>, tensor<150x530xf32>
}

// The epilogue reads the product transposed.
func.func @mm_bias_transposed(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %bias: tensor<150xf32>) -> tensor<530x150xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<150x530xf32>
  %et = tensor.empty() : tensor<530x150xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x530xf32>) -> tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%f : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (i)>, affine_map<(j, i) -> (j, i)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<150x530xf32>, tensor<150xf32>) outs(%et : tensor<530x150xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<530x150xf32>
  return %r : tensor<530x150xf32>
}

// The epilogue changes the element type: no in-place run (fallback).
func.func @mm_bias_f16(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %bias: tensor<150xf32>) -> tensor<150x530xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<150x530xf32>
  %h = tensor.empty() : tensor<150x530xf16>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x530xf32>) -> tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%f : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<150x530xf32>, tensor<150xf32>) outs(%h : tensor<150x530xf16>) {
  ^bb0(%x: f32, %y: f32, %o: f16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<150x530xf16>
  return %r : tensor<150x530xf16>
}

// Batch matmul starting from a non-zero fill, plus a per-column bias.
func.func @bmm_bias(%a: tensor<3x101x40xf32>, %b: tensor<3x40x300xf32>, %bias: tensor<300xf32>) -> tensor<3x101x300xf32> {
  %c = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<3x101x300xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<3x101x300xf32>) -> tensor<3x101x300xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<3x101x40xf32>, tensor<3x40x300xf32>) outs(%f : tensor<3x101x300xf32>) -> tensor<3x101x300xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>, affine_map<(n, i, j) -> (j)>, affine_map<(n, i, j) -> (n, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<3x101x300xf32>, tensor<300xf32>) outs(%e : tensor<3x101x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x101x300xf32>
  return %r : tensor<3x101x300xf32>
}

// A matmul accumulating into a real tensor, then the bias.
func.func @mm_acc_bias(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %c: tensor<150x530xf32>, %bias: tensor<150xf32>) -> tensor<150x530xf32> {
  %e = tensor.empty() : tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%c : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<150x530xf32>, tensor<150xf32>) outs(%e : tensor<150x530xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<150x530xf32>
  return %r : tensor<150x530xf32>
}

// Bias, then a residual (a ResNet block's skip connection), then a Relu.
func.func @mm_bias_res(%a: tensor<150x70xf32>, %b: tensor<70x530xf32>, %bias: tensor<150xf32>, %res: tensor<150x530xf32>) -> tensor<150x530xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<150x530xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x530xf32>) -> tensor<150x530xf32>
  %m = linalg.matmul ins(%a, %b : tensor<150x70xf32>, tensor<70x530xf32>) outs(%f : tensor<150x530xf32>) -> tensor<150x530xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias, %res : tensor<150x530xf32>, tensor<150xf32>, tensor<150x530xf32>) outs(%e : tensor<150x530xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %w, %s : f32
    %u = arith.maximumf %t, %z : f32
    linalg.yield %u : f32
  } -> tensor<150x530xf32>
  return %r : tensor<150x530xf32>
}
"""


def backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


def inputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((150, 70)).astype(np.float32)
    b = rng.standard_normal((70, 530)).astype(np.float32) * 0.3
    bias = rng.standard_normal(150).astype(np.float32)
    c = rng.standard_normal((150, 530)).astype(np.float32)
    ba = rng.standard_normal((3, 101, 40)).astype(np.float32)
    bb = rng.standard_normal((3, 40, 300)).astype(np.float32)
    bbias = rng.standard_normal(300).astype(np.float32)
    return a, b, bias, c, ba, bb, bbias


def test_flow_returns_the_raw_product_only_for_fallbacks():
    flow = ireec.compile_str(PROGRAM, target_backends=["vmvx"], extra_args=["--compile-to=flow"])
    flow = flow.decode() if isinstance(flow, bytes) else flow
    funcs = re.split(r'sym_name = "', flow)
    returns = {}
    for i, name in enumerate(re.findall(r'sym_name = "(\w+)"', flow)):
        # Each function's body precedes its sym_name attribute.
        body = funcs[i]
        returns[name] = [len(r.split(",")) for r in re.findall(r'"flow.return"\(([^)]*)\)', body)]
    # In place: the matmul region returns the epilogue's result alone.
    assert returns["mm_bias_clip"] == [1, 1], returns
    assert returns["bmm_bias"] == [1, 1], returns
    assert returns["mm_acc_bias"] == [1], returns
    # Fallback: the region returns the product too.
    assert returns["mm_bias_f16"] == [1, 2], returns


@pytest.mark.parametrize("backend", backends())
def test_epilogues_against_numpy_and_unfused(backend):
    a, b, bias, c, ba, bb, bbias = inputs()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    prod = a64 @ b64
    want_clip = np.clip(prod + bias[:, None], 0, 6)
    want_bmm = ba.astype(np.float64) @ bb.astype(np.float64) + 1.5 + bbias
    want_acc = prod + c + bias[:, None]
    vmfb = ireec.compile_str(PROGRAM, target_backends=[backend])
    tol = dict(rtol=1e-5, atol=1e-5)
    for driver in ("local-sync", "local-task"):
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        clip = m.mm_bias_clip(a, b, bias).to_host()
        assert 0 < np.count_nonzero(clip) < clip.size
        np.testing.assert_allclose(clip, want_clip, **tol)
        raw, clip2 = (x.to_host() for x in m.mm_used_twice(a, b, bias))
        np.testing.assert_allclose(raw, prod, **tol)
        # Same product, same bias add: in place or not, identical bits.
        assert np.array_equal(clip, clip2)
        t = m.mm_bias_transposed(a, b, bias).to_host()
        np.testing.assert_allclose(t, (prod + bias[:, None]).T, **tol)
        assert np.array_equal(t.T, raw + bias[:, None])
        h = m.mm_bias_f16(a, b, bias).to_host()
        assert h.dtype == np.float16
        assert np.array_equal(h, (raw + bias[:, None]).astype(np.float16))
        np.testing.assert_allclose(m.bmm_bias(ba, bb, bbias).to_host(), want_bmm, **tol)
        np.testing.assert_allclose(m.mm_acc_bias(a, b, c, bias).to_host(), want_acc, **tol)
        # The residual and the bound, after the same bias add: identical
        # bits to the unfused steps on the raw product.
        res = m.mm_bias_res(a, b, bias, c).to_host()
        assert 0 < np.count_nonzero(res) < res.size
        assert np.array_equal(res, np.maximum(c + (raw + bias[:, None]), np.float32(0)))


def test_llvm_cpu_fuses_epilogues_into_the_contract():
    """On llvm-cpu the bias, residual and bounds run in the Contract's
    stores (kir.ContractBias): no sweep reads the tile back."""
    if "llvm-cpu" not in backends():
        pytest.skip("llvm-cpu needs LLVM 19 at run time (apt-get install libllvm19 lld-19)")
    kir = ireec.compile_str(PROGRAM, target_backends=["llvm-cpu"], extra_args=["--compile-to=executable-targets"])
    kir = kir.decode() if isinstance(kir, bytes) else kir
    contracts = re.findall(r"^\s*contract .*$", kir, re.M)
    assert any(re.search(r"\+ bias b\d+\[.*\] per row max \S+ min \S+$", c) for c in contracts), contracts
    assert any(re.search(r"\+ bias b\d+\[.*\] per column$", c) for c in contracts), contracts
    assert any(re.search(r"\+ bias b\d+\[.*\] per row \+ b\d+\[.*\] max \S+$", c) for c in contracts), contracts


def test_targets_agree():
    if len(backends()) < 2:
        pytest.skip("llvm-cpu needs LLVM 19 at run time (apt-get install libllvm19 lld-19)")
    a, b, bias, *_ = inputs()
    got = [ireert.load_vm_flatbuffer(ireec.compile_str(PROGRAM, target_backends=[be]), driver="local-task").mm_bias_clip(a, b, bias).to_host()
           for be in backends()]
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6, atol=1e-6)
