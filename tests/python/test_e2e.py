"""The project's self-checking e2e programs (tests/e2e/*.mlir) compile for
vmvx and pass under iree-check-module on local-sync and local-task."""

import os
import pathlib
import subprocess
import sys

import pytest

E2E = pathlib.Path(__file__).resolve().parents[1] / "e2e"


@pytest.mark.parametrize("path", sorted(E2E.glob("*.mlir")), ids=lambda p: p.name)
def test_check_file(bin_dir, path):
    r = subprocess.run(
        [sys.executable, str(E2E / "run_check_tests.py"), str(path.parent), "--bin", bin_dir, "--devices", "local-sync,local-task"],
        capture_output=True, text=True, timeout=600,
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
