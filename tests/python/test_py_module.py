"""PyModuleInterface: VM modules written in Python, imported by compiled
modules (func.func private @pymod.fn declarations) and called through the VM."""

import gc
import threading
import time

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as rt

N = 8192  # 32 KiB of f32: large enough for the device's buffer cache to recycle

PROGRAM = f"""
func.func private @pymod.add(i32, i32) -> i32
func.func private @pymod.scale(tensor<4xf32>, f32) -> tensor<4xf32>
func.func private @pymod.keep(tensor<{N}xf32>)
util.func private @pymod.fail(i64) -> i64

func.func @calc(%a: i32, %b: i32) -> i32 {{
  %0 = func.call @pymod.add(%a, %b) : (i32, i32) -> i32
  %c10 = arith.constant 10 : i32
  %1 = arith.muli %0, %c10 : i32
  return %1 : i32
}}

func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %s = arith.constant 3.0 : f32
  %0 = func.call @pymod.scale(%x, %s) : (tensor<4xf32>, f32) -> tensor<4xf32>
  %1 = arith.addf %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}}

func.func @store(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %t = arith.addf %x, %x : tensor<{N}xf32>
  func.call @pymod.keep(%t) : (tensor<{N}xf32>) -> ()
  %u = arith.mulf %x, %x : tensor<{N}xf32>
  return %u : tensor<{N}xf32>
}}

func.func @failing(%a: i64) -> i64 {{
  %0 = func.call @pymod.fail(%a) : (i64) -> i64
  return %0 : i64
}}
"""


@pytest.fixture(scope="module")
def program():
    return ireec.compile_str(PROGRAM, target_backends=["vmvx"])


@pytest.fixture(scope="module")
def device():
    return rt.get_device("local-sync")


class Methods:
    """The state of pymod in one context."""

    def __init__(self, iface, device):
        self.iface = iface
        self.device = device
        self.calls = 0
        self.kept = []
        self.threads = set()

    def add(self, a, b):
        self.calls += 1
        self.threads.add(threading.get_ident())
        return a + b + 100 * (self.calls - 1)

    def scale(self, x, s):
        view = x.deref(rt.HalBufferView)
        host = rt.DeviceArray(self.device, view, implicit_host_transfer=True).to_host()
        out = np.ascontiguousarray(host * np.float32(s))
        return self.device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
            device=self.device, buffer=out, element_type=rt.HalElementType.FLOAT_32).ref

    def keep(self, t):
        self.kept.append(t.deref(rt.HalBufferView))

    def fail(self, a):
        raise KeyError(f"no entry {a}")


def make_pymod(device, made=None):
    def ctor(iface):
        state = Methods(iface, device)
        if made is not None:
            made.append(state)
        return state

    iface = rt.PyModuleInterface("pymod", ctor)
    iface.export("add", "0ii_i", Methods.add)
    iface.export("scale", "0rf_r", Methods.scale)
    iface.export("keep", "0r_v", Methods.keep)
    iface.export("fail", "0I_I", Methods.fail)
    return iface


def context_with(device, iface_module, program):
    instance = rt.VmInstance()
    compiled = rt.VmModule.copy_buffer(instance, program)
    ctx = rt.VmContext(instance, modules=(rt.create_hal_module(instance, device), iface_module, compiled))
    return ctx, compiled


def call(ctx, compiled, name, *args):
    f = compiled.lookup_function(name)
    inputs = rt.VmVariantList(len(args))
    for a in args:
        if isinstance(a, rt.HalBufferView):
            inputs.push_ref(a)
        else:
            inputs.push_int(a)
    results = rt.VmVariantList(1)
    ctx.invoke(f, inputs, results)
    return results


def view_of(device, array):
    return device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
        device=device, buffer=np.ascontiguousarray(array), element_type=rt.HalElementType.FLOAT_32)


def host(device, view):
    return rt.DeviceArray(device, view, implicit_host_transfer=True).to_host()


