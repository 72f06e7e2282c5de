"""Calls from several Python threads on one shared context.

For a small element-wise function (4096 f32: a*b+a) and a small matmul
(32x32 f32), compiled with iree_go.compiler for llvm-cpu and vmvx and loaded
on local-sync and local-task, prints the calls per second of one thread,
then of N threads (default 8) calling the same module function of one
context, and their ratio. Every result is compared with the single-thread
result (identical bytes), so a wrong answer fails the run.

    python bench/threads.py [--threads 8] [--seconds 0.5] [--repeats 5]
                            [--targets llvm-cpu,vmvx] [--drivers local-sync,local-task]

The calls go through iree_go.runtime's module objects as a user would
(load_vm_flatbuffer, module.fn(a, b)); the GIL is released during each call
into libgree.so (cffi), so threads overlap their calls in Go.
"""
import argparse
import os
import sys
import threading
import time

import numpy as np

import iree_go.compiler as ireec
import iree_go.runtime as ireert

ELEMENTWISE = """
func.func @ew(%a: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096xf32> {
  %m = arith.mulf %a, %b : tensor<4096xf32>
  %s = arith.addf %m, %a : tensor<4096xf32>
  return %s : tensor<4096xf32>
}
"""

MATMUL = """
func.func @mm(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
"""


def inputs(name, rng):
    if name == "ew":
        return [rng.standard_normal(4096).astype(np.float32) for _ in range(2)]
    return [rng.standard_normal((32, 32)).astype(np.float32) for _ in range(2)]


def run(fn, args, want, threads, seconds):
    """Calls fn(*args) from `threads` threads for about `seconds`; returns
    calls per second. Every result must equal want bit for bit."""
    stop = threading.Event()
    counts = [0] * threads
    errors = []
    start_line = threading.Barrier(threads + 1)

    def worker(i):
        start_line.wait()
        n = 0
        try:
            while not stop.is_set():
                for _ in range(16):
                    got = np.asarray(fn(*args))
                    if not np.array_equal(got, want):
                        raise AssertionError(f"thread {i}: result differs from the single-thread result")
                n += 16
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        counts[i] = n

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    start_line.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return sum(counts) / dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=5,
                    help="rounds of a 1-thread run then an N-thread run; the ratio is the median of the rounds'")
    ap.add_argument("--targets", default="llvm-cpu,vmvx")
    ap.add_argument("--drivers", default="local-sync,local-task")
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}, "
          f"{opts.threads} threads, {opts.seconds}s per run, {opts.repeats} rounds (calls/s: best; ratio: median)")
    print(f"{'function':<10} {'target':<9} {'driver':<11} {'1 thread/s':>11} {f'{opts.threads} threads/s':>12} {'ratio':>6}")
    worst = None
    for target in opts.targets.split(","):
        for name, src in (("ew", ELEMENTWISE), ("mm", MATMUL)):
            vmfb = ireec.compile_str(src, target_backends=[target])
            args = inputs(name, rng)
            for driver in opts.drivers.split(","):
                mod = ireert.load_vm_flatbuffer(vmfb, driver=driver)
                fn = getattr(mod, name)
                want = np.asarray(fn(*args)).copy()
                run(fn, args, want, 1, 0.2)  # warm-up: caches, buffer cache, workers
                ones, manys = [], []
                for _ in range(opts.repeats):
                    ones.append(run(fn, args, want, 1, opts.seconds))
                    manys.append(run(fn, args, want, opts.threads, opts.seconds))
                one, many = max(ones), max(manys)
                ratio = sorted(m / o for m, o in zip(manys, ones))[len(ones) // 2]
                worst = ratio if worst is None else min(worst, ratio)
                print(f"{name:<10} {target:<9} {driver:<11} {one:>11.0f} {many:>12.0f} {ratio:>6.2f}", flush=True)
    print(f"worst ratio {worst:.2f}")


if __name__ == "__main__":
    main()
