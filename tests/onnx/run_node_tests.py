#!/usr/bin/env python3
"""Runs the ONNX backend node tests (shipped in the onnx pip package) through gree.

For each test directory `onnx/backend/test/data/node/<test>/` (model.onnx and
test_data_set_*/input_*.pb, output_*.pb): compile model.onnx with gree
(`iree_go.compiler.compile_file`, which imports the ONNX file in process), run
the function named after the graph on a local device, and compare every output
with the expected one at a tolerance for its element type.

Prints one line per test and a summary by failure class:
  pass, import error, unsupported op, unsupported element type,
  compile error, runtime error, mismatch, crash, timeout.

Each test runs in a worker process (a crash or a hang costs one test, not the
run). Examples:

  python tests/onnx/run_node_tests.py                      # every node test
  python tests/onnx/run_node_tests.py -k 'test_(add|relu)' -j 2
  python tests/onnx/run_node_tests.py --list names.txt --json results.json
  python tests/onnx/run_node_tests.py --backend vulkan-spirv --device vulkan \
      --flag=--iree-vulkan-target=llvmpipe -j 2

With GREE_LIBRARY and PYTHONPATH it runs against a development build.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

CLASSES = ["pass", "import error", "unsupported op", "unsupported element type",
           "compile error", "runtime error", "mismatch", "crash", "timeout"]


def node_test_root():
    import onnx

    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


# Tolerances per numpy dtype kind/size: (rtol, atol). ONNX's own backend
# runner uses rtol=1e-3, atol=1e-7 for every float type; gree's vmvx float
# math is f32, so f16/bf16 get their precision's tolerance.
def tolerance(dtype):
    import numpy as np

    dt = np.dtype(dtype)
    if dt.name in ML_DTYPES and dt.itemsize == 1:
        return 0, 0  # f8/f4 results (casts, quantization) are exact
    if dt.kind == "f" or dt.name in ML_DTYPES:
        if dt.itemsize <= 2:
            return 1e-2, 1e-3
        if dt.itemsize == 4:
            return 1e-3, 1e-5
        return 1e-5, 1e-7
    if dt.kind == "c":
        return 1e-3, 1e-5
    return 0, 0


# ---- the worker: one test per request ---------------------------------------

SUPPORTED_KINDS = "biuf"
# The ml_dtypes types gree's Python runtime passes: bf16, the f8 types and
# f4 (compared through float64) and the sub-byte integers (compared
# exactly; a signless i4 result comes back as int4 and is read as uint4
# where ONNX expects uint4).
ML_DTYPES = {"bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
             "float8_e8m0fnu", "float4_e2m1fn", "int4", "uint4", "int2", "uint2"}


def _classify_compile_error(msg):
    if "unsupported ONNX tensor element type" in msg or "string tensors are not supported" in msg:
        return "unsupported element type"
    if "not a valid ONNX model" in msg or "importing ONNX graph" in msg or "DATA_LOSS" in msg:
        return "import error"
    if re.search(r"element type .* is not supported|unsupported element type", msg):
        return "unsupported element type"
    if re.search(r"onnx\.\w+ .*not supported|unsupported (ONNX )?op|onnx\.\w+.*is not (yet )?supported", msg):
        return "unsupported op"
    return "compile error"


def _first_line(msg):
    for line in str(msg).splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


def run_one(test_dir, backend, device, flags=()):
    """Returns (class, detail) for one node test."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    import iree_go.compiler as ireec
    import iree_go.runtime as ireert

    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path)
    except Exception as e:  # noqa: BLE001
        return "import error", f"onnx.load: {_first_line(e)}"
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.type.WhichOneof("value") != "tensor_type":
            return "unsupported element type", f"{vi.name}: {vi.type.WhichOneof('value')}"
        et = vi.type.tensor_type.elem_type
        if et in (onnx.TensorProto.STRING, onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128):
            return "unsupported element type", f"{vi.name}: {onnx.TensorProto.DataType.Name(et)}"
    try:
        vmfb = ireec.compile_file(model_path, target_backends=[backend], extra_args=list(flags))
    except Exception as e:  # noqa: BLE001 - the class comes from the message
        msg = str(e)
        m = re.search(r"Diagnostics:\n(.*)", msg, re.S)
        detail = _first_line(m.group(1) if m else msg)
        return _classify_compile_error(msg), detail
    inits = {t.name for t in model.graph.initializer}
    in_names = [vi.name for vi in model.graph.input if vi.name not in inits]
    try:
        ctx = ireert.SystemContext(config=ireert.Config(device))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        fn = ctx.modules.module[model.graph.name]
    except Exception as e:  # noqa: BLE001
        return "runtime error", f"load: {_first_line(e)}"
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    if not sets:
        return "runtime error", "no test data sets"
    for ds in sets:
        dsp = os.path.join(test_dir, ds)
        inputs, expected = [], []
        for i in range(len(in_names)):
            p = os.path.join(dsp, f"input_{i}.pb")
            if not os.path.exists(p):
                break
            t = onnx.TensorProto()
            with open(p, "rb") as f:
                t.ParseFromString(f.read())
            inputs.append(numpy_helper.to_array(t))
        i = 0
        while os.path.exists(os.path.join(dsp, f"output_{i}.pb")):
            t = onnx.TensorProto()
            with open(os.path.join(dsp, f"output_{i}.pb"), "rb") as f:
                t.ParseFromString(f.read())
            expected.append(numpy_helper.to_array(t))
            i += 1
        for a in inputs + expected:
            if a.dtype.kind not in SUPPORTED_KINDS and a.dtype.name not in ML_DTYPES:
                return "unsupported element type", f"{a.dtype}"
        try:
            res = fn(*inputs)
        except Exception as e:  # noqa: BLE001
            return "runtime error", _first_line(e)
        if not isinstance(res, tuple):
            res = (res,)
        if len(res) != len(expected):
            return "mismatch", f"{len(res)} results, expected {len(expected)}"
        for k, (got, want) in enumerate(zip(res, expected)):
            got = np.asarray(got.to_host() if hasattr(got, "to_host") else got)
            if got.shape != want.shape:
                return "mismatch", f"{ds} output {k}: shape {got.shape}, expected {want.shape}"
            if want.dtype.kind in "fc" or want.dtype.name in ML_DTYPES and "float" in want.dtype.name:
                rtol, atol = tolerance(want.dtype)
                g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
                w = want.astype(g.dtype)
                if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                    err = np.nanmax(np.abs(g - w)) if g.size else 0
                    return "mismatch", f"{ds} output {k}: max abs error {err:.3g} (rtol {rtol}, atol {atol})"
            elif not np.array_equal(ireert.dtypes.astype(got, want.dtype), want):
                return "mismatch", f"{ds} output {k}: values differ"
    return "pass", f"{len(sets)} data set(s)"


