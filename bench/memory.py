#!/usr/bin/env python3
"""Peak host memory of a long program: 20 element-wise and matmul ops on
4096×4096 f32 tensors, against what must be live, in one run.

  bench/memory.py [--bin DIR] [--n 4096] [--ops 20] [--backend llvm-cpu]

- The program (StableHLO, written here) chains the ops on two inputs a, b:
  every fourth op is a matmul by b, the others add a, take tanh, or multiply
  by the value two ops back, so that a later op reads an earlier result.
- gree: `iree-compile` for the backend, then `iree-run-module` on
  local-task with the inputs from .npy files and the result written to one;
  its peak resident set (the child's ru_maxrss) is the figure.
- gree through its Python API (this Python, when it imports iree_go): the
  same module run in a child process from numpy inputs, result read back.
- numpy: the same chain in a child process, the same way (its peak, and the
  answer the others are checked against: relative L2).
- The bound: inputs + output + the two largest live intermediates, all
  n×n f32 (5 tensors: 320 MiB at n=4096). The bar is peak ≤ 1.25× the bound;
  each process's idle size (the same process run on 1×1 tensors) is printed
  too, since it is part of every peak.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

from _common import tool


def chain_src(n, ops):
    t = f"tensor<{n}x{n}xf32>"
    lines = [f"func.func @chain(%a: {t}, %b: {t}) -> {t} {{"]
    prev = "%a"
    for i in range(ops):
        k = i % 4
        if k == 0:
            lines.append(f"  %v{i} = stablehlo.dot {prev}, %b : ({t}, {t}) -> {t}")
        elif k == 1:
            lines.append(f"  %v{i} = stablehlo.add {prev}, %a : {t}")
        elif k == 2:
            lines.append(f"  %v{i} = stablehlo.tanh {prev} : {t}")
        else:
            lines.append(f"  %v{i} = stablehlo.multiply {prev}, %v{i - 2} : {t}")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


NUMPY_CHAIN = textwrap.dedent("""
    import sys, numpy as np
    a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
    ops = int(sys.argv[4])
    vals = []
    prev = a
    for i in range(ops):
        k = i % 4
        if k == 0: v = prev @ b
        elif k == 1: v = prev + a
        elif k == 2: v = np.tanh(prev)
        else: v = prev * vals[i - 2]
        vals.append(v)
        # Keep only what a later op reads (the value two back), as a
        # program that frees what it no longer needs would.
        if len(vals) > 3: vals[-4] = None
        prev = v
    np.save(sys.argv[3], prev)
""")

PYTHON_API = textwrap.dedent("""
    import sys, numpy as np
    import iree_go.runtime as rt
    a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
    m = rt.load_vm_flatbuffer_file(sys.argv[3], driver="local-task")
    np.save(sys.argv[4], m.chain(a, b).to_host())
""")


def run_measured(cmd):
    """Runs cmd as a child and returns its peak resident set in MiB."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, st, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {os.waitstatus_to_exitcode(st)})")
    return ru.ru_maxrss / 1024.0


def rel_l2(x, ref):
    return float(np.linalg.norm((x - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1e-30))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=None, help="directory with gree's tools (default: PATH)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--ops", type=int, default=20)
    ap.add_argument("--backend", default="llvm-cpu")
    args = ap.parse_args()
    compile_tool, run_tool = tool("iree-compile", args.bin), tool("iree-run-module", args.bin)
    n = args.n
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"program: {args.ops} ops (matmul, add, tanh, multiply) on {n}x{n} f32; backend {args.backend}")
    with tempfile.TemporaryDirectory() as d:
        rng = np.random.default_rng(0)
        files = {}
        for size, tag in ((n, "big"), (1, "idle")):
            a = ((rng.random((size, size), np.float32) - 0.5) * (1.0 / size ** 0.5)).astype(np.float32)
            b = ((rng.random((size, size), np.float32) - 0.5) * (2.0 / size ** 0.5)).astype(np.float32)
            np.save(f"{d}/a_{tag}.npy", a)
            np.save(f"{d}/b_{tag}.npy", b)
            src = f"{d}/chain_{tag}.mlir"
            with open(src, "w") as f:
                f.write(chain_src(size, args.ops))
            vmfb = f"{d}/chain_{tag}.vmfb"
            subprocess.run([compile_tool, f"--iree-hal-target-backends={args.backend}", src, "-o", vmfb], check=True)
            files[tag] = (f"{d}/a_{tag}.npy", f"{d}/b_{tag}.npy", vmfb)
        rows = []
        for tag in ("idle", "big"):
            a, b, vmfb = files[tag]
            out = {k: f"{d}/out_{k}_{tag}.npy" for k in ("numpy", "tool", "python")}
            peaks = {
                "numpy": run_measured([sys.executable, "-c", NUMPY_CHAIN, a, b, out["numpy"], str(args.ops)]),
                "tool": run_measured([run_tool, "--device=local-task", f"--module={vmfb}", "--function=chain",
                                      f"--input=@{a}", f"--input=@{b}", f"--output=@{out['tool']}"]),
            }
            try:
                import iree_go  # noqa: F401
                peaks["python"] = run_measured([sys.executable, "-c", PYTHON_API, a, b, vmfb, out["python"]])
            except ImportError:
                pass
            rows.append((tag, peaks, out))
        idle = rows[0][1]
        _, peaks, out = rows[1]
        ref = np.load(out["numpy"])
        bound = 5 * n * n * 4 / 2 ** 20
        print(f"bound (inputs + output + two largest live intermediates): {bound:.0f} MiB")
        print(f"{'engine':28} {'peak MiB':>9} {'idle MiB':>9} {'x bound':>8} {'rel L2 vs numpy':>16}")
        names = {"numpy": "numpy", "tool": "gree iree-run-module", "python": "gree (Python API)"}
        for k in ("numpy", "tool", "python"):
            if k not in peaks:
                continue
            err = rel_l2(np.load(out[k]), ref) if k != "numpy" else 0.0
            print(f"{names[k]:28} {peaks[k]:9.0f} {idle[k]:9.0f} {peaks[k] / bound:7.2f}x {err:16.2e}")


if __name__ == "__main__":
    main()
