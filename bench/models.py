#!/usr/bin/env python3
"""A model set on the CPU: gree's llvm-cpu vs onnxruntime vs IREE's release,
accuracy, latency, compile time and compile memory, all measured in one run.

  bench/models.py [--models resnet18,gru,...] [--bin DIR] [--threads N]
                  [--repetitions N] [--no-iree] [--iree-python PY]
                  [--dynamic-batch] [--keep DIR]

- Each model is exported by bench/export_models.py (random weights, opset
  17, batch 1) under a Python with torch and torchvision (Debian's CPU
  builds through /usr/bin/python3, or GREE_TORCH_PYTHON).
- gree: `iree-compile --iree-hal-target-backends=llvm-cpu model.onnx`
  (timed; its peak RSS from wait4, against the model's weight bytes), then
  the module loaded with iree_go.runtime on local-task and timed as
  onnxruntime is (each repetition: calls for >= 0.5 s, their mean).
- onnxruntime: InferenceSession, intra-op threads = --threads, inter-op 1.
- Each engine runs in a worker process of its own (this script with
  --worker), kept for the model's repetitions: one engine's threads (say,
  onnxruntime's spinning intra-op pool) never share a process with the
  other's. --dynamic-batch runs both in this process.
- IREE: iree-base-compiler/-runtime from PyPI in a separate venv
  (bench/.iree-venv, made on first use): iree-import-onnx + iree-compile
  --iree-llvmcpu-target-cpu=host (compile time counts both), then its
  iree-benchmark-module on local-task, each repetition a fresh process whose
  second benchmark repetition counts; and the same module through IREE's
  Python API (iree.runtime, the venv's interpreter running this script as a
  worker, timed as gree's is), the like-for-like comparison of a Python
  user's calls.
- Repetitions interleave the engines; a latency is the median over them.
  Outputs are compared with onnxruntime's (relative L2; classifiers also
  top-1), so a fast wrong answer does not count.
- --dynamic-batch exports the models with a dynamic batch instead, compiles
  each once, and runs it at batch 1, 4 and 16 against onnxruntime on the same
  export (accuracy and latency per batch; IREE is skipped).

The summary gives, over the models that ran, the geometric mean and the
worst of gree's latency against onnxruntime's and IREE's.
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from _common import MODELS, bench_tool_ms, iree_venv_python, rel_l2, timed_rep, tool, torch_python

HERE = os.path.dirname(os.path.abspath(__file__))


# Runs argv[2:] and writes its peak RSS (KiB) to the pipe fd argv[1]. A child's ru_maxrss
# starts from its parent's RSS when it is forked (Linux carries the old
# address space's high-water mark across exec), so the tool is started by
# this small fresh interpreter, not by the benchmark's large process.
_RSS_WRAPPER = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
os.write(int(sys.argv[1]), str(usage.ru_maxrss).encode())
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(cmd):
    """Runs cmd; returns (seconds, peak RSS in bytes). Raises with the
    command's last stderr lines when it fails."""
    r, w = os.pipe()
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", _RSS_WRAPPER, str(w), *cmd], stderr=subprocess.PIPE, text=True,
                       pass_fds=(w,))
    dt = time.perf_counter() - t
    os.close(w)
    with os.fdopen(r) as f:
        rss = f.read()
    if p.returncode != 0:
        lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
        raise RuntimeError(" | ".join(lines[-2:])[:300] or f"exit {p.returncode}")
    return dt, int(rss) * 1024


def export(py, name, out, dynamic):
    cmd = [py, os.path.join(HERE, "export_models.py"), name, out]
    if dynamic:
        cmd.append("--dynamic-batch")
    subprocess.run(cmd, check=True, capture_output=True)
    with open(out[:-5] + ".json") as f:
        return json.load(f)


def make_inputs(meta, batch=None, seed=0):
    rng = np.random.default_rng(seed)
    xs = []
    for shape, dtype in meta["inputs"]:
        shape = [batch or shape[0]] + shape[1:]
        if dtype == "int64":
            xs.append(rng.integers(0, 1000, size=shape, dtype=np.int64))
        else:
            xs.append(rng.standard_normal(shape, dtype=np.float32))
    return xs


