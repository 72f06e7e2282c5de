"""The project's self-checking e2e programs (tests/e2e/*.mlir) compile for
vmvx and llvm-cpu, and for vmvx with the GPU strategy of a target with
subgroup operations (llvmpipe) and one without (IREE's default Vulkan
profile): thread-level kernels run by the CPU drivers. All pass under
iree-check-module on local-sync and local-task. They also compile for
vulkan-spirv, for lavapipe's target and for IREE's default profile (with
--iree-input-demote-f64-to-f32, as IREE's own Vulkan test configurations
pass: the profile has no Float64), and pass on the vulkan driver (Mesa's
lavapipe in CI); those configurations skip, saying why, where no Vulkan
device exists."""

import os
import pathlib
import subprocess
import sys

import pytest
from conftest import vulkan_unavailable

E2E = pathlib.Path(__file__).resolve().parents[1] / "e2e"


def llvm_cpu_available(bin_dir, env=None):
    out = subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-list-target-backends"], capture_output=True, text=True,
                         env=dict(os.environ, **(env or {}))).stdout
    return "  llvm-cpu\n" in out


CPU_DEVICES = "local-sync,local-task"

# llvm-cpu with the LLVM inside llvmlite (the pip install route) and gree's
# own linker, as on a machine without libllvm19 and lld-19.
LLVMLITE_ENV = {"GREE_LLVM": "llvmlite", "GREE_LINKER": "gree"}

# name: (backend, run_check_tests.py flags, devices[, environment])
CONFIGS = {
    "vmvx": ("vmvx", [], CPU_DEVICES),
    "llvm-cpu": ("llvm-cpu", [], CPU_DEVICES),
    "llvm-cpu-llvmlite": ("llvm-cpu", [], CPU_DEVICES, LLVMLITE_ENV),
    "vmvx-gpu-strategy-llvmpipe": ("vmvx", ["--flag=--gree-test-gpu-strategy=llvmpipe"], CPU_DEVICES),
    "vmvx-gpu-strategy-android-baseline": ("vmvx", ["--flag=--gree-test-gpu-strategy=vp_android_baseline_2022"], CPU_DEVICES),
    "vulkan-llvmpipe": ("vulkan-spirv", ["--flag=--iree-vulkan-target=llvmpipe"], "vulkan"),
    "vulkan-android-baseline": ("vulkan-spirv", ["--flag=--iree-input-demote-f64-to-f32"], "vulkan"),
}


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("path", sorted(E2E.glob("*.mlir")), ids=lambda p: p.name)
def test_check_file(bin_dir, path, config):
    backend, flags, devices, *env = CONFIGS[config]
    env = env[0] if env else {}
    if backend == "llvm-cpu" and not llvm_cpu_available(bin_dir, env):
        pytest.skip("llvm-cpu needs LLVM at run time (pip install llvmlite, or apt-get install libllvm19 lld-19)")
    if devices == "vulkan" and (why := vulkan_unavailable()):
        pytest.skip(why)
    r = subprocess.run(
        [sys.executable, str(E2E / "run_check_tests.py"), str(path), "--bin", bin_dir, "--backend", backend, *flags, "--devices", devices],
        capture_output=True, text=True, timeout=900, env=dict(os.environ, **env),
    )
    lines = [l for l in r.stdout.splitlines() if l.endswith(str(path)) or str(path) + "  --" in l]
    assert lines, r.stdout + r.stderr
    assert all(l.startswith("PASS") for l in lines), "\n".join(lines)


def test_failing_check_reports_and_exits_nonzero(bin_dir, tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(
        """func.func @wrong() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.addf %a, %a : tensor<2xf32>
  check.expect_almost_eq_const(%b, dense<[2.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
"""
    )
    vmfb = tmp_path / "bad.vmfb"
    subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=vmvx", str(src), "-o", str(vmfb)], check=True)
    r = subprocess.run([os.path.join(bin_dir, "iree-check-module"), f"--module={vmfb}"], capture_output=True, text=True)
    assert r.returncode == 1
    assert "[ RUN      ] module.wrong" in r.stdout
    assert "[  FAILED  ] module.wrong" in r.stdout
    assert "The first failure occurs at index 1 as the lhs value 4 differs from the rhs value 5" in r.stdout
    r = subprocess.run([os.path.join(bin_dir, "iree-check-module"), f"--module={vmfb}", "--expect_failure"], capture_output=True, text=True)
    assert r.returncode == 0 and "Test failed as expected" in r.stdout


def test_llvm_cpu_without_llvm_names_what_to_install(bin_dir, tmp_path):
    # Neither the system's libLLVM nor llvmlite's.
    env = dict(os.environ, GREE_LIBLLVM=str(tmp_path / "no-libLLVM.so"), GREE_LLVM="system")
    out = subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-list-target-backends"], capture_output=True, text=True, env=env).stdout
    assert "llvm-cpu" not in out and "vmvx" in out
    r = subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=llvm-cpu", str(E2E / "elementwise.mlir"), "-o", str(tmp_path / "x.vmfb")],
                       capture_output=True, text=True, env=env)
    assert r.returncode != 0
    assert "libllvm19" in r.stderr and "lld-19" in r.stderr and "pip install llvmlite" in r.stderr, r.stderr


