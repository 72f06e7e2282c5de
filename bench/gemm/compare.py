#!/usr/bin/env python3
"""Compare go/internal/gemm's single-threaded F32 with numpy's matmul.

Runs the package's Go benchmarks (one goroutine, so one core) and times
numpy's float32 a@b for the same square sizes, single-threaded
(OPENBLAS_NUM_THREADS=1 and friends) and with numpy's default threads, then
prints GFLOP/s and the ratios. Run from anywhere inside the repository:

    python3 bench/gemm/compare.py [--count N]

Each figure is the best of N runs, to damp noise from other processes.
"""

import argparse
import os
import re
import subprocess
import sys

SIZES = (256, 512, 1024)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NUMPY = r"""
import sys, time
import numpy as np
n, reps = int(sys.argv[1]), int(sys.argv[2])
a = np.random.rand(n, n).astype(np.float32)
b = np.random.rand(n, n).astype(np.float32)
a @ b
best = float("inf")
for _ in range(reps):
    t = time.perf_counter()
    a @ b
    best = min(best, time.perf_counter() - t)
print(2 * n**3 / best / 1e9)
"""


def go_gflops(count):
    out = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", "F32_", "-count", str(count), "./go/internal/gemm/"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    best = {}
    for m in re.finditer(r"BenchmarkF32_(\d+)\S*\s+\d+\s+\S+ ns/op\s+(\S+) GFLOP/s", out):
        size, g = int(m.group(1)), float(m.group(2))
        best[size] = max(best.get(size, 0.0), g)
    return best


def numpy_gflops(size, threads, count):
    env = dict(os.environ)
    if threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
    reps = max(3, int(2e10 / size**3))
    out = subprocess.run([sys.executable, "-c", NUMPY, str(size), str(reps)],
                         env=env, check=True, capture_output=True, text=True).stdout
    return float(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=3, help="runs per figure (best is kept)")
    args = ap.parse_args()
    gree = go_gflops(args.count)
    print(f"cores: {os.cpu_count()}")
    print(f"{'size':>6} {'gree 1T':>9} {'numpy 1T':>9} {'numpy all':>10} {'gree/np1T':>10}")
    for size in SIZES:
        np1 = max(numpy_gflops(size, 1, 1) for _ in range(args.count))
        npn = max(numpy_gflops(size, None, 1) for _ in range(args.count))
        g = gree.get(size, float("nan"))
        print(f"{size:>6} {g:>9.1f} {np1:>9.1f} {npn:>10.1f} {g / np1:>10.2f}")


if __name__ == "__main__":
    main()
