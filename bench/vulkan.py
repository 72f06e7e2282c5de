#!/usr/bin/env python3
"""f32 matmul and MobileNetV2 (ONNX, batch 1) through gree's Vulkan path,
against PyTorch on the same GPU (cuBLAS matmul, eager MobileNetV2) where
CUDA is available, else numpy / onnxruntime on the CPU (lavapipe runs).

    bench/vulkan.py [--bin build] [--target ampere] [--n 4096]
                    [--model mobilenet_v2.onnx] [--repetitions 5]

- gree: iree-compile --iree-hal-target-backends=vulkan-spirv
  --iree-vulkan-target=<target>, then iree-benchmark-module --device=vulkan
  (its median over --repetitions runs after a warm-up, real time).
- references in the same invocation: torch.matmul on cuda (TF32 off, so
  that both compute in f32) and torchvision's mobilenet_v2 in eager mode
  with the ONNX model's weights (when the model came from
  tests/onnx/export_mobilenet_v2.py, the same network); without CUDA, numpy
  and onnxruntime.
- answers are checked: the matmul against the reference's result, the
  network's output against onnxruntime (relative L2), so a fast wrong
  answer does not count.
Prints one table of times and ratios (reference time / gree time: above 1
means gree is faster).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import iree_venv_python, matmul_src, numpy_ms, tool  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fn_flag(fn):
    """--function=fn, or nothing: the module's only export."""
    return [f"--function={fn}"] if fn else []