def test_compiled_module_calls_python_scalars_with_per_context_state(device, program):
    made = []
    iface = make_pymod(device, made)
    m = iface.create()
    ctx1, c1 = context_with(device, m, program)
    ctx2, c2 = context_with(device, m, program)
    assert len(made) == 2
    # calc(a, b) = pymod.add(a, b) * 10, where add counts its calls per context.
    assert call(ctx1, c1, "calc", 2, 3).get_variant(0) == 50
    assert call(ctx1, c1, "calc", 2, 3).get_variant(0) == 1050
    assert call(ctx2, c2, "calc", 2, 3).get_variant(0) == 50
    assert [s.calls for s in made] == [2, 1]
    ctx1 = ctx2 = c1 = c2 = m = None
    made.clear()
    gc.collect()
    assert iface.destroyed


def test_compiled_module_passes_and_takes_buffer_views(device, program):
    iface = make_pymod(device)
    ctx, compiled = context_with(device, iface.create(), program)
    x = np.array([1.5, -2.0, 0.25, 7.0], np.float32)
    res = call(ctx, compiled, "tensors", view_of(device, x))
    # tensors(x) = pymod.scale(x, 3) + x, the scaling done by numpy in Python.
    np.testing.assert_allclose(host(device, res.get_as_object(0, rt.HalBufferView)), x * 3 + x)


def test_buffers_python_keeps_are_not_recycled(device, program):
    made = []
    iface = make_pymod(device, made)
    ctx, compiled = context_with(device, iface.create(), program)
    xs = [np.full(N, v, np.float32) for v in (1.5, 2.5, 3.5)]
    outs = []
    for x in xs:
        outs.append(call(ctx, compiled, "store", view_of(device, x)).get_as_object(0, rt.HalBufferView))
        gc.collect()
    # Each kept tensor is x + x of its call, although the program discarded it
    # and later calls allocated buffers of its size.
    for x, kept, out in zip(xs, made[0].kept, outs):
        np.testing.assert_array_equal(host(device, kept), x + x)
        np.testing.assert_array_equal(host(device, out), x * x)


def test_python_exception_fails_the_call_with_its_cause(device, program):
    iface = make_pymod(device)
    ctx, compiled = context_with(device, iface.create(), program)
    with pytest.raises(RuntimeError, match=r"pymod\.fail: Exception raised from Python module: KeyError: 'no entry 7'") as info:
        call(ctx, compiled, "failing", 7)
    assert isinstance(info.value.__cause__, KeyError)
    # The context stays usable.
    assert call(ctx, compiled, "calc", 1, 1).get_variant(0) == 20


def test_calls_from_threads_and_off_the_callers_thread(device, program):
    class Slow(Methods):
        def add(self, a, b):
            time.sleep(0.002)  # a call over 1 ms: the next ones run off the caller's thread
            return Methods.add(self, a, b)

    made = []
    iface = rt.PyModuleInterface("pymod", lambda i: made.append(Slow(i, device)) or made[-1])
    for name, cc in (("add", "0ii_i"), ("scale", "0rf_r"), ("keep", "0r_v"), ("fail", "0I_I")):
        iface.export(name, cc, getattr(Slow, name))
    ctx, compiled = context_with(device, iface.create(), program)
    errors = []

    def worker():
        try:
            for _ in range(5):
                v = call(ctx, compiled, "calc", 1, 2).get_variant(0)
                assert v % 1000 == 30, v
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert made[0].calls == 20
    # Some calls ran Python on a thread Python did not start (libgree's own).
    assert made[0].threads - {t.ident for t in threads}