def test_llvm_cpu_through_llvmlite_and_gree_linker(bin_dir, tmp_path):
    """The pip route: llvmlite's LLVM, found from the installed package, and
    gree's linker (ld.lld hidden) build a module that runs."""
    pytest.importorskip("llvmlite")
    env = dict(os.environ, GREE_LLVM="llvmlite", GREE_LLD=str(tmp_path / "no-ld.lld"))
    env.pop("GREE_LIBLLVMLITE", None)
    r = subprocess.run([os.path.join(bin_dir, "iree-compile"), "--version"], capture_output=True, text=True, env=env)
    assert "(llvmlite" in r.stdout and "gree's linker" in r.stdout, r.stdout + r.stderr
    vmfb = tmp_path / "mul.vmfb"
    subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=llvm-cpu",
                    str(E2E.parents[1] / "samples" / "simple_mul.mlir"), "-o", str(vmfb)], check=True, env=env)
    r = subprocess.run([os.path.join(bin_dir, "iree-run-module"), f"--module={vmfb}", "--device=local-task",
                        "--input=4xf32=1 2 3 4", "--input=4xf32=4 5 6 7"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "4xf32=4 10 18 28"


def test_llvm_cpu_module_records_target_and_agrees_with_vmvx(bin_dir, tmp_path):
    if not llvm_cpu_available(bin_dir):
        pytest.skip("llvm-cpu needs LLVM 19 at run time (apt-get install libllvm19 lld-19)")
    src = tmp_path / "f.mlir"
    src.write_text(
        """func.func @f(%a: tensor<37x19xf32>, %b: tensor<19x23xf32>) -> tensor<37x23xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x23xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<37x23xf32>) -> tensor<37x23xf32>
  %m = linalg.matmul ins(%a, %b : tensor<37x19xf32>, tensor<19x23xf32>) outs(%c : tensor<37x23xf32>) -> tensor<37x23xf32>
  %t = math.tanh %m : tensor<37x23xf32>
  return %t : tensor<37x23xf32>
}
"""
    )
    import numpy as np
    rng = np.random.default_rng(0)
    a = rng.standard_normal((37, 19)).astype(np.float32)
    b = rng.standard_normal((19, 23)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    outs = {}
    for backend in ("vmvx", "llvm-cpu"):
        vmfb = tmp_path / f"{backend}.vmfb"
        subprocess.run([os.path.join(bin_dir, "iree-compile"), f"--iree-hal-target-backends={backend}", str(src), "-o", str(vmfb)], check=True)
        for device in ("local-sync", "local-task"):
            out = tmp_path / f"{backend}-{device}.npy"
            subprocess.run([os.path.join(bin_dir, "iree-run-module"), f"--module={vmfb}", f"--device={device}", "--function=f",
                            f"--input=@{tmp_path / 'a.npy'}", f"--input=@{tmp_path / 'b.npy'}", f"--output=@{out}"], check=True, capture_output=True)
            outs[backend, device] = np.load(out)
    want = np.tanh(a.astype(np.float64) @ b.astype(np.float64))
    for key, got in outs.items():
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str(key))
    np.testing.assert_allclose(outs["llvm-cpu", "local-sync"], outs["vmvx", "local-sync"], rtol=1e-5, atol=1e-6)
    assert np.array_equal(outs["llvm-cpu", "local-sync"], outs["llvm-cpu", "local-task"])
    dump = subprocess.run([os.path.join(bin_dir, "iree-dump-module"), str(tmp_path / "llvm-cpu.vmfb")], capture_output=True, text=True, check=True).stdout
    assert "llvmcpu.target_cpu:" in dump and "llvm-cpu-elf" in dump


@pytest.mark.parametrize("target,env,flags", [
    ("llvmpipe", "vulkan1.3", []),
    ("vp_android_baseline_2022", "vulkan1.1", ["--iree-input-demote-f64-to-f32"]),
], ids=["llvmpipe", "android-baseline"])
def test_vulkan_spirv_modules_pass_spirv_val(bin_dir, tmp_path, target, env, flags):
    """Every SPIR-V module iree-compile writes for tests/e2e (dumped with
    --iree-hal-dump-executable-binaries-to) passes spirv-val for the
    target's Vulkan environment."""
    import shutil

    val = shutil.which("spirv-val")
    if not val:
        pytest.skip("spirv-val is not installed (apt-get install spirv-tools)")
    dump = tmp_path / "spv"
    for src in sorted(E2E.glob("*.mlir")):
        subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=vulkan-spirv", f"--iree-vulkan-target={target}",
                        *flags, f"--iree-hal-dump-executable-binaries-to={dump / src.stem}", str(src), "-o", str(tmp_path / "m.vmfb")], check=True)
    modules = sorted(dump.rglob("*.spv"))
    assert len(modules) > 100
    bad = []
    for m in modules:
        r = subprocess.run([val, "--target-env", env, str(m)], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{m.relative_to(dump)}: {r.stdout}{r.stderr}")
    assert not bad, "\n".join(bad[:5])
