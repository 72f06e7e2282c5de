"""The soak run (many calls of one model; RSS must stay flat) and thread
contention (threads calling one shared context while others create, call
and release their own devices, modules and contexts)."""

import os
import threading
import time

import numpy as np

import iree_go.compiler as ireec
import iree_go.runtime as rt

# A small network: a 1x8x8x3 convolution, ReLU, a flattening reshape, a
# 192x64 matmul and a softmax-like reduction (several dispatches).
MODEL = """func.func @net(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>, %w: tensor<256x64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k2: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%p, %k : tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %r = arith.maximumf %c, %f : tensor<1x8x8x4xf32>
  %flat = tensor.collapse_shape %r [[0], [1, 2, 3]] : tensor<1x8x8x4xf32> into tensor<1x256xf32>
  %e2 = tensor.empty() : tensor<1x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %m = linalg.matmul ins(%flat, %w : tensor<1x256xf32>, tensor<256x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %t = math.tanh %m : tensor<1x64xf32>
  return %t : tensor<1x64xf32>
}
"""


def _rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _backend(manifest):
    return "llvm-cpu" if "llvm-cpu" in manifest["backends"] else "vmvx"


def _inputs():
    r = np.random.default_rng(1)
    return (r.standard_normal((1, 8, 8, 3), np.float32), r.standard_normal((3, 3, 3, 4), np.float32) / 4,
            r.standard_normal((256, 64), np.float32) / 16)


def soak(manifest, n, onnx_path):
    """n calls of the ONNX model at onnx_path (MobileNetV2, say) on a
    random input, or of MODEL without one. RSS growth is the median RSS
    over the last tenth of the calls less that over the tenth after the
    first (warm-up), each sample taken after the device's allocator gave
    back what it keeps (HalAllocator.trim)."""
    backend = _backend(manifest)
    if onnx_path:
        vmfb = ireec.compile_file(onnx_path, target_backends=[backend], input_type="onnx")
        import onnx

        g = onnx.load(onnx_path, load_external_data=False).graph
        inits = {t.name for t in g.initializer}
        shape = [d.dim_value or 1 for d in [v for v in g.input if v.name not in inits][0].type.tensor_type.shape.dim]
        args, name, what = (np.random.default_rng(1).standard_normal(shape, np.float32),), g.name, onnx_path
    else:
        vmfb = ireec.compile_str(MODEL, target_backends=[backend])
        args, name, what = _inputs(), "net", "net"
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    module = rt.VmModule.copy_buffer(config.vm_instance, vmfb)
    ctx.add_vm_module(module)
    fn = ctx.modules[module.name][name]
    first = fn(*args).to_host()
    warm = max(n // 10, 1)
    # Without the trim, RSS follows the Go heap's collections: it grows
    # between two by up to the live heap (20 MiB for MobileNetV2) and
    # falls when the scavenger gives pages back, so the medians of two
    # windows differed by -13 to +26 MiB without a leak. After it, RSS
    # holds what is live and what the buffer cache keeps.
    every = max(n // 200, 1)
    early, late = [], []
    t0 = t1 = time.time()
    for i in range(n):
        if i == 2 * warm:
            t0 = time.time()
        if i == n - warm:
            t1 = time.time()
        r = fn(*args)
        if i % 97 == 0 and not np.array_equal(r.to_host(), first):
            return f"failed call {i} gave another result"
        if i % every == 0 and (warm <= i < 2 * warm or i >= n - warm):
            del r
            config.device.allocator.trim()
            (early if i < 2 * warm else late).append(_rss())
    grew = (float(np.median(late)) - float(np.median(early))) / 2 ** 20
    per = (t1 - t0) / max(n - 3 * warm, 1) * 1e3
    verdict = "accepted" if grew < 8 else "failed"
    return (f"{verdict} {os.path.basename(what)} {backend}: {n} calls, RSS growth {grew:.2f} MiB after call {warm}, "
            f"{per:.3f} ms/call between the windows")


def threads(manifest):
    """manifest["threads"] threads for ~10 s: half call one shared context
    (checking results), half create, call and release their own device,
    module and context each round, on local-task and local-sync."""
    backend, k = _backend(manifest), manifest["threads"]
    vmfb = ireec.compile_str(MODEL, target_backends=[backend])
    args = _inputs()
    shared = rt.load_vm_flatbuffer(vmfb, driver="local-task")
    want = shared.net(*args).to_host()
    stop = time.time() + 10
    counts, errors = [0] * k, []

    def caller(t):
        while time.time() < stop:
            r = shared.net(*args).to_host()
            if not np.array_equal(r, want):
                errors.append(f"thread {t}: a shared call gave another result")
                return
            counts[t] += 1

    def cycler(t):
        drv = rt.get_driver("local-task" if t % 2 else "local-sync")
        while time.time() < stop:
            inst = rt.VmInstance()
            with drv.create_default_device() as dev, rt.VmModule.copy_buffer(inst, vmfb) as m, \
                    rt.VmContext(inst, [rt.create_hal_module(inst, dev), m]) as ctx:
                r = rt.FunctionInvoker(ctx, dev, m.lookup_function("net"))(*args).to_host()
            if not np.array_equal(r, want):
                errors.append(f"thread {t}: a fresh context gave another result")
                return
            counts[t] += 1

    def guard(f, t):
        try:
            f(t)
        except Exception as e:  # noqa: BLE001 - reported, and fails the run
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    ts = [threading.Thread(target=guard, args=(caller if t % 2 == 0 else cycler, t)) for t in range(k)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        return "failed " + "; ".join(errors[:3])
    return (f"accepted {k} threads {backend}: {sum(counts[0::2])} shared-context calls, "
            f"{sum(counts[1::2])} create/call/release cycles in 10 s")


def run(family, manifest):
    if family == "soak":
        return soak(manifest, manifest["soak"], os.environ.get("GREE_SOAK_ONNX"))
    if family == "soak-mobilenet":
        return soak(manifest, manifest["soak_mobilenet"], manifest["mobilenet"])
    return threads(manifest)
