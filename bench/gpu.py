#!/usr/bin/env python3
"""f32 matmul and MobileNetV2 (ONNX, batch 1) through gree's GPU paths
(vulkan-spirv on the vulkan driver, cuda on the cuda driver), against
PyTorch on the same GPU (cuBLAS matmul, eager MobileNetV2) where CUDA is
available, else numpy / onnxruntime on the CPU (lavapipe runs).

    bench/gpu.py [--backend vulkan-spirv|cuda] [--bin build] [--target ampere]
                 [--n 4096] [--model mobilenet_v2.onnx] [--repetitions 5]

- gree: iree-compile --iree-hal-target-backends=<backend>
  --iree-vulkan-target=<target> (or --iree-cuda-target), then
  iree-benchmark-module --device=vulkan (or cuda) (its median over
  --repetitions runs after a warm-up, real time).
- with --backend cuda, two more rows for the CUDA bars: a bf16 matmul
  (f32 accumulation) against cuBLAS bf16, and an element-wise chain over
  256 MiB of f32 whose bandwidth (bytes read and written per second) is
  compared with the device's copy bandwidth (torch's clone).
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


DEVICE = {"vulkan-spirv": "vulkan", "cuda": "cuda"}
TARGET_FLAG = {"vulkan-spirv": "--iree-vulkan-target", "cuda": "--iree-cuda-target"}


def bench_ms(bench, vmfb, fn, inputs, reps, device):
    """iree-benchmark-module's median real time in ms."""
    cmd = [bench, f"--module={vmfb}", f"--device={device}", *fn_flag(fn),
           f"--benchmark_repetitions={reps}", "--benchmark_min_time=1x"] + [f"--input={i}" for i in inputs]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    times = [float(m.group(1)) for m in re.finditer(r"real_time\S*\s+([0-9.]+) ms", out)]
    if not times:
        sys.exit("no timing in iree-benchmark-module's output:\n" + out)
    times.sort()
    return times[len(times) // 2]


def run_output(run, vmfb, fn, inputs, out, device):
    subprocess.run([run, f"--module={vmfb}", f"--device={device}", *fn_flag(fn),
                    f"--output=@{out}"] + [f"--input={i}" for i in inputs], check=True, capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build")
    ap.add_argument("--backend", default="vulkan-spirv", choices=sorted(DEVICE))
    ap.add_argument("--target", default="ampere", help="--iree-vulkan-target (llvmpipe on lavapipe) or --iree-cuda-target (sm_90 on an H100)")
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
    device = DEVICE[args.backend]
    target_flags = [f"--iree-hal-target-backends={args.backend}", f"{TARGET_FLAG[args.backend]}={args.target}"]
    with tempfile.TemporaryDirectory() as work:
        n = args.n
        src = os.path.join(work, "matmul.mlir")
        open(src, "w").write(matmul_src(n))
        vmfb = os.path.join(work, "matmul.vmfb")
        t = time.perf_counter()
        subprocess.run([compile_, *target_flags, src, "-o", vmfb], check=True)
        ct = time.perf_counter() - t
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        np.save(os.path.join(work, "a.npy"), a)
        np.save(os.path.join(work, "b.npy"), b)
        ins = [f"@{os.path.join(work, 'a.npy')}", f"@{os.path.join(work, 'b.npy')}"]
        gms = bench_ms(bench, vmfb, "matmul", ins, args.repetitions, device)
        out = os.path.join(work, "c.npy")
        run_output(run, vmfb, "matmul", ins, out, device)
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
        subprocess.run([compile_, *target_flags, model, "-o", vmfb], check=True)
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
        gms = bench_ms(bench, vmfb, None, ins, args.repetitions, device)
        out = os.path.join(work, "y.npy")
        run_output(run, vmfb, None, ins, out, device)
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
            subprocess.run([os.path.join(ibin, "iree-compile"), *target_flags,
                            mlir, "-o", os.path.join(work, "iree.vmfb")], check=True, capture_output=True)
            ict = time.perf_counter() - t
            note = f"compile {ct / ict:.2f}× IREE's iree-compile ({ict:.2f} s, import not counted)"
        rows.append(("MobileNetV2 b1", gms, rname, rms, err, ct, note))
        if args.backend == "cuda":
            rows += cuda_rows(work, compile_, bench, run, target_flags, n, args.repetitions, torch if cuda else None)
    print(f"{'workload':<16}{'gree ' + device + ' ms':>16}{'reference':>20}{'ref ms':>10}{'ref/gree':>10}{'rel L2':>10}{'compile s':>11}  note")
    for name, g, rn, r, e, c, note in rows:
        print(f"{name:<16}{g:>16.2f}{rn:>20}{r:>10.2f}{r / g:>9.2f}×{e:>10.1e}{c:>11.2f}  {note}")


def cuda_rows(work, compile_, bench, run, target_flags, n, reps, torch):
    """The bf16 matmul and the 256 MiB element-wise chain (the CUDA bars),
    with splat inputs whose results are known exactly."""
    import numpy as np
    rows = []
    src = os.path.join(work, "matmul_bf16.mlir")
    open(src, "w").write(f"""func.func @matmul(%a: tensor<{n}x{n}xbf16>, %b: tensor<{n}x{n}xbf16>) -> tensor<{n}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  %m = linalg.matmul ins(%a, %b : tensor<{n}x{n}xbf16>, tensor<{n}x{n}xbf16>) outs(%f : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %m : tensor<{n}x{n}xf32>
}}
""")
    vmfb = os.path.join(work, "matmul_bf16.vmfb")
    t = time.perf_counter()
    subprocess.run([compile_, *target_flags, src, "-o", vmfb], check=True)
    ct = time.perf_counter() - t
    ins = [f"{n}x{n}xbf16=0.5", f"{n}x{n}xbf16=0.5"]
    gms = bench_ms(bench, vmfb, "matmul", ins, reps, "cuda")
    out = os.path.join(work, "m.npy")
    run_output(run, vmfb, "matmul", ins, out, "cuda")
    got = np.load(out)
    err = float(np.abs(got - n * 0.25).max() / (n * 0.25))
    rms, rname = float("nan"), "-"
    if torch is not None:
        ta = torch.full((n, n), 0.5, dtype=torch.bfloat16, device="cuda")

        def ref():
            r = ta @ ta
            torch.cuda.synchronize()
            return r
        rms, rname = numpy_ms(ref, reps), "torch cuBLAS bf16"
    rows.append((f"bf16 matmul {n}³", gms, rname, rms, err, ct, f"{2 * n ** 3 / gms / 1e9:.1f} TFLOP/s"))

    count = 64 << 20  # 256 MiB of f32
    src = os.path.join(work, "chain.mlir")
    open(src, "w").write(f"""func.func @chain(%x: tensor<{count}xf32>) -> tensor<{count}xf32> {{
  %two = arith.constant dense<2.0> : tensor<{count}xf32>
  %one = arith.constant dense<1.0> : tensor<{count}xf32>
  %a = arith.mulf %x, %two : tensor<{count}xf32>
  %b = arith.addf %a, %one : tensor<{count}xf32>
  %c = math.sqrt %b : tensor<{count}xf32>
  %d = arith.maximumf %c, %one : tensor<{count}xf32>
  return %d : tensor<{count}xf32>
}}
""")
    vmfb = os.path.join(work, "chain.vmfb")
    t = time.perf_counter()
    subprocess.run([compile_, *target_flags, src, "-o", vmfb], check=True)
    ct = time.perf_counter() - t
    ins = [f"{count}xf32=4"]
    gms = bench_ms(bench, vmfb, "chain", ins, reps, "cuda")
    out = os.path.join(work, "chain.npy")
    run_output(run, vmfb, "chain", ins, out, "cuda")
    got = np.load(out)
    err = float(np.abs(got - 3.0).max() / 3.0)
    rms, rname = float("nan"), "-"
    if torch is not None:
        tx = torch.empty(count, dtype=torch.float32, device="cuda")

        def ref():
            r = tx.clone()
            torch.cuda.synchronize()
            return r
        rms, rname = numpy_ms(ref, reps), "torch clone (copy)"
    gbs = 2 * 4 * count / gms / 1e6
    note = f"{gbs:.0f} GB/s"
    if rms == rms:
        note += f"; copy {2 * 4 * count / rms / 1e6:.0f} GB/s (ref/gree is the fraction of it)"
    rows.append(("chain 256 MiB", gms, rname, rms, err, ct, note))
    return rows


if __name__ == "__main__":
    main()