class Ort:
    def __init__(self, model, threads):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        self.names = [i.name for i in self.sess.get_inputs()]
        self.graph = self.sess.get_modelmeta().graph_name

    def call(self, xs):
        return self.sess.run(None, dict(zip(self.names, xs)))[0]


class Gree:
    """A compiled module on local-task through iree_go.runtime, in process
    (through iree.runtime, IREE's own, with iree: the same API)."""

    def __init__(self, vmfb, graph, iree=False):
        if iree:
            import iree.runtime as rt
        else:
            import iree_go.runtime as rt

        self.rt = rt
        self.config = rt.Config("local-task")
        self.ctx = rt.SystemContext(config=self.config)
        with open(vmfb, "rb") as f:
            self.ctx.add_vm_module(rt.VmModule.copy_buffer(self.ctx.instance, f.read()))
        self.fn = self.ctx.modules.module[graph]

    def prepare(self, xs):
        return [self.rt.asdevicearray(self.config.device, x) for x in xs]

    def call(self, ds):
        r = self.fn(*ds)
        return r[0] if isinstance(r, (tuple, list)) else r


class Worker:
    """An engine in a process of its own (see worker_main): started on a
    model, it writes the model's output for the inputs to out and then
    answers each "rep" with one repetition's time in ms."""

    def __init__(self, kind, model, inputs, out, threads, graph="", python=None):
        cmd = [python or sys.executable, os.path.abspath(__file__), "--worker", kind, model, out, str(threads), graph, *inputs]
        # stderr goes to a file: a pipe nobody reads could fill and stall the worker.
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.p.stdout.readline().strip()
        if not line.startswith("ready"):
            self.p.wait()
            self.err.seek(0)
            err = self.err.read().strip().splitlines()
            raise RuntimeError(" | ".join(err[-2:])[:300] or f"{kind} worker exited {self.p.returncode}")
        self.graph = line[len("ready"):].strip()

    def rep(self):
        self.p.stdin.write("rep\n")
        self.p.stdin.flush()
        return float(self.p.stdout.readline())

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait()
        self.err.close()


def worker_main(argv):
    """--worker KIND MODEL OUT THREADS GRAPH INPUT.npy...: see Worker."""
    kind, model, out, threads, graph, *inputs = argv
    xs = [np.load(p) for p in inputs]
    if kind == "ort":
        eng = Ort(model, int(threads))
        graph = eng.graph
        call = lambda: eng.call(xs)
        first = call()
    else:
        g = Gree(model, graph, iree=kind == "iree")
        ds = g.prepare(xs)
        call = lambda: g.call(ds)
        first = call().to_host()
        for _ in range(2):
            call()
    np.save(out, np.asarray(first))
    print("ready", graph, flush=True)
    for line in sys.stdin:
        if line.strip() == "rep":
            print(timed_rep(call), flush=True)


def accuracy(got, want, classifier):
    err = rel_l2(np.asarray(got), want)
    if classifier:
        return err, bool(np.array_equal(np.argmax(got, axis=-1), np.argmax(want, axis=-1)))
    return err, None


