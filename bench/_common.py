"""Helpers the benchmark scripts here share: finding gree's tools, timing
numpy, the tools and in-process calls, finding a Python with torch, comparing
outputs, and the square f32 matmul they compile.

The scripts import it as `_common` (Python puts a script's own folder first
on sys.path), so it is not a package and not installed.
"""
import os
import shutil
import subprocess
import re
import sys
import time

import numpy as np


# The model set of bench/models.py, exported by bench/export_models.py:
# torchvision classifiers, then sequence models.
VISION_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "squeezenet1_1",
                 "shufflenet_v2_x1_0", "efficientnet_b0", "vit_b_16", "regnet_x_400mf", "densenet121"]
MODELS = VISION_MODELS + ["transformer", "gru", "lstm", "bert_small"]


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


def torch_python():
    for py in (os.environ.get("GREE_TORCH_PYTHON"), "/usr/bin/python3", sys.executable):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import torch, torchvision"], capture_output=True).returncode == 0:
            return py
    return None


def bench_tool_ms(cmd):
    """Real time in ms of the last repetition of an iree-benchmark-module
    run (the first one, in a fresh process, also warms the process up, as
    onnxruntime's session is warmed up before it is timed)."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    units = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    times = [float(m.group(1)) * units[m.group(2)] for m in
             re.finditer(r"^BM_\S+?(?<!_mean)(?<!_median)(?<!_stddev)\s+([0-9.]+)\s+(ns|us|ms|s)\s", r.stdout, re.M)]
    if not times:
        raise RuntimeError("no timings in:\n" + r.stdout)
    return times[-1]


def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return dt


def timed_rep(call):
    """As iree-benchmark-module's repetitions: a mean over >= 0.5 s, in ms."""
    n, t = 0, time.perf_counter()
    while n < 3 or time.perf_counter() - t < 0.5:
        call()
        n += 1
    return (time.perf_counter() - t) * 1e3 / n


def rel_l2(a, b):
    return float(np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b))
