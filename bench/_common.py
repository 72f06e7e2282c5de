"""Helpers the benchmark scripts here share: finding gree's tools, timing
numpy, and the square f32 matmul they compile.

The scripts import it as `_common` (Python puts a script's own folder first
on sys.path), so it is not a package and not installed.
"""
import os
import shutil
import subprocess
import sys
import time


def tool(name, bin_dir):
    """The path of gree tool name, in bin_dir or else on PATH; exits when missing."""
    p = os.path.join(bin_dir, name) if bin_dir else shutil.which(name)
    if not p or not os.path.exists(p):
        sys.exit(f"cannot find {name}; run `make build` and pass --bin build, or install gree")
    return p


def numpy_ms(fn, reps):
    """Median wall time of fn() in ms over reps calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3


def matmul_src(n):
    """MLIR for @matmul, an f32 n×n by n×n linalg.matmul into a zero fill."""
    return f"""func.func @matmul(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  %m = linalg.matmul ins(%a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) outs(%f : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %m : tensor<{n}x{n}xf32>
}}
"""


def iree_venv_python(path):
    """The Python of a venv with IREE's PyPI packages: path when given, else
    bench/.iree-venv, created on first use."""
    if path:
        return path
    venv = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".iree-venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        print(f"creating {venv} with iree-base-compiler and iree-base-runtime (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "iree-base-compiler", "iree-base-runtime",
                        "onnx", "numpy"], check=True)
    return py