def test_errors_name_their_cause(device, program):
    iface = rt.PyModuleInterface("pymod", lambda i: None)
    with pytest.raises(ValueError, match="variadic"):
        iface.export("v", "0CiD_i", lambda s: 0)
    with pytest.raises(ValueError, match="Unparsable"):
        iface.export("v", "ii", lambda s: 0)
    iface.export("add", "0ii_I", lambda s, a, b: a + b)  # i64 result: not what PROGRAM imports
    with pytest.raises(ValueError, match="already defined"):
        iface.export("add", "0ii_i", lambda s, a, b: a + b)
    m = iface.create()
    with pytest.raises(RuntimeError, match="frozen"):
        iface.export("x", "0v", lambda s: None)
    with pytest.raises(ValueError, match="pymod.add"):
        context_with(device, m, program)

    def bad_ctor(iface):
        raise OSError("no state here")

    broken = rt.PyModuleInterface("pymod", bad_ctor).create()
    with pytest.raises(RuntimeError, match="Exception in call to PyModule constructor: OSError: no state here") as info:
        rt.VmContext(rt.VmInstance(), modules=(broken,))
    assert isinstance(info.value.__cause__, OSError)

    none_ref = rt.PyModuleInterface("nullret", lambda i: None)
    none_ref.export("f", "0v_r", lambda s: None)
    nm = none_ref.create()
    ctx = rt.VmContext(rt.VmInstance(), modules=(nm,))
    with pytest.raises(RuntimeError, match="expected ref returned from Python function") as info:
        ctx.invoke(nm.lookup_function("f"), rt.VmVariantList(0), rt.VmVariantList(1))
    assert info.value.code == 9  # FAILED_PRECONDITION


C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

#include "gree.h"

static int made, freed, destroyed;

static gree_status_t alloc_state(void* user, void** out_state) {
  (void)user;
  int* n = calloc(1, sizeof(int));
  if (!n) return gree_status_allocate(GREE_STATUS_RESOURCE_EXHAUSTED, "no memory");
  *out_state = n;
  made++;
  return NULL;
}
static void free_state(void* user, void* state) { (void)user; free(state); freed++; }
static void destroy(void* user) { destroyed += *(int*)user; }
static gree_status_t call(void* user, void* state, size_t fn, gree_value_list_t args,
                          gree_value_list_t results) {
  (void)user;
  int64_t a = 0;
  gree_status_t st = gree_value_list_get(args, 0, NULL, &a, NULL, NULL, NULL);
  if (st) return st;
  if (fn == 1) return gree_status_allocate(GREE_STATUS_OUT_OF_RANGE, "c says no");
  *(int*)state += 1;
  /* an i64 for an i32 result: converted to the signature */
  return gree_value_list_push_i64(results, a * 3 + *(int*)state);
}

