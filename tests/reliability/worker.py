"""A worker of the reliability suite: processes inputs start, start+1, … of
one family and prints, for each, "start I" before touching it and
"done I accepted|rejected DETAIL" after, so the driver can tell which input
a crash (the process dies) or a hang (no "done" in time) belongs to.

  worker.py MANIFEST FAMILY START COUNT

MANIFEST (JSON, written by run.py) names the seed files and the run's seed.
Families: vmfb, mlir, onnx (mutated inputs compiled/loaded/run), pycall
(bad Python calls, pycalls.py), soak, soak-mobilenet, threads (stress.py). An error status
(a Python exception) is a rejection; only a crash or a hang is a failure."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as rt  # noqa: E402
import mutate  # noqa: E402

CALL_SECONDS = 2.0  # deadline of each call, where the runtime has deadlines
MAX_CALLS = 8  # functions called per module
MAX_ELEMENTS = 1 << 20  # ONNX inputs larger than this are not built


def make_input(manifest, family, i):
    """The bytes of input i of family and what it was made from: always the
    same for the same manifest seed (run.py saves failures with this)."""
    seeds = manifest[family]
    entry = seeds[i % len(seeds)]
    data = _read(entry["path"])
    r = mutate.rng_for(manifest["seed"], family, i)
    donors = [_read(s["path"]) for s in r.sample(seeds, min(2, len(seeds)))]
    if family == "vmfb":
        out, tag = mutate.mutate_vmfb(r, data, donors)
    elif family == "mlir":
        out, tag = mutate.mutate_text(r, data, donors), entry["dialect"]
    else:
        out, tag = mutate.mutate_onnx(r, data, donors), "onnx"
    return out, tag, entry


_cache = {}


def _read(path):
    if path not in _cache:
        with open(path, "rb") as f:
            _cache[path] = f.read()
    return _cache[path]


_devices = {}


def device(driver):
    if driver not in _devices:
        _devices[driver] = rt.get_driver(driver).create_default_device()
    return _devices[driver]


def bounded():
    """A deadline on the calls inside, where the runtime offers one."""
    d = getattr(rt, "deadline", None)
    if d is None:
        import contextlib

        return contextlib.nullcontext()
    return d(CALL_SECONDS)


def run_module(vmfb, driver, call=True, args_for=None):
    """Loads vmfb on driver with the check module, then calls up to
    MAX_CALLS of its functions (with args_for(name), else none); returns
    "accepted ..." or raises at load."""
    dev = device(driver)
    inst = rt.VmInstance()
    m = rt.VmModule.copy_buffer(inst, vmfb)
    try:
        ctx = rt.VmContext(inst, [rt.create_hal_module(inst, dev)])
        ctx._add_check_module()
        ctx.register_modules([m])
    except Exception:
        m.close()
        raise
    ok = failed = 0
    try:
        if call:
            for name in list(m.function_names)[:MAX_CALLS]:
                if name.startswith("__"):
                    continue
                try:
                    with bounded():
                        f = m.lookup_function(name)
                        if args_for is not None:
                            rt.FunctionInvoker(ctx, dev, f)(*args_for(name))
                        else:
                            ctx.invoke(f, rt.VmVariantList(0), rt.VmVariantList(0))
                    ok += 1
                except Exception:  # noqa: BLE001 - an error status is a clean outcome
                    failed += 1
    finally:
        ctx.close()
        m.close()
    return f"accepted calls={ok}/{ok + failed}"


def mlir_input(manifest, i, data, tag):
    backend = "llvm-cpu" if i % 10 == 0 and "llvm-cpu" in manifest["backends"] else "vmvx"
    vmfb = ireec.compile_str(data, target_backends=[backend])
    return run_module(vmfb, "local-sync" if i % 2 else "local-task") + f" {backend}"


_ONNX_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
                11: np.float64}


def onnx_args(data):
    """The arrays an ONNX model's graph inputs ask for (dims unknown or
    absurd: 2), or None where the model does not parse or is too large."""
    import onnx

    m = onnx.ModelProto()
    m.ParseFromString(data)
    inits = {t.name for t in m.graph.initializer}
    args = []
    for v in m.graph.input:
        if v.name in inits:
            continue
        tt = v.type.tensor_type
        shape = [d.dim_value if 0 < d.dim_value < 64 else 2 for d in tt.shape.dim]
        if int(np.prod(shape)) > MAX_ELEMENTS:
            return None
        dtype = _ONNX_DTYPES.get(tt.elem_type, np.float32)
        args.append((np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape))
    return args


def onnx_input(manifest, i, data, tag):
    vmfb = ireec.compile_str(data, target_backends=["vmvx"], input_type="onnx")
    try:
        args = onnx_args(data)
    except Exception:  # noqa: BLE001 - the compiler took it; the onnx package need not
        args = None
    if args is None:
        return run_module(vmfb, "local-sync", call=False) + " (not called)"
    return run_module(vmfb, "local-sync" if i % 2 else "local-task", args_for=lambda _: args)


def vmfb_input(manifest, i, data, tag, entry):
    # A changed llvm-cpu ELF must be refused or load; running changed
    # machine code is outside what any loader can check (docs/module-format.md).
    return run_module(data, "local-sync" if i % 2 else "local-task", call=tag != "native") + f" {tag}"


def one(manifest, family, i):
    if family == "pycall":
        import pycalls

        return pycalls.run(i)
    if family in ("soak", "soak-mobilenet", "threads"):
        import stress

        return stress.run(family, manifest)
    data, tag, entry = make_input(manifest, family, i)
    if family == "vmfb":
        return vmfb_input(manifest, i, data, tag, entry)
    if family == "mlir":
        return mlir_input(manifest, i, data, tag)
    return onnx_input(manifest, i, data, tag)


def main():
    manifest_path, family, start, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(manifest_path) as f:
        manifest = json.load(f)
    out = sys.stdout
    for i in range(start, count):
        out.write(f"start {i}\n")
        out.flush()
        try:
            detail = one(manifest, family, i)
        except Exception as e:  # noqa: BLE001 - an error status is a clean rejection
            msg = str(e).replace("\n", " ")[:160]
            detail = f"rejected {type(e).__name__}: {msg}"
        out.write(f"done {i} {detail}\n")
        out.flush()


if __name__ == "__main__":
    main()
