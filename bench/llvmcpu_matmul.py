#!/usr/bin/env python3
"""f32 matmul 1024^3 on gree's llvm-cpu target (local-task) against numpy
(OpenBLAS) in the same run, with vmvx alongside for reference.

  bench/llvmcpu_matmul.py [--bin DIR] [--repetitions N] [--size N]

gree is timed with iree-benchmark-module (real time, median of the
repetitions, plus the process CPU time it reports); numpy with
time.perf_counter over the same number of calls after a warm-up. The ratio
printed is numpy time / gree time (throughput ratio, higher is better).

The machine's f32 FMA peak is measured in the same run by bench/fma_peak.c
(built with `cc -O2 -march=native`, independent FMA chains on every core),
and gree's throughput is printed as a percentage of it and of the nominal
figure (--ghz × --flops-per-cycle per core).
"""
import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from _common import matmul_src, numpy_ms, tool


def gree_ms(backend, args, work):
    mlir = os.path.join(work, "matmul.mlir")
    vmfb = os.path.join(work, f"matmul_{backend}.vmfb")
    open(mlir, "w").write(matmul_src(args.size))
    r = subprocess.run([tool("iree-compile", args.bin), f"--iree-hal-target-backends={backend}", mlir, "-o", vmfb], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"iree-compile for {backend} failed:\n{r.stderr}")
    n = args.size
    a, b = os.path.join(work, "a.npy"), os.path.join(work, "b.npy")
    cmd = [tool("iree-benchmark-module", args.bin), f"--module={vmfb}", "--device=local-task",
           f"--benchmark_repetitions={args.repetitions}", f"--input=@{a}", f"--input=@{b}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"_median\s+([\d.]+) ms\s+([\d.]+) ms", out) or re.search(r"real_time\s+([\d.]+) ms\s+([\d.]+) ms", out)
    return float(m.group(1)), float(m.group(2))


def fma_peak(work, threads):
    """GFLOP/s of bench/fma_peak.c on threads threads (best of three half-second
    runs, so a moment of contention on a shared machine does not lower it), or
    None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    exe = os.path.join(work, "fma_peak")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fma_peak.c")
    subprocess.run([cc, "-O2", "-march=native", "-pthread", src, "-o", exe], check=True)
    runs = [subprocess.run([exe, str(threads), "0.5"], check=True, capture_output=True, text=True).stdout for _ in range(3)]
    return max(float(out.split()[0]) for out in runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("GREE_BIN_DIR"))
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--ghz", type=float, default=2.6, help="nominal clock for the nominal peak")
    ap.add_argument("--flops-per-cycle", type=int, default=32, help="f32 FLOP per cycle per core (AVX-512 Zen 4: 32)")
    args = ap.parse_args()
    n = args.size
    cores = os.cpu_count()
    print(f"machine: {platform.machine()} {cores} cores, {platform.processor() or platform.platform()}; numpy {np.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    flops = 2 * n ** 3
    with tempfile.TemporaryDirectory() as work:
        rng = np.random.default_rng(0)
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        np.save(os.path.join(work, "a.npy"), a)
        np.save(os.path.join(work, "b.npy"), b)
        results = {}
        for backend in ("llvm-cpu", "vmvx"):
            results[backend] = gree_ms(backend, args, work)
        np_mm = numpy_ms(lambda: a @ b, max(args.repetitions, 10))
        peak = fma_peak(work, cores)
        nominal = cores * args.ghz * args.flops_per_cycle
        if peak:
            print(f"measured FMA peak: {peak:.1f} GFLOP/s ({cores} threads); nominal {nominal:.1f} GFLOP/s "
                  f"({cores} × {args.ghz} GHz × {args.flops_per_cycle})")
        print(f"numpy: {np_mm:.2f} ms ({flops / np_mm / 1e6:.1f} GFLOP/s)")
        for backend, (real, cpu) in results.items():
            gf = flops / real / 1e6
            line = (f"gree {backend:8}: {real:.2f} ms real, {cpu:.2f} ms CPU ({gf:.1f} GFLOP/s); "
                    f"throughput ratio gree/numpy = {np_mm / real:.2f}")
            if peak:
                line += f"; {100 * gf / peak:.0f}% of measured peak"
            print(line + f", {100 * gf / nominal:.0f}% of nominal")


if __name__ == "__main__":
    main()
