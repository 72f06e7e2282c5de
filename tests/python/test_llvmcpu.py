"""The llvm-cpu target through the Python API: compile_str with
target_backends=["llvm-cpu"] and its flags, modules run on local-sync and
local-task, checked against float64 numpy references and against vmvx.
Skipped, with the reason, where no LLVM is found."""

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

pytestmark = pytest.mark.skipif("llvm-cpu" not in ireec.query_available_targets(),
                                reason="llvm-cpu needs LLVM at run time (pip install llvmlite, or apt-get install libllvm19 lld-19)")

PROGRAM = """
func.func @mlp(%x: tensor<33x70xf32>, %w: tensor<70x45xf32>, %b: tensor<45xf32>) -> tensor<33x45xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x45xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<33x45xf32>) -> tensor<33x45xf32>
  %m = linalg.matmul ins(%x, %w : tensor<33x70xf32>, tensor<70x45xf32>) outs(%f : tensor<33x45xf32>) -> tensor<33x45xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<33x45xf32>, tensor<45xf32>) outs(%e : tensor<33x45xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    %y = arith.maximumf %t, %z : f32
    linalg.yield %y : f32
  } -> tensor<33x45xf32>
  return %r : tensor<33x45xf32>
}

func.func @rowsum(%x: tensor<17x300xf32>) -> tensor<17xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<17xf32>) -> tensor<17xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<17x300xf32>) outs(%f : tensor<17xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    %s = arith.addf %ex, %o : f32
    linalg.yield %s : f32
  } -> tensor<17xf32>
  return %r : tensor<17xf32>
}

func.func @ints(%a: tensor<100xi32>, %b: tensor<100xi32>) -> tensor<100xi32> {
  %e = tensor.empty() : tensor<100xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<100xi32>, tensor<100xi32>) outs(%e : tensor<100xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %d = arith.divsi %x, %y : i32
    %m = arith.muli %d, %y : i32
    %s = arith.subi %x, %m : i32
    linalg.yield %s : i32
  } -> tensor<100xi32>
  return %r : tensor<100xi32>
}
"""


def inputs():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((33, 70)).astype(np.float32)
    w = rng.standard_normal((70, 45)).astype(np.float32) * 0.2
    b = rng.standard_normal(45).astype(np.float32)
    r = rng.standard_normal((17, 300)).astype(np.float32)
    ia = rng.integers(-1000, 1000, 100).astype(np.int32)
    ib = rng.integers(1, 30, 100).astype(np.int32) * rng.choice([-1, 1], 100).astype(np.int32)
    return x, w, b, r, ia, ib


@pytest.mark.parametrize("cpu", ["host", "generic"])
def test_llvm_cpu_against_numpy_and_vmvx(cpu):
    x, w, b, r, ia, ib = inputs()
    want_mlp = np.maximum(np.tanh(x.astype(np.float64) @ w.astype(np.float64) + b), 0)
    want_sum = np.exp(r.astype(np.float64)).sum(axis=1)
    want_int = np.fmod(ia, ib)
    vmfb = ireec.compile_str(PROGRAM, target_backends=["llvm-cpu"], extra_args=[f"--iree-llvmcpu-target-cpu={cpu}"])
    ref = ireert.load_vm_flatbuffer(ireec.compile_str(PROGRAM, target_backends=["vmvx"]), driver="local-sync")
    for driver in ("local-sync", "local-task"):
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        mlp = m.mlp(x, w, b).to_host()
        np.testing.assert_allclose(mlp, want_mlp, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(mlp, ref.mlp(x, w, b).to_host(), rtol=1e-5, atol=1e-6)
        s = m.rowsum(r).to_host()
        np.testing.assert_allclose(s, want_sum, rtol=2e-6)
        # Same reduction order as vmvx: identical bits.
        assert np.array_equal(s, ref.rowsum(r).to_host())
        assert np.array_equal(m.ints(ia, ib).to_host(), want_int)


def test_llvm_cpu_flags_and_errors():
    with pytest.raises(ireec.CompilerToolError, match="x86_64 and aarch64"):
        ireec.compile_str(PROGRAM, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-triple=riscv64-unknown-linux-gnu"])
    # An aarch64 module compiles here; an x86-64 host refuses to load it.
    arm = ireec.compile_str(PROGRAM, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-triple=aarch64-unknown-linux-gnu"])
    import platform
    if platform.machine() in ("x86_64", "AMD64"):
        with pytest.raises(Exception, match="built for aarch64"):
            ireert.load_vm_flatbuffer(arm, driver="local-sync").mlp(*inputs()[:3])
