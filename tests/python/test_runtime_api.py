"""iree_go.runtime's module and invocation API, as IREE's Python docs and
tests use it (REFERENCE §2.6-2.10, §2.12)."""

import contextlib
import copy
import io
import pickle
import threading
import warnings

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

SIMPLE_MUL = """
module @arithmetic {
  func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.mulf %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""

# Programs without dispatches: they need no kernels.
MISC = """
func.func @scalars(%a: i32, %b: i64, %c: f32, %d: f64) -> (i32, i64, f32, f64) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %b, %b : i64
  %2 = arith.mulf %c, %c : f32
  %3 = arith.addf %d, %d : f64
  return %0, %1, %2, %3 : i32, i64, f32, f64
}
func.func @add_i32(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
func.func @passthrough(%t: tensor<2x3xi32>) -> tensor<2x3xi32> {
  return %t : tensor<2x3xi32>
}
func.func @dynamic(%t: tensor<?x3xf32>) -> tensor<?x3xf32> {
  return %t : tensor<?x3xf32>
}
func.func @rank0(%t: tensor<f32>) -> tensor<f32> {
  return %t : tensor<f32>
}
func.func @bools(%t: tensor<3xi1>, %b: i1) -> (tensor<3xi1>, i1) {
  return %t, %b : tensor<3xi1>, i1
}
func.func @nothing() {
  return
}
util.global private mutable @counter = dense<0.0> : tensor<f32>
func.func @bump() -> tensor<f32> {
  %v = util.global.load @counter : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = arith.addf %v, %one : tensor<f32>
  util.global.store %n, @counter : tensor<f32>
  return %n : tensor<f32>
}
util.global private mutable @total = 0 : i64
func.func @accumulate(%x: i64) -> i64 {
  %v = util.global.load @total : i64
  %n = arith.addi %v, %x : i64
  util.global.store %n, @total : i64
  return %n : i64
}
"""

CHECKS = """
func.func @passes() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  %c = util.unfoldable_constant 1 : i32
  check.expect_true(%c) : i32
  return
}
func.func @fails() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 3]> : tensor<2xi32>) : tensor<2xi32>
  return
}
"""


@pytest.fixture(scope="module")
def mul_vmfb():
    return ireec.compile_str(SIMPLE_MUL, target_backends=["vmvx"])


@pytest.fixture(scope="module")
def misc_vmfb():
    return ireec.compile_str(MISC, target_backends=["vmvx"])


# ---- REFERENCE §2.12: the guide's snippet, unchanged but for the imports ----

GUIDE_SNIPPET = '''
import iree_go.compiler as ireec
import iree_go.runtime as ireert
import numpy as np

INPUT_MLIR = """
module @arithmetic {
  func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.mulf %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
compiled_flatbuffer = ireec.tools.compile_str(INPUT_MLIR, target_backends=["vmvx"])  # -> bytes

config = ireert.Config("local-task")               # vmvx and llvm-cpu both run on local-*
ctx = ireert.SystemContext(config=config)
vm_module = ireert.VmModule.copy_buffer(ctx.instance, compiled_flatbuffer)  # or from_flatbuffer
ctx.add_vm_module(vm_module)

f = ctx.modules.arithmetic["simple_mul"]           # module name from `module @arithmetic`
arg0 = np.array([1., 2., 3., 4.], dtype=np.float32)
arg1 = np.array([4., 5., 6., 7.], dtype=np.float32)
results = f(arg0, arg1).to_host()                  # DeviceArray -> np.ndarray
print("Results:", results)                         # Results: [ 4. 10. 18. 28.]
'''


def test_python_guide_snippet_runs_unchanged():
    out = io.StringIO()
    scope = {}
    with contextlib.redirect_stdout(out):
        exec(compile(GUIDE_SNIPPET, "guide_snippet", "exec"), scope)
    assert out.getvalue() == "Results: [ 4. 10. 18. 28.]\n"
    ctx, vm_module, f = scope["ctx"], scope["vm_module"], scope["f"]
    assert "hal" in ctx.modules and "arithmetic" in ctx.modules
    assert ctx.is_dynamic and ctx.config is scope["config"] and ctx.instance is scope["config"].vm_instance
    assert repr(vm_module) == "<VmModule arithmetic : [simple_mul]>"
    with pytest.raises(ValueError, match=r"^Attempt to register duplicate VmModule: 'arithmetic'$"):
        ctx.add_vm_module(vm_module)
    with pytest.raises(KeyError, match="Function 'nope' not found in module"):
        ctx.modules.arithmetic["nope"]
    with pytest.raises(AttributeError):
        ctx.modules.arithmetic.nope
    with pytest.raises(AttributeError):
        ctx.modules.nope


# ---- load_vm_flatbuffer and chained calls (system_api_test.py) -------------


@pytest.mark.parametrize("kw", [{"driver": "local-task"}, {"driver": "local-sync"}, {"backend": "vmvx"}])
def test_load_vm_flatbuffer_and_chained_invoke(mul_vmfb, kw):
    m = ireert.load_vm_flatbuffer(mul_vmfb, **kw)
    arg0 = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    arg1 = np.array([4.0, 5.0, 6.0, 7.0], dtype=np.float32)
    result = m.simple_mul(arg0, arg1)
    assert result.to_host().tolist() == [4, 10, 18, 28]
    chained = m.simple_mul(result, result)
    np.testing.assert_array_equal(chained.to_host(), [16, 100, 324, 784])
    assert m.name == "arithmetic" and m.vm_module.function_names == ["simple_mul"]


def test_load_errors_as_iree(mul_vmfb, tmp_path):
    with pytest.raises(ValueError, match=r"^Either 'driver' or 'backend' must be specified, but got 'None' for both\.$"):
        ireert.load_vm_flatbuffer(mul_vmfb)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'driver' and a 'backend' to infer the driver from\.$"):
        ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task", backend="vmvx")
    with pytest.raises(KeyError):
        ireert.load_vm_flatbuffer(mul_vmfb, backend="cuda")
    assert "cuda" not in ireert.TARGET_BACKEND_TO_DRIVER
    p = tmp_path / "m.vmfb"
    p.write_bytes(mul_vmfb)
    called = []
    m = ireert.load_vm_flatbuffer_file(str(p), driver="local-task", destroy_callback=lambda: called.append(1))
    assert m.simple_mul(np.ones(4, np.float32), np.ones(4, np.float32)).to_host().tolist() == [1, 1, 1, 1]
    m2 = ireert.load_vm_flatbuffer_file(str(p), backend="vmvx")
    assert m2.name == "arithmetic"


def test_load_vm_modules_share_one_context(mul_vmfb, misc_vmfb):
    config = ireert.Config("local-sync")
    inst = config.vm_instance
    a = ireert.VmModule.copy_buffer(inst, mul_vmfb)
    b = ireert.VmModule.copy_buffer(inst, misc_vmfb)
    ma, mb = ireert.load_vm_modules(a, b, config=config)
    assert (ma.name, mb.name) == ("arithmetic", "module")
    assert mb.add_i32(2, 3) == 5
    single = ireert.load_vm_module(b, config=config)
    assert single.vm_module is b
    ctx = ireert.SystemContext(vm_modules=[a], config=config)
    assert not ctx.is_dynamic and set(ctx.modules) == {"hal", "arithmetic"}
    with pytest.raises(AssertionError):
        ctx.add_vm_module(b)


# ---- VmModule / VmFunction --------------------------------------------------


def test_vm_module_and_function_objects(mul_vmfb, misc_vmfb):
    inst = ireert.VmInstance()
    m = ireert.VmModule.copy_buffer(inst, mul_vmfb)
    assert m.name == "arithmetic" and m.function_names == ["simple_mul"]
    assert m.stashed_flatbuffer_blob == mul_vmfb
    f = m.lookup_function("simple_mul")
    assert m.lookup_function("nope") is None
    assert (f.name, f.module_name, f.ordinal, f.linkage) == ("simple_mul", "arithmetic", 0, ireert.Linkage.EXPORT)
    decl = ("sync func @simple_mul(%input0: tensor<4xf32>, %input1: tensor<4xf32>) -> "
            "(%output0: tensor<4xf32>)")
    assert f.reflection == {"iree.abi.declaration": decl}
    assert repr(f) == "<VmFunction simple_mul(0rr_r), reflection = {'iree.abi.declaration': '" + decl + "'}>"
    misc = ireert.VmModule.copy_buffer(inst, misc_vmfb)
    assert misc.name == "module"  # an unnamed MLIR module
    assert repr(misc).startswith("<VmModule module : [scalars, add_i32, passthrough, ")
    assert "(0v_v)" in repr(misc.lookup_function("nothing"))
    assert "scalars(0iIfF_iIfF)" in repr(misc.lookup_function("scalars"))


def test_from_flatbuffer_warns_when_unaligned_and_wrap_buffer(mul_vmfb, tmp_path):
    inst = ireert.VmInstance()
    def placed(shift):
        buf = np.zeros(len(mul_vmfb) + 128, dtype=np.uint8)
        off = (-buf.ctypes.data) % 64 + shift
        view = buf[off:off + len(mul_vmfb)]
        view[:] = np.frombuffer(mul_vmfb, np.uint8)
        return view

    aligned, unaligned = placed(0), placed(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = ireert.VmModule.from_flatbuffer(inst, unaligned)
        assert len(w) == 1 and "Making copy of unaligned VmModule buffer" in str(w[0].message)
        assert "warn_if_copy=False" in str(w[0].message)
        ireert.VmModule.from_flatbuffer(inst, unaligned, warn_if_copy=False)
        ireert.VmModule.from_buffer(inst, aligned)
        wrapped = ireert.VmModule.wrap_buffer(inst, aligned)
        assert len(w) == 1
    assert m.function_names == ["simple_mul"] and wrapped.name == "arithmetic"
    with pytest.raises(ValueError, match="unaligned buffer"):
        ireert.VmModule.wrap_buffer(inst, unaligned)
    p = tmp_path / "m.vmfb"
    p.write_bytes(mul_vmfb)
    assert ireert.VmModule.mmap(inst, str(p)).function_names == ["simple_mul"]


def test_corrupt_module_bytes_are_errors_not_crashes(mul_vmfb, tmp_path):
    inst = ireert.VmInstance()
    with pytest.raises(RuntimeError, match=r"Error loading VmModule: DATA_LOSS; "):
        ireert.VmModule.copy_buffer(inst, mul_vmfb[: len(mul_vmfb) // 2])
    with pytest.raises(ValueError, match="not a gree module"):
        ireert.VmModule.copy_buffer(inst, b"\x00" * 64)
    with pytest.raises((ValueError, RuntimeError)):
        ireert.VmModule.copy_buffer(inst, b"")
    with pytest.raises((ValueError, RuntimeError)):
        ireert.load_vm_flatbuffer(mul_vmfb[:100], driver="local-task")
    empty = tmp_path / "empty.vmfb"
    empty.write_bytes(b"")
    with pytest.raises((ValueError, RuntimeError)):
        ireert.VmModule.mmap(inst, str(empty))
    # Every truncation and many single-byte corruptions load or fail cleanly.
    rng = np.random.default_rng(0)
    for n in range(0, len(mul_vmfb), 7):
        with pytest.raises((ValueError, RuntimeError)):
            ireert.VmModule.copy_buffer(inst, mul_vmfb[:n])
    a = np.array([1, 2, 3, 4], np.float32)
    for pos in rng.integers(0, len(mul_vmfb), 300):
        bad = bytearray(mul_vmfb)
        bad[pos] ^= int(rng.integers(1, 256))
        try:
            m = ireert.VmModule.copy_buffer(inst, bytes(bad))
        except (RuntimeError, ValueError) as e:
            assert str(e).startswith("Error loading VmModule: ")
            continue
        # A corruption the verifier accepts must still not crash a call.
        try:
            ctx = ireert.SystemContext(vm_modules=[m], config=ireert.Config("local-sync"))
            for name in m.function_names:
                ctx.modules[m.name][name](a, a)
        except (RuntimeError, ValueError, KeyError, IndexError, NotImplementedError):
            pass


# ---- argument errors --------------------------------------------------------


def test_wrong_arguments_are_value_errors_naming_the_argument(mul_vmfb):
    m = ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task")
    a = np.ones(4, np.float32)
    err = ireert.function.ArgumentError
    assert issubclass(err, ValueError) and issubclass(ireert.function.ReturnError, ValueError)
    with pytest.raises(err, match=r"^Error passing argument 1: expected tensor<4xf32>, got no value "
                                  r"\(function 'simple_mul' takes 2 arguments, 1 given\)$"):
        m.simple_mul(a)
    with pytest.raises(err, match=r"^Error passing argument 0: expected tensor<4xf32>, got no value"):
        m.simple_mul()
    with pytest.raises(err, match=r"^Error passing argument 2: expected no more arguments, got array of shape "
                                  r"\(4,\) and dtype float32 \(function 'simple_mul' takes 2 arguments, 3 given\)$"):
        m.simple_mul(a, a, a)
    with pytest.raises(ValueError, match=r"^Error passing argument 1: expected tensor<4xf32>, "
                                         r"got array of shape \(3,\) and dtype float32$"):
        m.simple_mul(a, np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"^Error passing argument 0: expected tensor<4xf32>, "
                                         r"got array of shape \(4,\) and dtype int32$"):
        m.simple_mul(np.ones(4, np.int32), a)
    with pytest.raises(ValueError, match=r"argument 0: expected tensor<4xf32>, got array of shape \(2, 2\)"):
        m.simple_mul(np.ones((2, 2), np.float32), a)
    with pytest.raises(ValueError, match=r"argument 1: expected tensor<4xf32>, got DeviceArray of shape \(3,\)"):
        m.simple_mul(a, ireert.asdevicearray(ireert.get_device("local-task"), np.ones(3, np.float32)))
    with pytest.raises(ValueError, match=r"argument 1: expected tensor<4xf32>, got None"):
        m.simple_mul(a, None)
    with pytest.raises(ValueError, match=r"argument 0: expected tensor<4xf32>, got list of shape \(4,\) "
                                         r"and dtype <U1"):
        m.simple_mul(["a", "b", "c", "d"], a)
    with pytest.raises(ValueError, match="keyword arguments"):
        m.simple_mul(a, arg1=a)
    # Array-likes of the right shape convert to the declared element type.
    assert m.simple_mul([1, 2, 3, 4], (0.5, 0.5, 0.5, 0.5)).to_host().tolist() == [0.5, 1, 1.5, 2]


def test_scalar_argument_errors(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    with pytest.raises(ValueError, match=r"^Error passing argument 0: expected i32, got float 1\.5$"):
        m.add_i32(1.5, 2)
    with pytest.raises(ValueError, match=r"argument 1: expected i32, got array of shape \(2,\)"):
        m.add_i32(1, np.ones(2, np.int32))
    with pytest.raises(ValueError, match=r"argument 0: expected i32, got 8589934592, which does not fit in i32"):
        m.add_i32(1 << 33, 1)
    with pytest.raises(ValueError, match=r"argument 0: expected tensor<2x3xi32>, got float 2\.0"):
        m.passthrough(2.0)


# ---- dispatch-free programs: scalars, tensors, globals ----------------------


def test_scalars(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    r = m.scalars(3, 4, 1.5, 0.25)
    assert r == (6, 16, 2.25, 0.5) and isinstance(r, tuple)
    assert [type(x) for x in r] == [int, int, float, float]
    # numpy scalars, 0-d arrays and bools are accepted too.
    assert m.scalars(np.int32(3), np.int64(-4), np.float32(2), np.array(1.0)) == (6, 16, 4.0, 2.0)
    assert m.add_i32(True, 2) == 3
    assert m.add_i32(-5, 2) == -3
    assert m.add_i32(2**31 - 1, 1) == -(2**31)  # i32 wraps, as in the VM
    assert m.scalars(0, 3_000_000_000, 0.0, 0.0)[1] == 9_000_000_000_000_000_000
    assert m.nothing() is None


def test_tensors_without_dispatches(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-sync")
    t = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = m.passthrough(t)
    assert isinstance(out, ireert.DeviceArray)
    assert out.shape == [2, 3] and out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), t)  # results allow implicit transfer
    # uint32 passes for a signless i32 (the result is the same view, so still uint32).
    assert m.passthrough(t.astype(np.uint32)).to_host().dtype == np.uint32
    assert m.passthrough(t[:, ::-1]).to_host().tolist() == [[2, 1, 0], [5, 4, 3]]  # non-contiguous input
    for rows in (0, 1, 5):
        d = np.full((rows, 3), 2.5, np.float32)
        r = m.dynamic(d)
        assert r.shape == [rows, 3]
        np.testing.assert_array_equal(r.to_host(), d)
    r0 = m.rank0(np.array(3.5, np.float32))
    assert r0.shape == [] and r0.to_host().shape == () and float(r0.to_host()) == 3.5
    assert float(m.rank0(2.0).to_host()) == 2.0  # a Python float for tensor<f32>
    bools, b = m.bools(np.array([True, False, True]), False)
    assert bools.dtype == np.bool_ and bools.to_host().tolist() == [True, False, True] and b == 0
    # Chaining a result back in passes it by reference.
    np.testing.assert_array_equal(m.passthrough(out).to_host(), t)


def test_globals_persist_across_calls_in_one_context(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    r1 = m.bump()
    r2 = m.bump()
    assert float(r1.to_host()) == 1.0 and float(r2.to_host()) == 2.0
    assert [m.accumulate(x) for x in (1, 2, 3)] == [1, 3, 6]
    # Another context has its own globals.
    other = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    assert float(other.bump().to_host()) == 1.0 and other.accumulate(10) == 10
    assert float(m.bump().to_host()) == 3.0 and m.accumulate(0) == 6


def test_concurrent_calls_on_one_context(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    errors = []

    def work():
        try:
            for _ in range(200):
                m.accumulate(1)
                m.bump()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert m.accumulate(0) == 1600 and float(m.bump().to_host()) == 1601.0


# ---- DeviceArray, HalBufferView, asdevicearray ------------------------------


def test_device_array_semantics(mul_vmfb):
    device = ireert.get_device("local-task")
    a = ireert.asdevicearray(device, np.array([1, 2, 3, 4], np.float32))
    assert repr(a) == "<IREE DeviceArray: shape=[4], dtype=float32>"
    assert str(a) == repr(a)  # no __str__: print() shows the repr
    assert a.shape == [4] and isinstance(a.shape, list) and a.dtype == np.float32
    with pytest.raises(ValueError, match=r"^DeviceArray cannot be implicitly transferred to the host: "
                                         r"if necessary, do an explicit transfer via \.to_host\(\)$"):
        np.asarray(a)
    assert a.to_host().tolist() == [1, 2, 3, 4]
    m = ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task")
    r = m.simple_mul(a, a)  # a DeviceArray argument is passed by reference
    assert repr(r) == "<IREE DeviceArray: shape=[4], dtype=float32>"
    assert (r + 1).tolist() == [2, 5, 10, 17]
    assert (2 * r).tolist() == [2, 8, 18, 32]
    assert (r == 4).tolist() == [False, True, False, False]
    assert r[1] == 4 and list(r) == [1, 4, 9, 16] and len(r) == 4
    assert r.reshape(2, 2).tolist() == [[1, 4], [9, 16]]
    assert r.astype(np.int32).dtype == np.int32
    assert copy.deepcopy(r).tolist() == [1, 4, 9, 16]
    assert pickle.loads(pickle.dumps(r)).tolist() == [1, 4, 9, 16]
    assert r.is_host_accessible
    d = ireert.asdevicearray(device, [[1, 2], [3, 4]], dtype=np.int32, implicit_host_transfer=True)
    assert d.shape == [2, 2] and np.asarray(d).tolist() == [[1, 2], [3, 4]]
    assert ireert.asdevicearray(device, d) is d
    z = ireert.asdevicearray(device, np.array(7, np.int64))
    assert z.shape == [] and int(z.to_host()) == 7
    with pytest.raises(ValueError, match=r"^Could not map dtype <U1 to IREE element type$"):
        ireert.asdevicearray(device, np.array(["x"]))


def test_hal_buffer_view(misc_vmfb):
    device = ireert.get_device("local-task")
    a = ireert.asdevicearray(device, np.arange(6, dtype=np.float32).reshape(2, 3))
    bv = a._buffer_view
    assert isinstance(bv, ireert.HalBufferView)
    assert bv.shape == [2, 3] and bv.element_type == ireert.HalElementType.FLOAT_32 and bv.byte_length == 24
    assert repr(bv).startswith("<HalBufferView (2, 3), element_type=0x20000021, 24 bytes (at offset 0 into 24), ")
    one = ireert.asdevicearray(device, np.zeros(4, np.int32))._buffer_view
    assert repr(one).startswith("<HalBufferView (4), element_type=0x20000011, 16 bytes")
    np.testing.assert_array_equal(bv.map().asarray([2, 3], np.float32), a.to_host())
    np.testing.assert_array_equal(bv.map().asarray([6], np.int32), a.to_host().view(np.int32).ravel())
    with pytest.raises(ValueError):
        bv.map().asarray([7], np.float32)
    assert bv.format() == "2x3xf32=[0 1 2][3 4 5]"
    with pytest.raises(TypeError):
        ireert.HalBufferView(None, [2], ireert.HalElementType.FLOAT_32)


def test_element_types_and_dtypes():
    ET = ireert.HalElementType
    assert int(ET.FLOAT_32) == 0x21000020 and int(ET.SINT_32) == 0x11000020 and int(ET.BOOL_8) == 0x13000008
    assert int(ET.BFLOAT_16) == 0x22000010 and int(ET.COMPLEX_64) == 0x23000040
    assert int(ET.FLOAT_8_E5M2) == 0x24000008 and int(ET.FLOAT_8_E8M0_FNU) == 0x28000008
    assert ET.map_to_dtype(ET.FLOAT_32) == np.float32
    assert ET.map_to_dtype(ET.INT_32) == np.int32 and ET.map_to_dtype(ET.UINT_8) == np.uint8
    assert ET.dense_byte_count(ET.BFLOAT_16) == 2 and ET.dense_byte_count(ET.INT_4) == 1
    assert ET.is_byte_aligned(ET.INT_8) and not ET.is_byte_aligned(ET.INT_4)
    with pytest.raises(ValueError):
        ET.map_to_dtype(ET.OPAQUE_8)
    from iree_go.runtime import dtypes

    assert dtypes.map_dtype_to_hal_element_type(np.float16) == ET.FLOAT_16
    assert dtypes.map_dtype_to_hal_element_type(np.bool_) == ET.BOOL_8
    assert dtypes.map_dtype_to_hal_element_type(np.complex128) == ET.COMPLEX_128
    assert dtypes.map_dtype_to_hal_element_type("U1") is None
    assert dtypes.map_dtype_to_dtype_info(np.uint32).abi_type == "i32"
    assert dtypes.map_abi_type_to_dtype_info("i32").dtype == np.int32
    assert dtypes.map_name_to_dtype_info("float64").hal_type == ET.FLOAT_64
    assert dtypes.DTYPE_TO_ABI_TYPE[np.dtype(np.complex64)] == "complex<f32>"
    if dtypes.ml_dtypes is not None:  # installed with iree-go; optional at run time
        import ml_dtypes

        assert dtypes.map_dtype_to_hal_element_type(ml_dtypes.bfloat16) == ET.BFLOAT_16
        assert dtypes.map_dtype_to_hal_element_type(ml_dtypes.float8_e4m3fn) == ET.FLOAT_8_E4M3_FN
        assert ET.map_to_dtype(ET.FLOAT_8_E5M2) == np.dtype(ml_dtypes.float8_e5m2)
        device = ireert.get_device("local-task")
        b = ireert.asdevicearray(device, np.array([1.5, -2], ml_dtypes.bfloat16))
        assert b._buffer_view.element_type == ET.BFLOAT_16 and b.dtype == ml_dtypes.bfloat16
        assert b.to_host().astype(np.float32).tolist() == [1.5, -2.0]


# ---- lower-level VM objects -------------------------------------------------


def test_vm_variant_list():
    device = ireert.get_device("local-task")
    lst = ireert.VmVariantList(4)
    lst.push_int(5)
    lst.push_float(2.5)
    bv = ireert.asdevicearray(device, np.array([1, 2], np.int32))._buffer_view
    lst.push_ref(bv)
    inner = ireert.VmVariantList(1)
    inner.push_int(-1)
    lst.push_list(inner)
    lst.push_ref(None)
    assert lst.size == 5 and len(lst) == 5
    assert lst.get_variant(0) == 5 and lst.get_variant(1) == 2.5 and lst.get_variant(4) is None
    got = lst.get_as_object(2, ireert.HalBufferView)
    assert got.shape == [2] and got.to_numpy().tolist() == [1, 2]
    assert lst.get_as_list(3).get_variant(0) == -1
    # Printed as IREE prints a list: plain numbers, a buffer view as its
    # shape and element-type bytes, nested lists as List[...].
    assert repr(lst) == "<VmVariantList(5): [5, 2.500000, HalBufferView(2:0x20000011), List[-1], None]>"
    with pytest.raises(IndexError):
        lst.get_variant(5)
    with pytest.raises(ValueError):
        lst.get_as_object(0)
    with pytest.raises(TypeError):
        lst.push_ref(3)
    # The buffer view outlives the Python object that pushed it.
    del bv, got
    import gc

    gc.collect()
    assert lst.get_as_object(2).to_numpy().tolist() == [1, 2]


def test_vm_context_invoke_with_variant_lists(misc_vmfb):
    inst = ireert.VmInstance()
    device = ireert.get_device("local-sync")
    m = ireert.VmModule.copy_buffer(inst, misc_vmfb)
    ctx = ireert.VmContext(inst, [ireert.create_hal_module(inst, device), m])
    inputs = ireert.VmVariantList(2)
    inputs.push_int(40)  # an i64, converted to the function's i32
    inputs.push_int(2)
    outputs = ireert.VmVariantList(1)
    ctx.invoke(m.lookup_function("add_i32"), inputs, outputs)
    assert outputs.get_variant(0) == 42
    inputs = ireert.VmVariantList(1)
    inputs.push_ref(ireert.asdevicearray(device, np.ones((2, 3), np.int32)))
    outputs = ireert.VmVariantList(1)
    ctx.invoke(m.lookup_function("passthrough"), inputs, outputs)
    assert outputs.get_as_object(0, ireert.HalBufferView).shape == [2, 3]
    with pytest.raises(ValueError, match="INVALID_ARGUMENT"):
        ctx.invoke(m.lookup_function("passthrough"), ireert.VmVariantList(0), outputs)
    with pytest.raises(ValueError):
        ireert.create_hal_module(inst, device=device, devices=[device])
    with pytest.raises(RuntimeError, match="ALREADY_EXISTS"):
        ctx.register_modules([m])


def test_check_module():
    vmfb = ireec.compile_str(CHECKS, target_backends=["vmvx"])
    inst = ireert.VmInstance()
    device = ireert.get_device("local-task")
    m = ireert.VmModule.copy_buffer(inst, vmfb)
    # Without the check module the (optional) imports fail when called.
    ctx = ireert.VmContext(inst, [ireert.create_hal_module(inst, device)])
    ctx.register_modules([m])
    with pytest.raises(ValueError, match="NOT_FOUND; optional import check.expect_eq is not available"):
        ctx.invoke(m.lookup_function("passes"), ireert.VmVariantList(0), ireert.VmVariantList(0))
    ctx = ireert.VmContext(inst, [ireert.create_hal_module(inst, device)])
    ctx._add_check_module()
    ctx.register_modules([m])
    out = ireert.VmVariantList(0)
    ctx.invoke(m.lookup_function("passes"), ireert.VmVariantList(0), out)
    with pytest.raises(RuntimeError, match=r"FAILED_PRECONDITION; Expected equality of these values"):
        ctx.invoke(m.lookup_function("fails"), ireert.VmVariantList(0), out)
    ctx.invoke(m.lookup_function("passes"), ireert.VmVariantList(0), out)  # failures do not stick
    assert len(out) == 0


# ---- Config, SystemContext, normalize_value ---------------------------------


def test_config():
    c1 = ireert.Config("local-task")
    c2 = ireert.Config("local-task")
    assert c1.device is c2.device  # devices are cached per URI
    assert c1.vm_instance is not c2.vm_instance
    assert repr(c1.device) == "local-task"
    assert [m.name for m in c1.default_vm_modules] == ["hal"]
    assert repr(ireert.Config("no-such-driver,local-sync").device) == "local-sync"
    assert ireert.Config(device=c1.device).device is c1.device
    with pytest.raises(ValueError, match=r"^Either 'device' or 'driver_name' can be specified \(not both\)$"):
        ireert.Config("local-task", device=c1.device)
    with pytest.raises(ValueError, match="No device found from list"):
        ireert.Config("no-such-driver")


def test_normalize_value():
    assert ireert.normalize_value(None) is None
    lst = [1, 2]
    assert ireert.normalize_value(lst) is lst
    assert ireert.normalize_value(1.5).dtype == np.float32
    assert ireert.normalize_value(3).dtype == np.int32
    assert ireert.normalize_value(True).dtype == np.bool_
    a = np.ones(2)
    assert ireert.normalize_value(a) is a


def test_exports():
    for name in ["BufferUsage", "HalBufferView", "HalDevice", "HalDriver", "HalElementType", "MappedMemory",
                 "MemoryAccess", "MemoryType", "create_hal_module", "Linkage", "VmVariantList", "VmFunction",
                 "VmInstance", "VmContext", "VmModule", "asdevicearray", "DeviceArray", "load_vm_flatbuffer",
                 "load_vm_flatbuffer_file", "load_vm_module", "load_vm_modules", "normalize_value", "Config",
                 "SystemContext", "TARGET_BACKEND_TO_DRIVER", "get_device", "get_first_device", "get_driver",
                 "query_available_drivers", "system_setup", "FunctionInvoker", "flags"]:
        assert hasattr(ireert, name), name
    assert set(ireert.__all__) <= set(dir(ireert))
    assert ireert.system_setup.DEFAULT_DRIVER_NAMES == "local-task,cuda,vulkan"


def test_runs_without_ml_dtypes():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import numpy as np, iree_go.runtime as r\n"
        "assert r.dtypes.ml_dtypes is None\n"
        "assert r.HalElementType.map_to_dtype(r.HalElementType.FLOAT_32) == np.float32\n"
        "try:\n"
        "    r.HalElementType.map_to_dtype(r.HalElementType.BFLOAT_16)\n"
        "except ValueError as e:\n"
        "    assert 'install ml_dtypes' in str(e)\n"
        "else:\n"
        "    raise AssertionError('bf16 mapped without ml_dtypes')\n"
        "d = r.get_device('local-task')\n"
        "assert r.asdevicearray(d, np.ones(2, np.float32)).to_host().tolist() == [1, 1]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
