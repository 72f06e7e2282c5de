"""Several targets in one module: compile_str(target_backends=["llvm-cpu",
"vmvx"]) makes one module with an executable variant per target; the
local devices run the first variant whose loader is enabled
(--executable_loaders), with results identical to the module compiled for
that target alone; iree-dump-module lists both variants."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

pytestmark = pytest.mark.skipif("llvm-cpu" not in ireec.query_available_targets(),
                                reason="llvm-cpu is not available (LLVM not installed)")

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"

# A matrix product the CPU targets tile differently (so each variant has
# its own workgroup counts), then tanh; and a row sum over a dynamic
# number of rows.
PROGRAM = """
func.func @mm(%a: tensor<200x64xf32>, %b: tensor<64x300xf32>) -> tensor<200x300xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
  %m = linalg.matmul ins(%a, %b : tensor<200x64xf32>, tensor<64x300xf32>) outs(%f : tensor<200x300xf32>) -> tensor<200x300xf32>
  %r = math.tanh %m : tensor<200x300xf32>
  return %r : tensor<200x300xf32>
}

func.func @rowsum(%x: tensor<?x37xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x37xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x37xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

RNG = np.random.default_rng(7)
A = RNG.standard_normal((200, 64)).astype(np.float32) * 0.3
B = RNG.standard_normal((64, 300)).astype(np.float32) * 0.3
X = RNG.standard_normal((1000, 37)).astype(np.float32)


@pytest.fixture(scope="module")
def modules():
    return {
        "multi": ireec.compile_str(PROGRAM, target_backends=["llvm-cpu", "vmvx"]),
        "llvm-cpu": ireec.compile_str(PROGRAM, target_backends=["llvm-cpu"]),
        "vmvx": ireec.compile_str(PROGRAM, target_backends=["vmvx"]),
    }


@pytest.fixture
def loaders():
    """Sets --executable_loaders for one test, back to all loaders after."""
    yield lambda value: ireert.flags.parse_flags(f"--executable_loaders={value}")
    ireert.flags.parse_flags("--executable_loaders=")


def _run(vmfb, driver):
    m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
    return [np.asarray(m.mm(A, B)), np.asarray(m.rowsum(X))]


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
@pytest.mark.parametrize("selection,target", [("", "llvm-cpu"), ("vmvx", "vmvx"), ("llvm-cpu", "llvm-cpu")])
def test_each_variant_matches_its_single_target_module(modules, loaders, driver, selection, target):
    loaders(selection)
    got = _run(modules["multi"], driver)
    want = _run(modules[target], driver)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.tobytes() == w.tobytes()
    # Against float64 references (tanh's result and a 37-element sum).
    ref = np.tanh(A.astype(np.float64) @ B.astype(np.float64))
    np.testing.assert_allclose(got[0], ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], X.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_disabled_loader_names_the_flag(modules, loaders):
    loaders("vmvx")
    with pytest.raises(Exception, match="--executable_loaders=vmvx"):
        ireert.load_vm_flatbuffer(modules["llvm-cpu"], driver="local-task")
    with pytest.raises(Exception, match="unknown loader"):
        ireert.flags.parse_flags("--executable_loaders=nope")


def tool(bin_dir, name, *args):
    return subprocess.run([os.path.join(bin_dir, name), *args], capture_output=True, text=True, errors="replace", timeout=300)


@pytest.mark.parametrize("flags", [
    ["--iree-hal-target-backends=llvm-cpu,vmvx"],
    ["--iree-hal-target-backends=llvm-cpu", "--iree-hal-target-backends=vmvx"],
    ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu,vmvx"],
])
def test_cli_module_lists_and_runs_both_variants(bin_dir, tmp_path, flags):
    vmfb = tmp_path / "mul.vmfb"
    r = tool(bin_dir, "iree-compile", *flags, str(SAMPLES / "simple_mul.mlir"), "-o", str(vmfb))
    assert r.returncode == 0, r.stderr
    r = tool(bin_dir, "iree-dump-module", "--output=metadata", str(vmfb))
    assert r.returncode == 0, r.stderr
    assert "target: llvm-cpu,vmvx" in r.stdout
    lines = [ln.strip() for ln in r.stdout.splitlines()]
    assert any(ln.startswith("[  0] llvm-cpu-elf:") and ln.endswith("(variant 0 of 2)") for ln in lines), r.stdout
    assert any(ln.startswith("[  1] vmvx-bytecode:") and ln.endswith("(variant 1 of 2)") for ln in lines), r.stdout
    for dev in ["local-sync", "local-task"]:
        for sel in ["", "vmvx", "llvm-cpu"]:
            r = tool(bin_dir, "iree-run-module", f"--module={vmfb}", f"--device={dev}", f"--executable_loaders={sel}",
                     "--input=4xf32=1 2 3 4", "--input=4xf32=2", "--expected_output=4xf32=2 4 6 8")
            assert r.returncode == 0 and "[SUCCESS]" in r.stdout, (dev, sel, r.stdout, r.stderr)


def test_cli_rejects_a_multi_device_module(bin_dir, tmp_path):
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-device=cuda", "--iree-hal-target-device=local",
             "--iree-hal-local-target-device-backends=vmvx", str(SAMPLES / "simple_mul.mlir"), "-o", str(tmp_path / "x.vmfb"))
    assert r.returncode != 0
    assert "multi-device" in r.stderr and "--iree-hal-target-device=cuda,local" in r.stderr, r.stderr