def bench_static(args, name, work, py, gree_bin):
    """One row (in a list): a dict of the model's measurements or errors."""
    model = os.path.join(work, f"{name}.onnx")
    meta = export(py, name, model, False)
    xs = make_inputs(meta)
    row = {"model": name, "weights": meta["weight_bytes"]}
    ins = []
    for i, x in enumerate(xs):
        p = os.path.join(work, f"{name}.in{i}.npy")
        np.save(p, x)
        ins.append(p)
    workers = []
    try:
        ort = Worker("ort", model, ins, os.path.join(work, f"{name}.ort.npy"), args.threads)
        workers.append(ort)
        want = np.load(os.path.join(work, f"{name}.ort.npy"))
        engines = {"ort": ort.rep}

        vmfb = os.path.join(work, f"{name}.vmfb")
        try:
            row["gree_compile_s"], row["gree_rss"] = run_measured(
                [tool("iree-compile", gree_bin), "--iree-hal-target-backends=llvm-cpu", model, "-o", vmfb])
            out = os.path.join(work, f"{name}.gree.npy")
            g = Worker("gree", vmfb, ins, out, args.threads, ort.graph)
            workers.append(g)
            row["gree_err"], row["gree_top1"] = accuracy(np.load(out), want, meta["classifier"])
            engines["gree"] = g.rep
        except Exception as e:  # a model that does not compile or run is a row, not the end
            row["gree_fail"] = str(e)

        if not args.no_iree:
            ipy = iree_venv_python(args.iree_python)
            ibin = os.path.dirname(ipy)
            mlir, ivmfb = os.path.join(work, f"{name}.mlir"), os.path.join(work, f"{name}.iree.vmfb")
            try:
                ti, _ = run_measured([os.path.join(ibin, "iree-import-onnx"), model, "-o", mlir])
                tc, rss = run_measured([os.path.join(ibin, "iree-compile"), "--iree-hal-target-backends=llvm-cpu",
                                        "--iree-llvmcpu-target-cpu=host", mlir, "-o", ivmfb])
                row["iree_compile_s"], row["iree_rss"] = ti + tc, rss
                iins = [f"--input=@{p}" for p in ins]
                out = os.path.join(work, f"{name}.iree.npy")
                subprocess.run([os.path.join(ibin, "iree-run-module"), "--device=local-task", f"--module={ivmfb}",
                                f"--function={ort.graph}", *iins, f"--output=@{out}"], check=True, capture_output=True)
                row["iree_err"], row["iree_top1"] = accuracy(np.load(out), want, meta["classifier"])
                cmd = [os.path.join(ibin, "iree-benchmark-module"), "--device=local-task", f"--module={ivmfb}",
                       f"--function={ort.graph}", *iins, f"--task_topology_max_group_count={args.threads}",
                       "--benchmark_repetitions=2"]
                engines["iree"] = lambda: bench_tool_ms(cmd)
            except Exception as e:
                row["iree_fail"] = str(e)[:300]
            if "iree_fail" not in row:
                try:
                    ip = Worker("iree", ivmfb, ins, os.path.join(work, f"{name}.ireepy.npy"), args.threads,
                                ort.graph, python=ipy)
                    workers.append(ip)
                    engines["ireepy"] = ip.rep
                except Exception as e:
                    row["ireepy_fail"] = str(e)[:300]

        reps = {k: [] for k in engines}
        for _ in range(args.repetitions):
            for k, rep in engines.items():
                reps[k].append(rep())
        for k, v in reps.items():
            row[f"{k}_ms"] = float(np.median(v))
    finally:
        for w in workers:
            w.close()
    return [row]


