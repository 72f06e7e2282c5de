"""iree-compile → iree-run-module end to end, with IREE's I/O formats and
clear errors for bad input."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"


def tool(bin_dir, name, *args, **kw):
    return subprocess.run([os.path.join(bin_dir, name), *args], capture_output=True, text=True, errors="replace", timeout=120, **kw)


@pytest.fixture(scope="module")
def mul_vmfb(bin_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "simple_mul.vmfb"
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", str(SAMPLES / "simple_mul.mlir"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_simple_abs_as_in_the_guide(bin_dir, tmp_path):
    vmfb = tmp_path / "simple_abs_vmvx.vmfb"
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx",
             str(SAMPLES / "simple_abs.mlir"), "-o", str(vmfb))
    assert r.returncode == 0, r.stderr
    for dev in ["local-task", "local-sync"]:
        r = tool(bin_dir, "iree-run-module", f"--module={vmfb}", f"--device={dev}", "--function=abs", "--input=f32=-2")
        assert r.stdout == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=2\n", r.stderr


def test_inputs_outputs_and_expected(bin_dir, mul_vmfb, tmp_path):
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--input=4xf32=1 2 3 4", "--input=4xf32=[4,5,6,7]")
    assert r.stdout == "EXEC @simple_mul\nresult[0]: hal.buffer_view\n4xf32=4 10 18 28\n"
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--input=4xf32=2", "--input=4xf32=3", "--expected_output=4xf32=6")
    assert r.returncode == 0 and "[SUCCESS]" in r.stdout
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--input=4xf32=2", "--input=4xf32=3", "--expected_output=4xf32=7")
    assert r.returncode == 1 and "[FAILED] result[0]" in r.stdout
    npy = tmp_path / "a.npy"
    np.save(npy, np.array([1.5, 2, 3, 4], np.float32))
    out = tmp_path / "out.npy"
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", f"--input=@{npy}", f"--input=@{npy}", f"--output=@{out}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out), np.array([2.25, 4, 9, 16], np.float32))


def test_bad_inputs_are_clear_errors(bin_dir, mul_vmfb):
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--input=4xf32=1")
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr and "simple_mul" in r.stderr
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--input=4xf32=1", "--input=3xf32=1")
    assert r.returncode == 1 and "argument 1" in r.stderr.lower() or "shape" in r.stderr.lower(), r.stderr
    r = tool(bin_dir, "iree-run-module", f"--module={mul_vmfb}", "--function=nope", "--input=4xf32=1", "--input=4xf32=1")
    assert r.returncode == 1 and "NOT_FOUND" in r.stderr and "nope" in r.stderr


def test_corrupt_module_files(bin_dir, mul_vmfb, tmp_path):
    data = mul_vmfb.read_bytes()
    cut = tmp_path / "cut.vmfb"
    cut.write_bytes(data[: len(data) // 2])
    r = tool(bin_dir, "iree-run-module", f"--module={cut}")
    assert r.returncode == 1 and "DATA_LOSS" in r.stderr and "truncated" in r.stderr
    for i in range(60, len(data), 37):
        bad = bytearray(data)
        bad[i] ^= 0xFF
        p = tmp_path / "flip.vmfb"
        p.write_bytes(bytes(bad))
        r = tool(bin_dir, "iree-run-module", f"--module={p}", "--input=4xf32=1", "--input=4xf32=1")
        assert r.returncode in (0, 1), r.stderr  # an error or a harmless flip, never a crash
        assert "panic" not in r.stderr and "goroutine" not in r.stderr
    junk = tmp_path / "junk.vmfb"
    junk.write_bytes(b"\x00" * 100)
    r = tool(bin_dir, "iree-run-module", f"--module={junk}")
    assert r.returncode == 1 and "not a gree module file" in r.stderr


def test_unsupported_op_names_file_line_col(bin_dir, tmp_path):
    src = tmp_path / "u.mlir"
    src.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = foo.bar %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", str(src), "-o", str(tmp_path / "u.vmfb"))
    assert r.returncode == 1
    assert f"{src}:2:" in r.stderr and "foo.bar" in r.stderr


def test_compile_to_phases(bin_dir):
    src = str(SAMPLES / "simple_mul.mlir")
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", "--compile-to=input", src)
    assert r.returncode == 0 and "linalg.generic" in r.stdout
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", "--compile-to=flow", src)
    assert "flow.dispatch.region" in r.stdout
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", "--compile-to=executable-targets", src)
    assert "kernel @simple_mul_dispatch_0" in r.stdout
    r = tool(bin_dir, "iree-compile", "--iree-hal-target-backends=vmvx", "--compile-to=vm", src)
    assert "dispatch exec 0 entry 0" in r.stdout


def test_benchmark_and_dump(bin_dir, mul_vmfb):
    r = tool(bin_dir, "iree-benchmark-module", f"--module={mul_vmfb}", "--input=4xf32=2", "--input=4xf32=3", "--benchmark_min_time=0.05s")
    assert r.returncode == 0, r.stderr
    assert "BM_simple_mul/process_time/real_time" in r.stdout
    # IREE's counters column (one item per call), which iree.runtime.benchmark parses.
    row = next(l for l in r.stdout.splitlines() if l.startswith("BM_simple_mul"))
    assert row.split()[6].startswith("items_per_second=") and "UserCounters..." in r.stdout
    # gree's per-dispatch profile: the one dispatch, counted once per call.
    r = tool(bin_dir, "iree-benchmark-module", f"--module={mul_vmfb}", "--input=4xf32=2", "--input=4xf32=3",
             "--benchmark_min_time=0.05s", "--device=local-sync", "--print_dispatch_statistics")
    assert r.returncode == 0, r.stderr
    rows = [l.split() for l in r.stderr.splitlines() if l.startswith("simple_mul_dispatch_0")]
    assert len(rows) == 1 and int(rows[0][1]) >= 1, r.stderr
    assert "all dispatches" in r.stderr
    r = tool(bin_dir, "iree-dump-module", str(mul_vmfb))
    assert "@arithmetic : version 0" in r.stdout and "simple_mul(0rr_r)" in r.stdout


def test_run_mlir(bin_dir):
    r = tool(bin_dir, "iree-run-mlir", str(SAMPLES / "simple_abs.mlir"), "--input=f32=-5")
    assert r.stdout == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=5\n", r.stderr


def test_cf_assert_fails_the_call_with_its_message(bin_dir, tmp_path):
    """cf.assert on the host: a false condition is FAILED_PRECONDITION with
    the assertion's message (as IREE's VM reports it); a true one runs on."""
    src = tmp_path / "assert.mlir"
    src.write_text("""func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %eq = arith.cmpi eq, %n, %m : index
  cf.assert %eq, "the operands must have the same length"
  %0 = arith.addf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
