#!/usr/bin/env python3
"""MobileNetV2 (ONNX, batch 1, f32) on the CPU: gree vs onnxruntime vs IREE,
all measured in this one run, with ratios printed.

  bench/mobilenet.py [--bin DIR] [--iree-python PY] [--threads N]
                     [--repetitions N] [--backends llvm-cpu,vmvx] [--model M.onnx]

- The model is torchvision's mobilenet_v2 with random weights, exported by
  tests/onnx/export_mobilenet_v2.py (needs a Python with torch/torchvision;
  Debian's python3-torchvision through /usr/bin/python3), unless --model.
- gree: `iree-compile model.onnx` (timed: compile time), then
  `iree-benchmark-module --device=local-task`: each repetition is a run of
  two of the tool's repetitions, the first warming the fresh process up,
  and counts the second's real time (IREE's tool alike).
- gree through its Python API (when this Python imports iree_go; the
  library is the package's, or GREE_LIBRARY): the llvm-cpu module loaded
  with iree_go.runtime on local-task in this process and timed as
  onnxruntime is, so that both see the same process and the same moments
  of the machine (each tool run is a fresh process).
- onnxruntime: InferenceSession with intra_op_num_threads = --threads
  (default: the core count, as local-task uses), inter-op 1, timed as the
  benchmark tools time gree and IREE: each of --repetitions repetitions
  runs inferences for at least 0.5 s and counts their mean; the median
  over the repetitions is reported (after warm-up).
- IREE: its PyPI packages iree-base-compiler / iree-base-runtime in a
  separate venv (--iree-python, default bench/.iree-venv/bin/python,
  created on first use with pip): iree-import-onnx + iree-compile for
  llvm-cpu with --iree-llvmcpu-target-cpu=host (timed), then its
  iree-benchmark-module on local-task with --task_topology_max_group_count.
The engines' repetitions are interleaved (one of each in turn), so that on
a shared machine they see the same spells of load; each latency is the
median over its repetitions (the best repetition is printed too). Every engine gets the same random input; outputs are compared with
onnxruntime's (relative L2) so a fast wrong answer does not count.
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from _common import bench_tool_ms, iree_venv_python, rel_l2, timed, timed_rep, tool, torch_python

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def python_api_engine(vmfb, graph, x, want):
    """The engine row of gree's Python API running vmfb in this process, or
    None when iree_go is not importable."""
    try:
        import iree_go.runtime as rt
    except ImportError as e:
        print(f"(no gree Python API row: {e})")
        return None
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    with open(vmfb, "rb") as f:
        ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, f.read()))
    fn = ctx.modules.module[graph]
    xd = rt.asdevicearray(config.device, x)
    got = fn(xd).to_host()
    for _ in range(3):
        fn(xd)
    return ("gree (Python API)", None, rel_l2(got, want), lambda: timed_rep(lambda: fn(xd)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=None, help="directory with gree's tools (default: PATH)")
    ap.add_argument("--iree-python", default=None)
    ap.add_argument("--no-iree", action="store_true", help="skip IREE's packages")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repetitions", type=int, default=10)
    ap.add_argument("--backends", default="llvm-cpu")
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gree-bench-mnv2-") as work:
        run(args, work)


def run(args, work):
    import onnxruntime as ort

    model = args.model
    if not model:
        py = torch_python()
        if not py:
            sys.exit("no Python with torch and torchvision: apt-get install python3-torchvision, or pass --model")
        model = os.path.join(work, "mobilenet_v2.onnx")
        subprocess.run([py, os.path.join(ROOT, "tests", "onnx", "export_mobilenet_v2.py"), model], check=True,
                       capture_output=True)
    import onnx

    graph = onnx.load(model, load_external_data=False).graph.name
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
    xin = os.path.join(work, "x.npy")
    np.save(xin, x)

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"threads: {args.threads}; repetitions: {args.repetitions}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")

    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    want = sess.run(None, feed)[0]
    for _ in range(3):
        sess.run(None, feed)

    # Each engine: (name, compile seconds, rel L2, function timing one repetition).
    engines = [("onnxruntime", None, 0.0, lambda: timed_rep(lambda: sess.run(None, feed)))]
    for be in args.backends.split(","):
        vmfb = os.path.join(work, f"gree_{be}.vmfb")
        ct = timed([tool("iree-compile", args.bin), f"--iree-hal-target-backends={be}", model, "-o", vmfb])
        out = os.path.join(work, f"gree_{be}.npy")
        subprocess.run([tool("iree-run-module", args.bin), "--device=local-task", f"--module={vmfb}",
                        f"--function={graph}", f"--input=@{xin}", f"--output=@{out}"], check=True,
                       capture_output=True)
        cmd = [tool("iree-benchmark-module", args.bin), "--device=local-task", f"--module={vmfb}",
               f"--function={graph}", f"--input=@{xin}", "--benchmark_repetitions=2"]
        engines.append((f"gree {be}", ct, rel_l2(np.load(out), want), lambda cmd=cmd: bench_tool_ms(cmd)))
        if be == "llvm-cpu":
            api = python_api_engine(vmfb, graph, x, want)
            if api:
                engines.append(api)

    if not args.no_iree:
        ipy = iree_venv_python(args.iree_python)
        ibin = os.path.dirname(ipy)
        mlir = os.path.join(work, "iree.mlir")
        vmfb = os.path.join(work, "iree.vmfb")
        it = timed([os.path.join(ibin, "iree-import-onnx"), model, "-o", mlir])
        ct = timed([os.path.join(ibin, "iree-compile"), "--iree-hal-target-backends=llvm-cpu",
                    "--iree-llvmcpu-target-cpu=host", mlir, "-o", vmfb])
        out = os.path.join(work, "iree.npy")
        subprocess.run([os.path.join(ibin, "iree-run-module"), "--device=local-task", f"--module={vmfb}",
                        f"--function={graph}", f"--input=@{xin}", f"--output=@{out}"], check=True,
                       capture_output=True)
        cmd = [os.path.join(ibin, "iree-benchmark-module"), "--device=local-task",
               f"--module={vmfb}", f"--function={graph}", f"--input=@{xin}",
               f"--task_topology_max_group_count={args.threads}", "--benchmark_repetitions=2"]
        engines.append(("IREE llvm-cpu", ct, rel_l2(np.load(out), want), lambda cmd=cmd: bench_tool_ms(cmd)))
        print(f"(IREE's iree-import-onnx took {it:.2f} s more)")

    # Repetitions interleave the engines, so that on a shared machine each
    # sees the same spells of load; each latency is the median over them.
    reps = {e[0]: [] for e in engines}
    for i in range(args.repetitions):
        for name, _, _, rep in engines:
            reps[name].append(rep())
        print(f"repetition {i + 1}: " + "  ".join(f"{name} {reps[name][-1]:.2f} ms" for name in reps), flush=True)
    rows = [(name, float(np.median(reps[name])), ct, err) for name, ct, err, _ in engines]
    ort_ms = rows[0][1]
    best = {name: min(reps[name]) for name in reps}

    print(f"{'engine':<18}{'latency ms':>12}{'× ort':>9}{'best ms':>10}{'× ort':>9}{'compile s':>11}{'rel L2 vs ort':>15}")
    iree_ct = next((r[2] for r in rows if r[0] == "IREE llvm-cpu"), None)
    for name, ms, ct, err in rows:
        cts = "" if ct is None else f"{ct:.2f}"
        b = best[name]
        print(f"{name:<18}{ms:>12.2f}{ms / ort_ms:>8.2f}×{b:>10.2f}{b / best['onnxruntime']:>8.2f}×{cts:>11}{err:>15.2e}")
    for name, ms, ct, err in rows:
        if name.startswith("gree") and ct is None:
            print(f"{name}: latency {ms / ort_ms:.2f}× onnxruntime")
        elif name.startswith("gree") and iree_ct:
            print(f"{name}: compile time {ct / iree_ct:.2f}× IREE's iree-compile; latency {ms / ort_ms:.2f}× onnxruntime")


if __name__ == "__main__":
    main()