def worker_main(backend, device, flags=()):
    """Reads test directories from stdin, writes one JSON result per line."""
    for line in sys.stdin:
        test_dir = line.strip()
        if not test_dir:
            continue
        try:
            cls, detail = run_one(test_dir, backend, device, flags)
        except Exception as e:  # noqa: BLE001
            cls, detail = "runtime error", f"harness: {_first_line(e)}"
        sys.stdout.write(json.dumps({"class": cls, "detail": detail}) + "\n")
        sys.stdout.flush()


# ---- the driver ---------------------------------------------------------------


class Worker:
    def __init__(self, args):
        self.args = args
        self.proc = None

    def start(self):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker",
               "--backend", self.args.backend, "--device", self.args.device] + [f"--flag={f}" for f in self.args.flags]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run(self, test_dir, timeout):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        import select

        self.proc.stdin.write(test_dir + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return "timeout", f"over {timeout}s"
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            self.proc = None
            return "crash", f"worker exited with status {rc}"
        r = json.loads(line)
        return r["class"], r["detail"]

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def select_tests(args):
    root = args.root or node_test_root()
    names = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    if args.list:
        with open(args.list) as f:
            wanted = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        names = [n for n in wanted if n in set(names)]
    if args.k:
        names = [n for n in names if re.search(args.k, n)]
    return root, names


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-k", help="only tests whose name matches this regular expression")
    p.add_argument("--list", help="a file with test names, one per line")
    p.add_argument("--root", help="the node test directory (default: the installed onnx package's)")
    p.add_argument("--backend", default="vmvx")
    p.add_argument("--device", default="local-task")
    p.add_argument("--flag", dest="flags", action="append", default=[],
                   help="an extra compiler flag (repeatable), e.g. --flag=--iree-vulkan-target=llvmpipe")
    p.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--timeout", type=float, default=120, help="seconds per test")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker_main(args.backend, args.device, args.flags)
        return 0
    root, names = select_tests(args)
    results = {}
    start = time.time()
    import concurrent.futures
    import threading

    local = threading.local()
    workers = []

    def task(name):
        if not hasattr(local, "w"):
            local.w = Worker(args)
            workers.append(local.w)
        t0 = time.time()
        cls, detail = local.w.run(os.path.join(root, name), args.timeout)
        return name, cls, detail, time.time() - t0

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for name, cls, detail, dt in ex.map(task, names):
            results[name] = {"class": cls, "detail": detail, "seconds": round(dt, 3)}
            print(f"{cls.upper():<24} {name} ({dt:.1f}s){': ' + detail if cls != 'pass' else ''}", flush=True)
    for w in workers:
        w.close()
    counts = {c: 0 for c in CLASSES}
    for r in results.values():
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    total = len(results)
    print(f"\n{total} tests in {time.time() - start:.0f}s on {args.backend}/{args.device}")
    for c in CLASSES:
        if counts.get(c):
            print(f"  {c:<26} {counts[c]:5d}  ({100.0 * counts[c] / max(total, 1):.1f}%)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "results": results, "backend": args.backend, "device": args.device}, f, indent=1, sort_keys=True)
    return 0 if counts["pass"] == total else 1


if __name__ == "__main__":
    sys.exit(main())
