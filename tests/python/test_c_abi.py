"""The C example links the installed libgree.so and lists drivers."""

import os
import subprocess

import pytest

from conftest import build_c_example
from iree_go import _capi

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return build_c_example("list_devices", tmp_path_factory.mktemp("c"))


def run(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_c_example_lists_drivers(example):
    out = run(example)
    assert out.startswith("gree 0.1.0 (C ABI 1)\ndrivers:\n")
    names = [l.split(":")[0].strip() for l in out.splitlines() if l.startswith("  ") and not l.startswith("    ")]
    assert names == ["cuda", "hip", "local-sync", "local-task", "vulkan"]
    assert "  local-task: Local execution using the IREE multithreading task system\n" \
           "    local-task://  device_id=0  name=default\n" \
           "    default device: local-task\n" in out
    assert "unknown driver: NOT_FOUND (NOT_FOUND; no driver 'no-such-driver' registered" in out


def test_c_example_reports_missing_libraries(example):
    out = run(example, "hip")
    if "(driver creation failed" in out:
        assert "libamdhip64.so" in out


def test_header_matches_library_exports():
    # Every function the header declares is exported by the library.
    import re
    with open(os.path.join(REPO, "include", "gree.h")) as f:
        header = f.read()
    declared = set(re.findall(r"\b(gree_[a-z_0-9]+)\(", header))
    out = subprocess.run(["nm", "-D", "--defined-only", _capi.library_path],
                         capture_output=True, text=True, check=True).stdout
    exported = set(re.findall(r" T (gree_[a-z_0-9]+)$", out, re.M))
    assert declared - exported == set()
    # Private helpers stay hidden.
    assert not [s for s in exported if s.startswith("gree__")]


def test_c_program_runs_a_module(tmp_path):
    import iree_go.compiler as ireec

    exe = build_c_example("run_module", tmp_path)
    vmfb = tmp_path / "mul.vmfb"
    with open(os.path.join(REPO, "samples", "simple_mul.mlir")) as f:
        vmfb.write_bytes(ireec.compile_str(f.read(), target_backends=["vmvx"]))
    out = run(exe, str(vmfb), "arithmetic", "simple_mul")
    assert out == ("export simple_mul(0rr_r)\n"
                   "result[0]: hal.buffer_view\n4xf32=4 10 18 28\n"
                   "bad call: INVALID_ARGUMENT\n")
