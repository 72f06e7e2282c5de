"""The runtime tools cross-build for linux/arm64 without cgo (purego loads
libvulkan/libcuda at run time there too), and the arm64 iree-run-module runs
a module compiled on this machine under qemu-user when it is installed
(apt-get install qemu-user libc6-arm64-cross), giving the same answer.

android/arm64 needs cgo (purego's dlopen on Android goes through bionic),
so it builds only with the Android NDK's clang as CC; see the README."""

import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
RUNTIME_TOOLS = ["iree-run-module", "iree-check-module", "iree-benchmark-module", "iree-dump-module"]
ARM64_SYSROOT = "/usr/aarch64-linux-gnu"


def go_tool():
    return shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)


@pytest.fixture(scope="module")
def arm64_tools(tmp_path_factory):
    go = go_tool()
    if not go:
        pytest.skip("no Go toolchain on PATH")
    out = tmp_path_factory.mktemp("linux-arm64")
    env = dict(os.environ, GOOS="linux", GOARCH="arm64", CGO_ENABLED="0")
    r = subprocess.run([go, "build", "-trimpath", "-o", str(out) + os.sep, *[f"./go/cmd/{t}" for t in RUNTIME_TOOLS]],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return out


def test_runtime_tools_build_for_linux_arm64_without_cgo(arm64_tools):
    for t in RUNTIME_TOOLS:
        head = (arm64_tools / t).read_bytes()[:20]
        assert head[:4] == b"\x7fELF", t
        assert int.from_bytes(head[18:20], "little") == 183, f"{t} is not an AArch64 executable"  # EM_AARCH64


def test_arm64_run_module_under_qemu(arm64_tools, bin_dir, tmp_path):
    qemu = shutil.which("qemu-aarch64")
    if not qemu or not os.path.exists(os.path.join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1")):
        pytest.skip("qemu-user and libc6-arm64-cross are not installed (apt-get install qemu-user libc6-arm64-cross)")
    vmfb = tmp_path / "simple_mul.vmfb"
    subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=vmvx",
                    str(REPO / "samples" / "simple_mul.mlir"), "-o", str(vmfb)], check=True)
    env = dict(os.environ, QEMU_LD_PREFIX=ARM64_SYSROOT)
    r = subprocess.run([qemu, str(arm64_tools / "iree-run-module"), "--list_drivers"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "vulkan: Vulkan 1.x (dynamic)" in r.stdout
    r = subprocess.run([qemu, str(arm64_tools / "iree-run-module"), f"--module={vmfb}", "--device=local-task",
                        "--input=4xf32=1 2 3 4", "--input=4xf32=4 5 6 7"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "4xf32=4 10 18 28"
