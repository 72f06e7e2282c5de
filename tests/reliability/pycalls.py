"""100 bad Python calls through iree_go.runtime and iree_go.compiler: wrong
dtypes, shapes and arity, None, closed objects, huge dimensions, junk
bytes, unknown names. Each must raise a Python exception or return; none
may crash or hang the process. run(i) is case i (the worker's unit)."""

import os
import tempfile

import numpy as np

import iree_go.compiler as ireec
import iree_go.runtime as rt

MUL = """func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.negf %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @fill(%n: index) -> tensor<?xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.fill ins(%c : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @scale(%x: tensor<2x3xi32>, %s: i32) -> tensor<2x3xi32> {
  %b = tensor.splat %s : tensor<2x3xi32>
  %r = arith.muli %x, %b : tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
"""

_env = {}


def env():
    """The objects the cases misuse, made once per worker."""
    if not _env:
        vmfb = ireec.compile_str(MUL, target_backends=["vmvx"])
        _env["vmfb"] = vmfb
        _env["m"] = rt.load_vm_flatbuffer(vmfb, driver="local-sync")
        _env["dev"] = rt.get_driver("local-task").create_default_device()
    return _env


def _huge(shape):
    """A numpy view of `shape` over one element (stride 0): huge dims with no
    memory behind them."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=shape, strides=(0,) * len(shape))


F4 = np.arange(4, dtype=np.float32)

# Bad arguments for @mul(tensor<4xf32>, tensor<4xf32>).
_MUL_ARGS = [
    (), (F4,), (F4, F4, F4), (None, F4), (F4, None), ("abc", F4), (F4.astype(np.int32), F4),
    (F4.astype(np.float64), F4), (F4.astype(np.float16), F4), (F4.astype(np.complex64), F4),
    (np.ones(3, np.float32), F4), (np.ones((4, 4), np.float32), F4), (np.float32(2), F4), (F4, [1, 2, "x", 4]),
    (F4, object()), (np.array(["a"] * 4), F4), (np.array([None] * 4), F4), (F4.astype(bool), F4),
    (np.ones(8, np.float32)[::2], F4), (_huge((1 << 40,)), F4), (_huge((1 << 20, 1 << 20)), F4),
    (np.empty(0, np.float32), F4), (F4, 3.5), (F4, {"a": 1}),
]
# Bad arguments for @neg(tensor<?xf32>) and @fill(index).
_NEG_ARGS = [(), (None,), (_huge((1 << 40,)),), (_huge((1 << 60,)),), (np.ones((2, 2), np.float32),),
             (np.ones(3, np.int8),), ("neg",), (np.float32(1),), (F4, F4)]
_FILL_ARGS = [(-1,), (1 << 40,), (1 << 62,), ((1 << 63) - 1,), (1 << 64,), (-(1 << 63),), ("7",), (None,),
              (3.5,), (np.int64(-5),), ()]
_SCALE_ARGS = [(np.ones((2, 3), np.int32), "x"), (np.ones((2, 3), np.int32), 1 << 40),
               (np.ones((2, 3), np.int32), None), (np.ones((3, 2), np.int32), 2), (np.ones((2, 3), np.float32), 2)]


def _call(fn, args):
    return lambda: getattr(env()["m"], fn)(*args)


def _closed(what):
    def case():
        e = env()
        inst = rt.VmInstance()
        dev = rt.get_driver("local-sync").create_default_device()
        m = rt.VmModule.copy_buffer(inst, e["vmfb"])
        ctx = rt.VmContext(inst, [rt.create_hal_module(inst, dev), m])
        f = rt.FunctionInvoker(ctx, dev, m.lookup_function("mul"))
        r = f(F4, F4)
        if what == "context":
            ctx.close()
            f(F4, F4)
        elif what == "device":
            dev.close()
            f(F4, F4)
        elif what == "module":
            m.close()
            rt.VmContext(inst, [m])
        elif what == "lookup":
            m.close()
            m.lookup_function("mul")
        elif what == "result":
            dev.close()
            ctx.close()
            r.to_host()
        elif what == "twice":
            ctx.close()
            ctx.close()
            m.close()
            m.close()
            dev.close()
            dev.close()
            f(F4, F4)
        elif what == "semaphore":
            dev.close()
            dev.create_semaphore(0)
        elif what == "allocator":
            dev.close()
            dev.allocator.allocate_buffer(rt.MemoryType.DEVICE_LOCAL, rt.BufferUsage.DEFAULT, 16)
    return case


def _compile(src=MUL, **kw):
    return lambda: ireec.compile_str(src, **kw)


def _tmpdir_compile(kind):
    def case():
        d = tempfile.mkdtemp()
        if kind == "dir":
            return ireec.compile_file(d, target_backends=["vmvx"])
        if kind == "missing":
            return ireec.compile_file(os.path.join(d, "nope.mlir"), target_backends=["vmvx"])
        return ireec.compile_str(MUL, target_backends=["vmvx"], output_file=os.path.join(d, "no", "such", "x.vmfb"))
    return case


def _runtime(kind):
    def case():
        e = env()
        inst = rt.VmInstance()
        return {
            "copy_none": lambda: rt.VmModule.copy_buffer(inst, None),
            "copy_empty": lambda: rt.VmModule.copy_buffer(inst, b""),
            "copy_int": lambda: rt.VmModule.copy_buffer(inst, 123),
            "copy_junk": lambda: rt.VmModule.copy_buffer(inst, b"GREEVMFB" + b"\xff" * 100),
            "copy_noinst": lambda: rt.VmModule.copy_buffer(None, e["vmfb"]),
            "driver_none": lambda: rt.get_driver(None),
            "driver_bad": lambda: rt.get_driver("no-such-driver"),
            "device_int": lambda: rt.get_device(123),
            "device_bad": lambda: rt.get_device("local-task://99"),
            "ctx_none": lambda: rt.VmContext(None, []),
            "ctx_nonemod": lambda: rt.VmContext(inst, [None]),
            "ctx_str": lambda: rt.VmContext(inst, ["module"]),
            "lookup_none": lambda: rt.VmModule.copy_buffer(inst, e["vmfb"]).lookup_function(None),
            "lookup_missing": lambda: getattr(e["m"], "no_such_function")(),
            "list_neg": lambda: rt.VmVariantList(-1),
            "list_huge": lambda: rt.VmVariantList(1 << 62),
            "list_get": lambda: rt.VmVariantList(2).get_as_object(5, rt.HalBufferView),
            "array_none": lambda: rt.asdevicearray(e["dev"], None),
            "array_obj": lambda: rt.asdevicearray(e["dev"], np.array([object()])),
            "array_huge": lambda: rt.asdevicearray(e["dev"], _huge((1 << 40,))),
            "sem_neg": lambda: e["dev"].create_semaphore(-1),
            "sem_wait": lambda: e["dev"].create_semaphore(0).wait(1 << 62, timeout=0),
            "alloc_huge": lambda: e["dev"].allocator.allocate_buffer(rt.MemoryType.DEVICE_LOCAL,
                                                                     rt.BufferUsage.DEFAULT, 1 << 62),
            "alloc_neg": lambda: e["dev"].allocator.allocate_buffer(rt.MemoryType.DEVICE_LOCAL,
                                                                    rt.BufferUsage.DEFAULT, -1),
            "load_junk": lambda: rt.load_vm_flatbuffer(b"junk", driver="local-sync"),
            "load_baddriver": lambda: rt.load_vm_flatbuffer(e["vmfb"], driver="no-such"),
            "load_none": lambda: rt.load_vm_flatbuffer(None, driver="local-sync"),
            "flags_bad": lambda: rt.flags.parse_flags("--no-such-flag=1"),
            "flags_none": lambda: rt.flags.parse_flags(None),
            "invoker_none": lambda: rt.FunctionInvoker(None, e["dev"], None)(F4),
            "hal_module_none": lambda: rt.create_hal_module(inst, None),
            "dlpack_junk": lambda: rt.from_dlpack(object()),
        }[kind]()
    return case


CASES = (
    [_call("mul", a) for a in _MUL_ARGS]
    + [_call("neg", a) for a in _NEG_ARGS]
    + [_call("fill", a) for a in _FILL_ARGS]
    + [_call("scale", a) for a in _SCALE_ARGS]
    + [_closed(w) for w in ("context", "device", "module", "lookup", "result", "twice", "semaphore", "allocator")]
    + [_compile(None), _compile(b"\xff\xfe\x00garbage"), _compile(target_backends=["no-such-backend"]),
       _compile(target_backends=None), _compile(target_backends=[None]), _compile(input_type="bogus"),
       _compile(target_backends=["vmvx"], extra_args=["--no-such-option"]),
       _compile(target_backends=["vmvx"], extra_args=[None]),
       _compile("func.func @f(" * 20000, target_backends=["vmvx"]),
       _compile(MUL.replace("4xf32", "1099511627776xf32"), target_backends=["vmvx"]),
       _compile(target_backends=["vmvx"], output_format="bogus"),
       _tmpdir_compile("dir"), _tmpdir_compile("missing"), _tmpdir_compile("outdir")]
    + [_runtime(k) for k in (
        "copy_none", "copy_empty", "copy_int", "copy_junk", "copy_noinst", "driver_none", "driver_bad",
        "device_int", "device_bad", "ctx_none", "ctx_nonemod", "ctx_str", "lookup_none", "lookup_missing",
        "list_neg", "list_huge", "list_get", "array_none", "array_obj", "array_huge", "sem_neg", "sem_wait",
        "alloc_huge", "alloc_neg", "load_junk", "load_baddriver", "load_none", "flags_bad", "flags_none",
        "invoker_none", "hal_module_none", "dlpack_junk")]
)


def run(i):
    """Runs case i: "rejected TYPE" for an exception, "accepted" for a
    return (a call that was not bad after all, as an empty array may be)."""
    try:
        r = CASES[i]()
        if hasattr(r, "to_host"):
            r.to_host()
        return "accepted"
    except Exception as e:  # noqa: BLE001 - the exception is the point
        return f"rejected {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