def bench_ms(bench, vmfb, fn, inputs, reps):
    """iree-benchmark-module's median real time in ms."""
    cmd = [bench, f"--module={vmfb}", "--device=vulkan", *fn_flag(fn),
           f"--benchmark_repetitions={reps}", "--benchmark_min_time=1x"] + [f"--input={i}" for i in inputs]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    times = [float(m.group(1)) for m in re.finditer(r"real_time\S*\s+([0-9.]+) ms", out)]
    if not times:
        sys.exit("no timing in iree-benchmark-module's output:\n" + out)
    times.sort()
    return times[len(times) // 2]


def run_output(run, vmfb, fn, inputs, out):
    subprocess.run([run, f"--module={vmfb}", "--device=vulkan", *fn_flag(fn),
                    f"--output=@{out}"] + [f"--input={i}" for i in inputs], check=True, capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build")
    ap.add_argument("--target", default="ampere", help="--iree-vulkan-target (llvmpipe on lavapipe)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--model", help="MobileNetV2 ONNX file (default: exported with tests/onnx/export_mobilenet_v2.py)")
    ap.add_argument("--ref", help="an .npz with x and y: MobileNetV2's input and its reference output, for machines without onnxruntime (tests/gpu/prepare.sh writes one)")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--iree-compile-time", action="store_true",
                    help="also time IREE's iree-compile (iree-base-compiler from PyPI, bench/.iree-venv) on the model for the same target")
    ap.add_argument("--iree-python", help="the Python of a venv with IREE's packages (default: bench/.iree-venv)")
    args = ap.parse_args()
    import numpy as np
    try:
        import torch
        cuda = torch.cuda.is_available()
    except ImportError:
        torch, cuda = None, False
    compile_ = tool("iree-compile", args.bin)
    bench = tool("iree-benchmark-module", args.bin)
    run = tool("iree-run-module", args.bin)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        n = args.n
        src = os.path.join(work, "matmul.mlir")
        open(src, "w").write(matmul_src(n))
        vmfb = os.path.join(work, "matmul.vmfb")
        t = time.perf_counter()
        subprocess.run([compile_, "--iree-hal-target-backends=vulkan-spirv", f"--iree-vulkan-target={args.target}", src, "-o", vmfb], check=True)
        ct = time.perf_counter() - t
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        np.save(os.path.join(work, "a.npy"), a)
        np.save(os.path.join(work, "b.npy"), b)
        ins = [f"@{os.path.join(work, 'a.npy')}", f"@{os.path.join(work, 'b.npy')}"]
        gms = bench_ms(bench, vmfb, "matmul", ins, args.repetitions)
        out = os.path.join(work, "c.npy")
        run_output(run, vmfb, "matmul", ins, out)
        got = np.load(out)
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = False
            ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

            def ref():
                r = ta @ tb
                torch.cuda.synchronize()
                return r
            rms = numpy_ms(ref, args.repetitions)
            want = ref().cpu().numpy()
            rname = "torch cuBLAS f32"
        else:
            rms = numpy_ms(lambda: a @ b, args.repetitions)
            want = a @ b
            rname = "numpy f32"
        err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
        flops = 2 * n ** 3
        rows.append((f"matmul {n}³", gms, rname, rms, err, ct, f"{flops / gms / 1e6:.0f} GFLOP/s"))

        model = args.model
        if not model:
            model = os.path.join(work, "mobilenet_v2.onnx")
            subprocess.run([sys.executable, os.path.join(ROOT, "tests", "onnx", "export_mobilenet_v2.py"), model], check=True, capture_output=True)
        vmfb = os.path.join(work, "mnv2.vmfb")
        t = time.perf_counter()
        subprocess.run([compile_, "--iree-hal-target-backends=vulkan-spirv", f"--iree-vulkan-target={args.target}", model, "-o", vmfb], check=True)
        ct = time.perf_counter() - t
        x = rng.standard_normal((1, 3, 224, 224), dtype=np.float32)
        want = None
        try:
            import onnxruntime as ort
            sess = ort.InferenceSession(model)
            feed = {sess.get_inputs()[0].name: x}
            want = sess.run(None, feed)[0]
        except ImportError:
            sess = None
            if args.ref:
                ref = np.load(args.ref)
                x, want = ref["x"], ref["y"]
        np.save(os.path.join(work, "x.npy"), x)
        ins = [f"@{os.path.join(work, 'x.npy')}"]
        gms = bench_ms(bench, vmfb, None, ins, args.repetitions)
        out = os.path.join(work, "y.npy")
        run_output(run, vmfb, None, ins, out)
        got = np.load(out)
        err = float(np.linalg.norm(got - want) / np.linalg.norm(want)) if want is not None else float("nan")
        rms, rname = float("nan"), "-"
        try:
            import torchvision
        except ImportError:
            torchvision = None
        if cuda and torchvision is not None:
            net = torchvision.models.mobilenet_v2().eval().cuda()
            tx = torch.from_numpy(x).cuda()

            def ref():
                with torch.no_grad():
                    r = net(tx)
                torch.cuda.synchronize()
                return r
            rms = numpy_ms(ref, max(args.repetitions, 20))
            rname = "torch eager cuda"
        elif sess is not None:
            rms = numpy_ms(lambda: sess.run(None, feed), args.repetitions)
            rname = "onnxruntime cpu"
        note = ""
        if args.iree_compile_time:
            ibin = os.path.dirname(iree_venv_python(args.iree_python))
            mlir = os.path.join(work, "iree.mlir")
            subprocess.run([os.path.join(ibin, "iree-import-onnx"), model, "-o", mlir], check=True, capture_output=True)
            t = time.perf_counter()
            subprocess.run([os.path.join(ibin, "iree-compile"), "--iree-hal-target-backends=vulkan-spirv",
                            f"--iree-vulkan-target={args.target}", mlir, "-o", os.path.join(work, "iree.vmfb")], check=True, capture_output=True)
            ict = time.perf_counter() - t
            note = f"compile {ct / ict:.2f}× IREE's iree-compile ({ict:.2f} s, import not counted)"
        rows.append(("MobileNetV2 b1", gms, rname, rms, err, ct, note))
    print(f"{'workload':<16}{'gree vulkan ms':>16}{'reference':>20}{'ref ms':>10}{'ref/gree':>10}{'rel L2':>10}{'compile s':>11}  note")
    for name, g, rn, r, e, c, note in rows:
        print(f"{name:<16}{g:>16.2f}{rn:>20}{r:>10.2f}{r / g:>9.2f}×{e:>10.1e}{c:>11.2f}  {note}")


if __name__ == "__main__":
    main()