def bench_dynamic(args, name, work, py, gree_bin):
    """Rows of one dynamic-batch export, one per batch size."""
    model = os.path.join(work, f"{name}.dyn.onnx")
    meta = export(py, name, model, True)
    ort = Ort(model, args.threads)
    vmfb = os.path.join(work, f"{name}.dyn.vmfb")
    rows = []
    try:
        ct, rss = run_measured([tool("iree-compile", gree_bin), "--iree-hal-target-backends=llvm-cpu",
                                model, "-o", vmfb])
        g = Gree(vmfb, ort.graph)
    except Exception as e:
        return [{"model": name, "batch": "any", "gree_fail": str(e)}]
    for batch in (1, 4, 16):
        xs = make_inputs(meta, batch)
        want = ort.call(xs)
        row = {"model": name, "batch": batch, "gree_compile_s": ct, "gree_rss": rss,
               "weights": meta["weight_bytes"]}
        try:
            ds = g.prepare(xs)
            row["gree_err"], row["gree_top1"] = accuracy(g.call(ds).to_host(), want, meta["classifier"])
            reps = {"ort": [], "gree": []}
            for _ in range(args.repetitions):
                reps["ort"].append(timed_rep(lambda: ort.call(xs)))
                reps["gree"].append(timed_rep(lambda: g.call(ds)))
            row["ort_ms"], row["gree_ms"] = (float(np.median(reps[k])) for k in ("ort", "gree"))
        except Exception as e:
            row["gree_fail"] = str(e)[:300]
        rows.append(row)
    return rows


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def report(rows, dynamic):
    head = f"{'model':<20}" + (f"{'batch':>6}" if dynamic else "") + \
        f"{'ort ms':>9}{'gree ms':>9}{'×ort':>7}{'IREE ms':>9}{'gree×IREE':>10}{'IREEpy':>8}{'×IREEpy':>8}" \
        f"{'rel L2':>10}{'top1':>6}" \
        f"{'compile s':>10}{'×IREE':>7}{'RSS MiB':>9}{'×wts':>6}"
    print(head)
    for r in rows:
        g, o, i, ip = r.get("gree_ms"), r.get("ort_ms"), r.get("iree_ms"), r.get("ireepy_ms")
        line = f"{r['model']:<20}" + (f"{r['batch']!s:>6}" if dynamic else "")
        if "gree_fail" in r:
            print(line + f"{fmt(o, '.2f'):>9}  gree failed: {r['gree_fail'][:150]}")
            continue
        top1 = r.get("gree_top1")
        ct, ict = r.get("gree_compile_s"), r.get("iree_compile_s")
        rss = r.get("gree_rss")
        line += (f"{fmt(o, '.2f'):>9}{fmt(g, '.2f'):>9}{fmt(g and o and g / o, '.2f'):>7}"
                 f"{fmt(i, '.2f'):>9}{fmt(g and i and g / i, '.2f'):>10}{fmt(ip, '.2f'):>8}{fmt(g and ip and g / ip, '.2f'):>8}"
                 f"{fmt(r.get('gree_err'), '.1e'):>10}"
                 f"{'-' if top1 is None else ('yes' if top1 else 'NO'):>6}"
                 f"{fmt(ct, '.1f'):>10}{fmt(ct and ict and ct / ict, '.2f'):>7}"
                 f"{fmt(rss and rss / 2**20, '.0f'):>9}{fmt(rss and rss / r['weights'], '.1f'):>6}")
        print(line)
        if "iree_fail" in r:
            print(f"{'':<20}IREE failed: {r['iree_fail'][:150]}")
        if "ireepy_fail" in r:
            print(f"{'':<20}IREE's Python API failed: {r['ireepy_fail'][:150]}")
    ok = [r for r in rows if r.get("gree_ms") and r.get("ort_ms")]
    if ok:
        ratios = [r["gree_ms"] / r["ort_ms"] for r in ok]
        gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
        worst = max(ok, key=lambda r: r["gree_ms"] / r["ort_ms"])
        print(f"gree vs onnxruntime over {len(ok)} rows: geometric mean {gm:.2f}×, "
              f"worst {worst['gree_ms'] / worst['ort_ms']:.2f}× ({worst['model']})")
    for key, against in (("iree_ms", "IREE"), ("ireepy_ms", "IREE through its Python API")):
        vs = [r for r in ok if r.get(key)]
        if vs:
            ratios = [r["gree_ms"] / r[key] for r in vs]
            gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
            behind = [r["model"] for r in vs if r["gree_ms"] > r[key]]
            print(f"gree vs {against} over {len(vs)} rows: geometric mean {gm:.2f}×; behind on: "
                  f"{', '.join(behind) or 'none'}")
    failed = [r["model"] for r in rows if "gree_fail" in r]
    if failed:
        print(f"gree failed on: {', '.join(failed)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--bin", default=None, help="directory with gree's tools (default: PATH)")
    ap.add_argument("--iree-python", default=None)
    ap.add_argument("--no-iree", action="store_true", help="skip IREE's packages")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--dynamic-batch", action="store_true")
    ap.add_argument("--keep", default=None, help="keep exports and modules in this directory")
    args = ap.parse_args()
    py = torch_python()
    if not py:
        sys.exit("no Python with torch and torchvision: apt-get install python3-torchvision")
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        sys.exit(f"unknown models {unknown}; known: {', '.join(MODELS)}")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; threads: "
          f"{args.threads}; repetitions: {args.repetitions}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="gree-bench-models-") as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        rows = []
        for name in names:
            t = time.time()
            got = (bench_dynamic if args.dynamic_batch else bench_static)(args, name, work, py, args.bin)
            rows.extend(got)
            print(f"({name}: {time.time() - t:.0f} s)", flush=True)
        report(rows, args.dynamic_batch)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker_main(sys.argv[2:])
    else:
        main()
