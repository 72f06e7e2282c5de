"""The --trace_output timeline: the tools' flag (local-task, and Vulkan on
lavapipe when present), its C switch through Python, and the Python switch
(trace_output, parse_flags). The tools are taken from $GREE_TOOLS_DIR when
set (a fresh build), else from the installed console scripts."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

from conftest import vulkan_unavailable

# Three dispatches: two matmuls (one on a fill) and an elementwise tail.
MODEL = """
func.func @main(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %init = tensor.empty() : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%fill : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e = math.exp %mm : tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = arith.addf %e, %r : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}
"""
INPUTS = ["--input=16x32xf32=0.01", "--input=32x8xf32=0.02", "--input=16x8xf32=1"]


@pytest.fixture(scope="module")
def tools(bin_dir):
    return os.environ.get("GREE_TOOLS_DIR") or bin_dir


def tool(tools, name, *args):
    return subprocess.run([os.path.join(tools, name), *args], capture_output=True, text=True, errors="replace", timeout=300)


def compiled(tools, tmp_path, backend):
    src = tmp_path / "model.mlir"
    src.write_text(MODEL)
    out = tmp_path / f"model_{backend}.vmfb"
    r = tool(tools, "iree-compile", f"--iree-hal-target-backends={backend}", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def load(path):
    """The trace's events, checked against the trace-event format, with
    each event's "process/thread" name."""
    with open(path) as f:
        doc = json.load(f)
    assert doc["displayTimeUnit"] == "ms"
    events = doc["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): procs[e["pid"]] + "/" + e["args"]["name"]
               for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    out = []
    for e in events:
        if e["ph"] == "M":
            continue
        assert e["ph"] == "X" and e["ts"] >= 0 and e["dur"] >= 0, e
        e["track"] = threads[(e["pid"], e["tid"])]
        out.append(e)
    starts = [e["ts"] for e in out]
    assert starts == sorted(starts)
    return out


def check_dispatches(events, track, count):
    ds = [e for e in events if e["cat"] == "dispatch"]
    assert len(ds) == count, [e["name"] for e in events]
    for d in ds:
        assert d["track"] == track and "dispatch" in d["name"], d
        assert d["args"]["workgroups"] >= 1 and d["args"]["binding_bytes"] > 0 and d["args"]["bindings"] >= 2, d
        assert d["args"]["workgroups"] == np.prod(d["args"]["workgroup_count"])
    return ds


def test_run_module_local_task(tools, tmp_path):
    vmfb = compiled(tools, tmp_path, "vmvx")
    trace = tmp_path / "run.json"
    r = tool(tools, "iree-run-module", f"--module={vmfb}", "--device=local-task", *INPUTS, f"--trace_output={trace}")
    assert r.returncode == 0, r.stderr
    events = load(trace)
    ds = check_dispatches(events, "local-task/queue 0", 2)
    (ex,) = [e for e in events if e["name"] == "execute"]
    assert ex["track"] == "local-task/queue 0" and ex["args"]["commands"] == 2
    # The dispatches run inside the queue operation, one after the other.
    assert ex["ts"] <= ds[0]["ts"] and ds[0]["ts"] + ds[0]["dur"] <= ds[1]["ts"]
    assert ds[1]["ts"] + ds[1]["dur"] <= ex["ts"] + ex["dur"] + 0.01


def test_run_module_vulkan(tools, tmp_path):
    why = vulkan_unavailable()
    if why:
        print(f"skipping the Vulkan trace: {why}")
        pytest.skip(why)
    vmfb = compiled(tools, tmp_path, "vulkan-spirv")
    trace = tmp_path / "run.json"
    r = tool(tools, "iree-run-module", f"--module={vmfb}", "--device=vulkan", *INPUTS, f"--trace_output={trace}")
    assert r.returncode == 0, r.stderr
    events = load(trace)
    ds = check_dispatches(events, "vulkan/queue 0", 2)
    assert all(d["args"]["clock"] == "device" for d in ds)
    # The inputs go up through staging copies: one transfer per input.
    ups = [e for e in events if e["name"] == "transfer host->device"]
    assert sorted(e["args"]["bytes"] for e in ups) == [512, 1024, 2048] and all(e["track"] == "vulkan/host transfers" for e in ups)
    (sub,) = [e for e in events if e["name"] == "submission"]
    assert sub["args"]["clock"] == "host" and sub["args"]["commands"] == 2
    # Device-timed dispatches lie within the host's submit→complete span
    # (the clock is placed by it), in order.
    assert sub["ts"] <= ds[0]["ts"] and ds[0]["ts"] + ds[0]["dur"] <= ds[1]["ts"] + 0.01
    assert ds[1]["ts"] + ds[1]["dur"] <= sub["ts"] + sub["dur"] + 1
    # The host waited for the results.
    waits = [e for e in events if e["cat"] == "wait"]
    assert waits and all(w["track"].startswith("host/") for w in waits)
    assert any(w["ts"] <= sub["ts"] + sub["dur"] <= w["ts"] + w["dur"] + 1 for w in waits)


def test_written_on_error(tools, tmp_path):
    vmfb = compiled(tools, tmp_path, "vmvx")
    trace = tmp_path / "run.json"
    r = tool(tools, "iree-run-module", f"--module={vmfb}", "--input=4xf32=1", f"--trace_output={trace}")
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr
    assert load(trace) == []
    r = tool(tools, "iree-run-module", f"--module={vmfb}", *INPUTS, f"--trace_output={tmp_path / 'no' / 'x.json'}")
    assert r.returncode == 1 and "trace file cannot be written" in r.stderr and "NOT_FOUND" in r.stderr


def test_benchmark_module(tools, tmp_path):
    vmfb = compiled(tools, tmp_path, "vmvx")
    trace = tmp_path / "bench.json"
    r = tool(tools, "iree-benchmark-module", f"--module={vmfb}", "--device=local-sync", *INPUTS,
             "--benchmark_min_time=0.05s", f"--trace_output={trace}")
    assert r.returncode == 0, r.stderr
    events = load(trace)
    ds = [e for e in events if e["cat"] == "dispatch"]
    assert len(ds) >= 4 and len(ds) % 2 == 0 and {d["track"] for d in ds} == {"local-sync/queue 0"}


def test_benchmark_module_places_inputs_once(tools, tmp_path):
    """iree-benchmark-module copies its parsed inputs to a GPU's memory once,
    before timing, so that the calls it times do not each copy them."""
    why = vulkan_unavailable()
    if why:
        print(f"skipping the Vulkan benchmark trace: {why}")
        pytest.skip(why)
    vmfb = compiled(tools, tmp_path, "vulkan-spirv")
    trace = tmp_path / "bench.json"
    r = tool(tools, "iree-benchmark-module", f"--module={vmfb}", "--device=vulkan", *INPUTS,
             "--benchmark_min_time=5x", f"--trace_output={trace}")
    assert r.returncode == 0, r.stderr
    events = load(trace)
    calls = len([e for e in events if e["cat"] == "dispatch"]) // 2
    assert calls >= 5
    ups = [e for e in events if e["name"] == "transfer host->device"]
    assert sorted(e["args"]["bytes"] for e in ups) == [512, 1024, 2048], [e["args"] for e in ups]


def run_in_process(driver="local-sync"):
    vmfb = ireec.compile_str(MODEL, target_backends=["vmvx"])
    m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
    a = np.full((16, 32), 0.01, np.float32)
    b = np.full((32, 8), 0.02, np.float32)
    c = np.ones((16, 8), np.float32)
    return np.asarray(m.main(a, b, c))


def test_python_context_manager(tmp_path):
    trace = tmp_path / "py.json"
    assert not ireert.trace_active()
    with ireert.trace_output(trace):
        assert ireert.trace_active()
        with pytest.raises(Exception, match="already being recorded"):
            ireert.trace_begin(tmp_path / "other.json")
        out = run_in_process()
    assert not ireert.trace_active()
    np.testing.assert_allclose(out, np.exp(np.full((16, 8), 0.0064)) + 1.0064, rtol=1e-5)
    check_dispatches(load(trace), "local-sync/queue 0", 2)
    with pytest.raises(Exception, match="NOT_FOUND|trace"):
        ireert.trace_begin(tmp_path / "missing" / "x.json")
    assert not ireert.trace_active()
    ireert.trace_end()  # nothing in progress: a no-op


def test_parse_flags_written_at_exit(tmp_path):
    # A separate interpreter: the flag's trace is written when it exits.
    trace = tmp_path / "flag.json"
    code = (f"import iree_go.runtime as rt, test_trace as t\n"
            f"rt.flags.parse_flags('--trace_output={trace}')\n"
            f"assert rt.trace_active()\n"
            f"t.run_in_process('local-task')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stderr
    check_dispatches(load(trace), "local-task/queue 0", 2)
