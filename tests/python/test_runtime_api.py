"""iree_go.runtime's module and invocation API, as IREE's Python docs use it."""

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

MISC = """
func.func @scalars(%a: i32, %b: i64, %c: f32) -> (i32, i64, f32) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %b, %b : i64
  %2 = arith.mulf %c, %c : f32
  return %0, %1, %2 : i32, i64, f32
}
func.func @passthrough(%t: tensor<2x3xi32>) -> tensor<2x3xi32> {
  return %t : tensor<2x3xi32>
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
"""


@pytest.fixture(scope="module")
def mul_vmfb():
    return ireec.compile_str(SIMPLE_MUL, target_backends=["vmvx"])


@pytest.fixture(scope="module")
def misc_vmfb():
    return ireec.compile_str(MISC, target_backends=["vmvx"])


def test_python_guide_snippet(mul_vmfb):
    config = ireert.Config("local-task")
    ctx = ireert.SystemContext(config=config)
    vm_module = ireert.VmModule.copy_buffer(ctx.instance, mul_vmfb)
    ctx.add_vm_module(vm_module)
    f = ctx.modules.arithmetic["simple_mul"]
    arg0 = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    arg1 = np.array([4.0, 5.0, 6.0, 7.0], dtype=np.float32)
    results = f(arg0, arg1).to_host()
    np.testing.assert_array_equal(results, [4.0, 10.0, 18.0, 28.0])
    assert "hal" in ctx.modules
    assert repr(vm_module) == "<VmModule arithmetic : [simple_mul]>"
    assert "simple_mul(0rr_r)" in repr(f)
    assert repr(f(arg0, arg1)) == "<IREE DeviceArray: shape=[4], dtype=float32>"
    with pytest.raises(ValueError, match="duplicate VmModule: 'arithmetic'"):
        ctx.add_vm_module(vm_module)


@pytest.mark.parametrize("kw", [{"driver": "local-task"}, {"driver": "local-sync"}, {"backend": "vmvx"}])
def test_load_vm_flatbuffer_and_chained_invoke(mul_vmfb, kw):
    m = ireert.load_vm_flatbuffer(mul_vmfb, **kw)
    a = np.array([1, 2, 3, 4], dtype=np.float32)
    r = m.simple_mul(a, a * 2)
    np.testing.assert_array_equal(m.simple_mul(r, r).to_host(), [4, 64, 324, 1024])
    r1 = m.simple_mul(a * 2, a * 2)
    np.testing.assert_array_equal(m.simple_mul(r1, r1).to_host(), [16, 256, 1296, 4096])


def test_load_errors_as_iree(mul_vmfb, tmp_path):
    with pytest.raises(ValueError, match="Either 'driver' or 'backend' must be specified"):
        ireert.load_vm_flatbuffer(mul_vmfb)
    with pytest.raises(ValueError, match="Cannot specify both"):
        ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task", backend="vmvx")
    with pytest.raises(KeyError):
        ireert.load_vm_flatbuffer(mul_vmfb, backend="cuda")
    p = tmp_path / "m.vmfb"
    p.write_bytes(mul_vmfb)
    m = ireert.load_vm_flatbuffer_file(str(p), driver="local-task")
    assert m.simple_mul(np.ones(4, np.float32), np.ones(4, np.float32)).to_host().tolist() == [1, 1, 1, 1]


def test_wrong_arguments_are_value_errors(mul_vmfb):
    m = ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task")
    a = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="takes 2 argument"):
        m.simple_mul(a)
    with pytest.raises(ValueError, match=r"argument 1: expected tensor<4xf32>, got tensor<3xf32>"):
        m.simple_mul(a, np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"argument 0: expected tensor<4xf32>, got tensor<4xsi32>"):
        m.simple_mul(np.ones(4, np.int32), a)


def test_corrupt_module_bytes(mul_vmfb):
    inst = ireert.VmInstance()
    with pytest.raises(RuntimeError, match="DATA_LOSS"):
        ireert.VmModule.copy_buffer(inst, mul_vmfb[: len(mul_vmfb) // 2])
    with pytest.raises(ValueError, match="not a gree module"):
        ireert.VmModule.copy_buffer(inst, b"\x00" * 64)
    bad = bytearray(mul_vmfb)
    bad[70] ^= 0xFF
    try:
        ireert.VmModule.copy_buffer(inst, bytes(bad))
    except (RuntimeError, ValueError):
        pass


def test_from_flatbuffer_warns_when_unaligned(mul_vmfb):
    inst = ireert.VmInstance()
    buf = bytearray(len(mul_vmfb) + 1)
    view = memoryview(buf)[1:]
    view[:] = mul_vmfb
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = ireert.VmModule.from_flatbuffer(inst, view)
        m2 = ireert.VmModule.from_flatbuffer(inst, view, warn_if_copy=False)
    assert m.function_names == ["simple_mul"] and m2.name == "arithmetic"
    assert sum("Making copy of unaligned VmModule buffer" in str(x.message) for x in w) <= 1


def test_scalars_tensors_globals(misc_vmfb):
    m = ireert.load_vm_flatbuffer(misc_vmfb, driver="local-task")
    assert m.scalars(3, 4, 1.5) == (6, 16, 2.25)
    t = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = m.passthrough(t)
    assert out.shape == [2, 3] and out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), t)
    assert m.nothing() is None
    assert float(m.bump().to_host()) == 1.0
    assert float(m.bump().to_host()) == 2.0


def test_device_array_semantics(mul_vmfb):
    device = ireert.get_device("local-task")
    a = ireert.asdevicearray(device, np.array([1, 2, 3, 4], np.float32))
    with pytest.raises(ValueError, match="cannot be implicitly transferred"):
        np.asarray(a)
    assert a.to_host().tolist() == [1, 2, 3, 4]
    m = ireert.load_vm_flatbuffer(mul_vmfb, driver="local-task")
    r = m.simple_mul(a, a)
    assert (r + 1).tolist() == [2, 5, 10, 17]
    with pytest.raises(ValueError, match="Could not map dtype"):
        ireert.asdevicearray(device, np.array(["x"]))


def test_element_types():
    ET = ireert.HalElementType
    assert int(ET.FLOAT_32) == 0x21000020
    assert ET.map_to_dtype(ET.FLOAT_32) == np.float32
    assert ET.dense_byte_count(ET.BFLOAT_16) == 2
    assert ET.is_byte_aligned(ET.INT_8) and not ET.is_byte_aligned(ET.INT_4)
