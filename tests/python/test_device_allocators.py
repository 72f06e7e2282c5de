"""Allocator specs on devices (IREE's create_device(allocators=[...]) and
--device_allocator) and HAL modules over several devices
(create_hal_module(devices=[...]))."""

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert
from iree_go._capi import ffi, lib

DEVICE_LOCAL = ireert.MemoryType.DEVICE_LOCAL
USAGE = ireert.BufferUsage.DEFAULT | ireert.BufferUsage.MAPPING

ADD = """
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = arith.mulf %a, %b : tensor<1000xf32>
  %1 = arith.addf %0, %a : tensor<1000xf32>
  return %1 : tensor<1000xf32>
}
"""


def _device(allocators=None):
    driver = ireert.get_driver("local-sync")
    return driver.create_device(driver.query_available_devices()[0]["device_id"], allocators=allocators)


def _run(devices, a, b):
    instance = ireert.VmInstance()
    vmfb = ireec.compile_str(ADD, target_backends=["vmvx"])
    hal = ireert.create_hal_module(instance, devices=devices)
    module = ireert.VmModule.copy_buffer(instance, vmfb)
    ctx = ireert.VmContext(instance, modules=[hal, module])
    fn = ireert.FunctionInvoker(ctx, devices[0], module.lookup_function("main"))
    return np.asarray(fn(a, b))


def test_caching_reuses_released_memory():
    dev = _device(["caching"])
    alloc = dev.allocator
    buf = alloc.allocate_buffer(DEVICE_LOCAL, USAGE, 1000)
    before = alloc.statistics["device_bytes_allocated"]
    assert before >= 1000
    buf.map().asarray([1000], np.uint8)[:] = 7
    del buf  # released: its memory stays pooled
    again = alloc.allocate_buffer(DEVICE_LOCAL, USAGE, 1010)  # the same size class
    assert alloc.statistics["device_bytes_allocated"] == before, "the pooled memory was not reused"
    assert not again.map().asarray([1010], np.uint8).any(), "reused memory is not zeroed"
    del again
    alloc.trim()
    s = alloc.statistics
    assert s["device_bytes_freed"] == s["device_bytes_allocated"]


def test_unknown_spec_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unrecognized allocator 'pool'.*known: caching, debug"):
        _device(["caching", "pool"])
    with pytest.raises(ValueError, match="the debug allocator takes no configuration"):
        _device(["debug:x"])
    with pytest.raises(ValueError, match="unknown memory type 'device_lokal'"):
        _device(["caching:device_lokal=1mib"])


def test_results_are_those_of_the_plain_allocator():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    want = a * b + a
    for specs in ([], ["caching"], ["debug"], ["caching", "debug"], ["debug", "caching:*=1mib;4mib;8"]):
        for _ in range(3):  # later calls reuse what earlier ones released
            np.testing.assert_array_equal(_run([_device(specs)], a, b), want)


def test_hal_module_over_several_devices():
    instance = ireert.VmInstance()
    devices = [ireert.get_device("local-task"), ireert.get_device("local-sync")]
    hal = ireert.create_hal_module(instance, devices=devices)
    assert isinstance(hal, ireert.VmModule) and hal.name == "hal"
    assert hal.devices == devices and hal.device is devices[0]
    a = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal(_run(devices, a, a), a * a + a)
    with pytest.raises(ValueError, match="needs at least one device"):
        ireert.create_hal_module(instance, devices=[])
    with pytest.raises(TypeError, match=r"devices\[1\] is a str"):
        ireert.create_hal_module(instance, devices=[devices[0], "local-sync"])


def test_c_context_over_a_device_list():
    devices = [ireert.get_device("local-sync"), ireert.get_device("local-task")]
    handles = ffi.new("gree_device_t[]", [d._h for d in devices])
    out = ffi.new("gree_context_t*")
    assert lib.gree_context_create_with_devices(handles, 2, out) == ffi.NULL
    lib.gree_context_release(out[0])
    st = lib.gree_context_create_with_devices(handles, 0, out)
    assert st != ffi.NULL
    lib.gree_status_free(st)
