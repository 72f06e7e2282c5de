#!/usr/bin/env python3
"""CPU core benchmarks for gree's vmvx target on local-task, with ratios
against numpy measured in the same run.

  bench/core_cpu.py [--bin DIR] [--repetitions N]

Cases (issue 5's bars):
  matmul 1024^3 f32        gree throughput / numpy (OpenBLAS) throughput   (bar >= 0.5)
  5-op chain, 16M f32      gree time / one numpy memcpy pass of 16M f32     (bar <= 2.0)

gree is timed with iree-benchmark-module (real time, Google-Benchmark
style, median of the repetitions); numpy with time.perf_counter over the
same number of calls after a warm-up.
"""
import argparse
import os
import platform
import re
import subprocess
import tempfile

import numpy as np

from _common import matmul_src, numpy_ms, tool

MATMUL = matmul_src(1024)

N = 1 << 24
CHAIN = f"""func.func @chain(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %c15 = arith.constant dense<1.5> : tensor<{N}xf32>
  %c05 = arith.constant dense<0.5> : tensor<{N}xf32>
  %c0 = arith.constant dense<0.0> : tensor<{N}xf32>
  %0 = arith.mulf %x, %c15 : tensor<{N}xf32>
  %1 = arith.addf %0, %c05 : tensor<{N}xf32>
  %2 = arith.mulf %1, %x : tensor<{N}xf32>
  %3 = arith.subf %2, %c05 : tensor<{N}xf32>
  %4 = arith.maximumf %3, %c0 : tensor<{N}xf32>
  return %4 : tensor<{N}xf32>
}}
"""


def gree_ms(src, inputs, args, work, name):
    mlir = os.path.join(work, name + ".mlir")
    vmfb = os.path.join(work, name + ".vmfb")
    open(mlir, "w").write(src)
    subprocess.run([tool("iree-compile", args.bin), "--iree-hal-target-backends=vmvx", mlir, "-o", vmfb], check=True)
    cmd = [tool("iree-benchmark-module", args.bin), f"--module={vmfb}", "--device=local-task",
           f"--benchmark_repetitions={args.repetitions}"] + [f"--input={i}" for i in inputs]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"_median\s+([\d.]+) ms", out) or re.search(r"real_time\s+([\d.]+) ms", out)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("GREE_BIN_DIR"))
    ap.add_argument("--repetitions", type=int, default=5)
    args = ap.parse_args()
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.processor() or platform.platform()}; numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as work:
        a = np.random.rand(1024, 1024).astype(np.float32)
        b = np.random.rand(1024, 1024).astype(np.float32)
        np_mm = numpy_ms(lambda: a @ b, max(args.repetitions, 10))
        g_mm = gree_ms(MATMUL, ["1024x1024xf32=1", "1024x1024xf32=1"], args, work, "matmul")
        flops = 2 * 1024 ** 3
        print(f"matmul 1024^3 f32: gree {g_mm:.2f} ms ({flops / g_mm / 1e6:.1f} GFLOP/s), numpy {np_mm:.2f} ms ({flops / np_mm / 1e6:.1f} GFLOP/s); throughput ratio gree/numpy = {np_mm / g_mm:.2f} (bar >= 0.5)")
        x = np.random.rand(N).astype(np.float32)
        y = np.empty_like(x)
        np_cp = numpy_ms(lambda: np.copyto(y, x), max(args.repetitions, 10))
        g_ch = gree_ms(CHAIN, [f"{N}xf32=1"], args, work, "chain")
        print(f"5-op chain 16M f32: gree {g_ch:.2f} ms, numpy memcpy pass {np_cp:.2f} ms; ratio = {g_ch / np_cp:.2f}x memcpy (bar <= 2.0)")


if __name__ == "__main__":
    main()