static int fail(const char* what, gree_status_t st) {
  printf("%s: %s\n", what, gree_status_message(st));
  gree_status_free(st);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  static uint8_t data[1 << 20];
  size_t size = fread(data, 1, sizeof data, f);
  fclose(f);
  int one = 1;
  const char* names[] = {"triple", "refuse"};
  const char* cconvs[] = {"0i_i", "0I_v"};
  gree_host_module_callbacks_t cb = {alloc_state, free_state, call, destroy};
  gree_module_t host = NULL, compiled = NULL;
  gree_status_t st;
  if ((st = gree_host_module_create("cmod", 2, names, cconvs, &cb, &one, &host))) return fail("create", st);
  if ((st = gree_module_load(data, size, &compiled))) return fail("load", st);
  gree_driver_t driver = NULL;
  gree_device_t device = NULL;
  gree_context_t ctx = NULL;
  if ((st = gree_driver_create("local-sync", &driver))) return fail("driver", st);
  if ((st = gree_driver_create_default_device(driver, &device))) return fail("device", st);
  if ((st = gree_context_create(device, &ctx))) return fail("context", st);
  if ((st = gree_context_add_module(ctx, host))) return fail("add host", st);
  if ((st = gree_context_add_module(ctx, compiled))) return fail("add compiled", st);
  gree_module_release(host); /* the context keeps it */
  for (int i = 0; i < 2; ++i) {
    gree_value_list_t args = NULL, results = NULL;
    gree_value_list_create(&args);
    gree_value_list_push_i32(args, 5);
    if ((st = gree_context_invoke(ctx, "module", "twice", args, &results))) return fail("twice", st);
    int64_t v = 0;
    gree_value_list_get(results, 0, NULL, &v, NULL, NULL, NULL);
    printf("twice(5) = %lld\n", (long long)v);
    gree_value_list_release(results);
    gree_value_list_release(args);
  }
  gree_value_list_t args = NULL, results = NULL;
  gree_value_list_create(&args);
  gree_value_list_push_i64(args, 1);
  st = gree_context_invoke(ctx, "module", "refused", args, &results);
  printf("refused: %s: %s\n", gree_status_code_string(gree_status_code(st)), gree_status_message(st));
  gree_status_free(st);
  gree_value_list_release(args);
  printf("before release: made %d freed %d destroyed %d\n", made, freed, destroyed);
  gree_context_release(ctx);
  printf("after release: made %d freed %d destroyed %d\n", made, freed, destroyed);
  gree_module_release(compiled);
  gree_device_release(device);
  gree_driver_release(driver);
  return 0;
}
"""

C_IMPORTER = """
func.func private @cmod.triple(i32) -> i32
func.func private @cmod.refuse(i64)
func.func @twice(%a: i32) -> i32 {
  %0 = func.call @cmod.triple(%a) : (i32) -> i32
  %1 = func.call @cmod.triple(%0) : (i32) -> i32
  return %1 : i32
}
func.func @refused(%a: i64) {
  func.call @cmod.refuse(%a) : (i64) -> ()
  return
}
"""


def test_c_host_module_imported_by_compiled_module(tmp_path):
    """The C ABI under PyModuleInterface, from C: callbacks with per-context
    state, a compiled module calling them, a failing callback's status, and
    the lifecycle (states freed and the module destroyed with the context)."""
    import os
    import shutil
    import subprocess

    from iree_go import _capi

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler on PATH")
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    lib_dir = os.path.dirname(_capi.library_path)
    src, exe, vmfb = tmp_path / "host.c", tmp_path / "host", tmp_path / "importer.vmfb"
    src.write_text(C_PROGRAM)
    vmfb.write_bytes(ireec.compile_str(C_IMPORTER, target_backends=["vmvx"]))
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(repo, "include"), str(src),
                    "-L", lib_dir, "-lgree", "-Wl,-rpath," + lib_dir, "-o", str(exe)], check=True)
    out = subprocess.run([str(exe), str(vmfb)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    # triple(x) = 3x + (calls so far in this context): 3*(3*5+1)+2, then 3*(3*5+3)+4.
    assert out.stdout.splitlines() == [
        "twice(5) = 50",
        "twice(5) = 58",
        "refused: OUT_OF_RANGE: OUT_OF_RANGE; cmod.refuse: c says no",
        "before release: made 1 freed 0 destroyed 0",
        "after release: made 1 freed 1 destroyed 1",
    ]


def test_python_function_may_call_back_into_its_context():
    src = """
    func.func private @pm.cb(i32) -> i32
    func.func @outer(%a: i32) -> i32 {
      %0 = func.call @pm.cb(%a) : (i32) -> i32
      return %0 : i32
    }
    func.func @inner(%a: i32) -> i32 {
      %c = arith.constant 100 : i32
      %0 = arith.addi %a, %c : i32
      return %0 : i32
    }
    """
    instance = rt.VmInstance()
    compiled = rt.VmModule.copy_buffer(instance, ireec.compile_str(src, target_backends=["vmvx"]))
    env = {}

    def cb(state, a):
        inner = rt.VmVariantList(1)
        inner.push_int(a)
        res = rt.VmVariantList(1)
        env["ctx"].invoke(compiled.lookup_function("inner"), inner, res)
        return res.get_variant(0) * 2

    iface = rt.PyModuleInterface("pm", lambda i: None)
    iface.export("cb", "0i_i", cb)
    env["ctx"] = rt.VmContext(instance, modules=(iface.create(), compiled))
    # outer(5) = pm.cb(5) = inner(5) * 2, inner called from Python during outer.
    assert call(env["ctx"], compiled, "outer", 5).get_variant(0) == 210