""")
    vmfb = tmp_path / "assert.vmfb"
    subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=vmvx", str(src), "-o", str(vmfb)], check=True)
    run = os.path.join(bin_dir, "iree-run-module")
    r = subprocess.run([run, f"--module={vmfb}", "--input=3xf32=1 2 3", "--input=2xf32=1 2"], capture_output=True, text=True)
    assert r.returncode == 1 and "FAILED_PRECONDITION; the operands must have the same length" in r.stderr, r.stderr
    r = subprocess.run([run, f"--module={vmfb}", "--input=3xf32=1 2 3", "--input=3xf32=1 2 3"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "3xf32=2 4 6", r.stdout + r.stderr


def test_dynamic_inner_dimensions_are_checked_at_run_time(bin_dir, tmp_path):
    """A matrix product whose inner dimensions are dynamic: sizes that do
    not match are a FAILED_PRECONDITION error naming the operands and the
    op's line, not a product over the shorter length."""
    src = tmp_path / "dynmm.mlir"
    src.write_text("""func.func @mm(%a: tensor<4x?xf32>, %b: tensor<?x6xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x?xf32>, tensor<?x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
""")
    vmfb = tmp_path / "dynmm.vmfb"
    subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=vmvx", str(src), "-o", str(vmfb)], check=True)
    run = os.path.join(bin_dir, "iree-run-module")
    r = subprocess.run([run, f"--module={vmfb}", "--input=4x3xf32=1", "--input=5x6xf32=1"], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout
    assert f"FAILED_PRECONDITION; {src}:2:3: operand shapes do not match at run time: dimension 0 of input 1 (tensor<?x6xf32>) must be equal to dimension 1 of input 0" in r.stderr, r.stderr
    r = subprocess.run([run, f"--module={vmfb}", "--input=4x3xf32=1", "--input=3x6xf32=1"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("4x6xf32=[3 3 3 3 3 3]"), r.stdout + r.stderr


def test_benchmark_executable_times_one_dispatch(bin_dir, mul_vmfb):
    r = tool(bin_dir, "iree-benchmark-executable", f"--executable_file={mul_vmfb}", "--device=local-sync",
             "--binding=4xf32=0", "--binding=4xf32=1,2,3,4", "--binding=4xf32=5,6,7,8",
             "--workgroup_count=1,1,1", "--batch_size=8", "--benchmark_min_time=0.02s")
    assert r.returncode == 0, r.stderr
    row = next(l for l in r.stdout.splitlines() if l.startswith("BM_dispatch_1x1x1/process_time/real_time"))
    assert row.split()[2] == "ns" and row.split()[6].startswith("items_per_second=")
    r = tool(bin_dir, "iree-benchmark-executable", f"--executable_file={mul_vmfb}", "--entry_point=3")
    assert r.returncode == 1 and "out of range" in r.stderr
