"""The installed console scripts behave as IREE's tools do."""

import os
import subprocess

import pytest


def run(bin_dir, tool, *args):
    return subprocess.run([os.path.join(bin_dir, tool), *args], capture_output=True, text=True, timeout=120)


def test_list_drivers_exact(bin_dir):
    r = run(bin_dir, "iree-run-module", "--list_drivers", "--this_flag_is_never_parsed")
    assert r.returncode == 0
    assert r.stdout == (
        "# ============================================================================\n"
        "# Available HAL drivers\n"
        "# ============================================================================\n"
        "# Use --list_devices={driver name} to enumerate available devices.\n"
        "\n"
        "            cuda: NVIDIA CUDA HAL driver (via dylib)\n"
        "             hip: HIP HAL driver (via dylib)\n"
        "      local-sync: Local execution using a lightweight inline synchronous queue\n"
        "      local-task: Local execution using the IREE multithreading task system\n"
        "          vulkan: Vulkan 1.x (dynamic)\n"
    )


def test_list_devices(bin_dir):
    r = run(bin_dir, "iree-run-module", "--list_devices")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert "local-sync://" in lines and "local-task://" in lines
    r = run(bin_dir, "iree-run-module", "--list_devices=local-task")
    assert r.stdout == "local-task://\n"


def test_list_devices_of_missing_driver_is_error(bin_dir):
    r = run(bin_dir, "iree-run-module", "--list_devices=nope")
    assert r.returncode == 1
    assert "no driver 'nope' registered" in r.stderr


def test_dump_devices_local(bin_dir):
    r = run(bin_dir, "iree-run-module", "--dump_devices=local-sync")
    assert r.returncode == 0
    assert r.stdout == (
        "# ============================================================================\n"
        "# Enumerated devices for driver 'local-sync'\n"
        "# ============================================================================\n"
        "\n"
        "# ===----------------------------------------------------------------------===\n"
        "# --device=local-sync://\n"
        "#   default\n"
        "# ===----------------------------------------------------------------------===\n"
    )


def test_unknown_flag_banner(bin_dir):
    r = run(bin_dir, "iree-run-module", "--list-devices")
    assert r.returncode == 1
    assert "FLAGS ERROR" in r.stderr and "list-devices" in r.stderr


def test_help(bin_dir):
    r = run(bin_dir, "iree-run-module", "--help")
    assert r.returncode == 0
    assert r.stdout.startswith("# 👻 IREE: iree-run-module\n")
    assert "--cuda_default_index=0" in r.stdout
    r = run(bin_dir, "iree-compile", "--help")
    assert r.returncode == 0 and "--iree-hal-target-backends" in r.stdout


def test_no_module(bin_dir):
    r = run(bin_dir, "iree-run-module")
    assert r.returncode == 1
    assert "no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin" in r.stderr


def test_compile_list_targets(bin_dir):
    r = run(bin_dir, "iree-compile", "--iree-hal-list-target-backends")
    assert r.returncode == 0
    assert r.stdout.startswith("Registered target backends:\n")


def test_list_devices_of_unavailable_gpu_driver_names_library(bin_dir):
    from conftest import driver_available

    if driver_available("cuda")[0]:
        pytest.skip("cuda is available here; the missing-library message cannot be seen")
    r = run(bin_dir, "iree-run-module", "--list_devices=cuda")
    assert r.returncode == 1
    assert "UNAVAILABLE" in r.stderr and "libcuda.so.1" in r.stderr


def test_cpuinfo_lists_features_as_iree_does(bin_dir):
    r = run(bin_dir, "iree-cpuinfo")
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines()]
    assert rows and all(len(row) == 2 and row[1] in ("0", "1") for row in rows)
    names = [row[0] for row in rows]
    import platform
    if platform.machine() in ("x86_64", "AMD64"):
        assert names[:4] == ["sse3", "ssse3", "sse4.1", "sse4.2"] and "avx512f" in names
        flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
        assert dict(rows)["avx2"] == ("1" if "avx2" in flags else "0")
    r = run(bin_dir, "iree-cpuinfo", "extra")
    assert r.returncode == 1 and "takes no arguments" in r.stderr
