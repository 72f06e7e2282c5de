"""The HAL API of iree_go.runtime (IREE's names and behaviour): allocators,
buffers, mapped memory, buffer views, semaphores, fences, command buffers,
queue operations, DeviceArray's host-accessibility rules, DLPack and the
coarse-fences calling convention, with their failure paths."""

import copy
import os
import gc
import pickle
import threading
import time

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as rt

MT, BU = rt.MemoryType, rt.BufferUsage


def _load(vmfb, device):
    """The module's functions bound to a context on device."""
    config = rt.Config(device=device)
    return rt.load_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb), config)


@pytest.fixture(params=["local-sync", "local-task"])
def device(request):
    return rt.get_device(request.param)


def test_enums_have_irees_names_and_bits():
    assert int(BU.DISPATCH_INDIRECT_PARAMETERS) == 1 << 8
    assert int(BU.DEFAULT) == int(BU.TRANSFER | BU.DISPATCH_STORAGE)
    assert int(MT.DEVICE_LOCAL) == 48 and int(MT.HOST_LOCAL) == 70
    assert int(rt.BufferCompatibility.QUEUE_DISPATCH) == 1 << 11
    assert int(rt.MemoryAccess.ALL) == 7
    assert int(rt.SemaphoreCompatibility.ALL) == 15
    assert rt.HalElementType.dense_byte_count(rt.HalElementType.FLOAT_16) == 2


def test_allocator_buffers_and_statistics(device):
    a = device.allocator
    before = a.statistics["device_bytes_allocated"]
    b = a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=13)
    assert repr(b) == ("<HalBuffer 13 bytes (at offset 0 into 13), memory_type=DEVICE_LOCAL|HOST_VISIBLE, "
                       "allowed_access=ALL, allowed_usage=TRANSFER|DISPATCH_STORAGE|MAPPING|MAPPING_PERSISTENT>")
    assert b.byte_length() == 13
    assert b.memory_type() & int(MT.DEVICE_LOCAL) == int(MT.DEVICE_LOCAL)
    assert a.statistics["device_bytes_allocated"] == before + 13
    assert "DEVICE_LOCAL:" in a.formatted_statistics and a.has_statistics
    compat = a.query_buffer_compatibility(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT,
                                          intended_usage=BU.DEFAULT, allocation_size=1024)
    assert compat & int(rt.BufferCompatibility.ALLOCATABLE | rt.BufferCompatibility.QUEUE_DISPATCH)
    # Host memory that is not device-visible is not for queue work.
    compat = a.query_buffer_compatibility(memory_type=MT.HOST_VISIBLE, allowed_usage=BU.DEFAULT,
                                          intended_usage=BU.DEFAULT, allocation_size=16)
    assert not compat & int(rt.BufferCompatibility.QUEUE_DISPATCH)
    gc.collect()  # earlier tests' garbage (contexts free their buffers when collected)
    freed = a.statistics["device_bytes_freed"]
    del b
    gc.collect()
    assert a.statistics["device_bytes_freed"] == freed + 13
    a.trim()
    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED"):
        a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=1 << 50)


def test_mapped_memory_is_the_buffer(device):
    b = device.allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=16)
    view = b.map().asarray([4], np.float32)
    view[:] = [1, 2, 3, 4]
    again = b.map().asarray([2, 2], np.float32)
    np.testing.assert_array_equal(again, [[1, 2], [3, 4]])
    b.fill_zero(4, 8)
    np.testing.assert_array_equal(view, [1, 0, 0, 4])
    with pytest.raises(ValueError, match="too small"):
        b.map().asarray([5], np.float32)
    with pytest.raises(IndexError, match="OUT_OF_RANGE"):
        b.fill_zero(12, 8)
    # The array keeps the buffer alive.
    del b
    gc.collect()
    np.testing.assert_array_equal(view, [1, 0, 0, 4])


def test_buffer_copies_views_and_staging(device):
    a = device.allocator
    ary = np.arange(12, dtype=np.int32).reshape(3, 4)
    bv = a.allocate_buffer_copy(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, device=device, buffer=ary,
                                element_type=rt.HalElementType.SINT_32)
    assert isinstance(bv, rt.HalBufferView) and bv.shape == [3, 4] and bv.byte_length == 48
    assert repr(bv).startswith("<HalBufferView (3, 4), element_type=0x20000011, 48 bytes")
    np.testing.assert_array_equal(bv.map().asarray([3, 4], np.int32), ary)
    buf = a.allocate_buffer_copy(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, device=device, buffer=ary)
    assert isinstance(buf, rt.HalBuffer) and buf.byte_length() == 48
    # A view of part of a buffer, and one too large for it.
    part = rt.HalBufferView(buf, [2], rt.HalElementType.SINT_32)
    assert part.byte_length == 8 and part.get_buffer().byte_length() == 48
    with pytest.raises(IndexError, match="OUT_OF_RANGE"):
        rt.HalBufferView(buf, [13], rt.HalElementType.SINT_32)
    staged = a.allocate_host_staging_buffer_copy(device, np.float32(2.5))
    assert "allowed_usage=TRANSFER|MAPPING|MAPPING_PERSISTENT" in repr(staged)
    assert staged.map().asarray([], np.float32) == 2.5
    v16 = buf.create_view(rt.Shape([24]), 2)
    assert v16.shape == [24] and v16.byte_length == 48


def test_import_host_allocation_is_zero_copy(device):
    host = np.zeros(8, np.float32)
    b = device.allocator.import_host_allocation(host, memory_type=MT.HOST_LOCAL | MT.DEVICE_VISIBLE,
                                                allowed_usage=BU.DEFAULT)
    src = device.allocator.allocate_buffer_copy(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, device=device,
                                                buffer=np.arange(8, dtype=np.float32))
    sem = device.create_semaphore(0)
    device.queue_copy(src, b, wait_semaphores=[(sem, 0)], signal_semaphores=[(sem, 1)])
    assert sem.wait(1)
    np.testing.assert_array_equal(host, np.arange(8))
    with pytest.raises(ValueError, match="writable"):
        device.allocator.import_host_allocation(np.arange(4)[::2], memory_type=MT.HOST_LOCAL, allowed_usage=BU.DEFAULT)


def test_semaphores(device):
    s = device.create_semaphore(3)
    assert s.query() == 3
    s.signal(5)
    assert s.query() == 5
    with pytest.raises(IndexError, match="must increase"):
        s.signal(4)
    assert s.wait(5, deadline=0) is True
    assert s.wait(6, deadline=0) is False
    t0 = time.monotonic()
    assert s.wait(6, timeout=30_000_000) is False
    assert 0.02 <= time.monotonic() - t0 < 5
    assert s.wait(6, deadline=time.monotonic_ns() + 20_000_000) is False
    with pytest.raises(ValueError, match="both"):
        s.wait(6, timeout=1, deadline=1)
    # A waiter on another thread is woken by a signal.
    got = []
    th = threading.Thread(target=lambda: got.append(s.wait(7)))
    th.start()
    time.sleep(0.05)
    s.signal(7)
    th.join(10)
    assert got == [True]
    s.fail("BROKEN ON PURPOSE")
    with pytest.raises(RuntimeError, match="^synchronous semaphore failure.*BROKEN ON PURPOSE"):
        s.wait(8, deadline=0)
    with pytest.raises(RuntimeError, match="BROKEN ON PURPOSE"):
        s.query()


def test_fences(device):
    s1, s2 = device.create_semaphore(0), device.create_semaphore(0)
    f = rt.HalFence(2)
    f.insert(s1, 1)
    f.insert(s1, 4)
    assert f.timepoint_count == 1
    f.insert(s2, 2)
    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED"):
        f.insert(device.create_semaphore(0), 1)
    assert f.wait(deadline=0) is False
    j = rt.HalFence.join([f, rt.HalFence.create_at(s2, 5)])
    assert j.timepoint_count == 2
    f.signal()
    assert s1.query() == 4 and s2.query() == 2
    assert f.wait(deadline=0) and not j.wait(deadline=0)
    e = rt.HalFence.create_at(s1, 4)
    e.extend(rt.HalFence.create_at(s2, 2))
    assert e.timepoint_count == 2 and e.wait()
    g = rt.HalFence.create_at(device.create_semaphore(0), 1)
    threading.Timer(0.05, lambda: g.fail("LATE FAILURE")).start()
    with pytest.raises(RuntimeError, match="LATE FAILURE"):
        g.wait()


def test_command_buffers_and_queue(device):
    a = device.allocator
    b1 = a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=16)
    b2 = a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=16)
    cb = rt.HalCommandBuffer(device)
    with pytest.raises(RuntimeError, match="FAILED_PRECONDITION"):
        cb.begin()
    cb.fill(b1, np.int32(7))
    with pytest.raises(ValueError, match="INVALID_ARGUMENT"):
        cb.fill(b1, np.int32(1), target_offset=2, length=4)
    cb.copy(b1, b2, end=True)
    with pytest.raises(RuntimeError, match="FAILED_PRECONDITION"):
        cb.end()
    with pytest.raises(ValueError, match="must match"):
        rt.HalCommandBuffer(device).copy(b1, a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT,
                                                               allocation_size=8))
    # Deferred until the gate opens: the queue orders by semaphores.
    gate, done = device.create_semaphore(0), device.create_semaphore(0)
    device.queue_execute(cb, wait_semaphores=rt.HalFence.create_at(gate, 1), signal_semaphores=[(done, 1)])
    with pytest.raises(RuntimeError, match="FAILED_PRECONDITION"):
        device.queue_execute(cb, wait_semaphores=[], signal_semaphores=[])  # one-shot, submitted
    del cb
    gc.collect()  # the queue keeps the command buffer it runs
    assert not done.wait(1, deadline=0)
    assert not b2.map().asarray([4], np.int32).any()
    gate.signal(1)
    assert done.wait(1, timeout=10_000_000_000)
    np.testing.assert_array_equal(b2.map().asarray([4], np.int32), [7, 7, 7, 7])
    with pytest.raises(ValueError, match="length must be less than"):
        device.queue_copy(b1, a.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT,
                                                allocation_size=8), wait_semaphores=[], signal_semaphores=[])


def test_queue_alloca_dealloca_and_failure(device):
    s = device.create_semaphore(0)
    b = device.queue_alloca(64, wait_semaphores=[(s, 0)], signal_semaphores=rt.HalFence.create_at(s, 1))
    assert isinstance(b, rt.HalBuffer) and b.byte_length() == 64
    device.queue_dealloca(b, wait_semaphores=[(s, 1)], signal_semaphores=[(s, 2)])
    assert s.wait(2)
    with pytest.raises(RuntimeError, match="FAILED_PRECONDITION.*deallocated"):
        b.map()
    # Work behind a failed semaphore fails its signal semaphore.
    up, out = device.create_semaphore(0), device.create_semaphore(0)
    c = device.allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=4)
    cb = rt.HalCommandBuffer(device)
    cb.fill(c, np.int8(1), end=True)
    device.queue_execute(cb, wait_semaphores=[(up, 1)], signal_semaphores=[(out, 1)])
    up.fail("UPSTREAM")
    with pytest.raises(RuntimeError, match="UPSTREAM"):
        out.wait(1)


def test_profiling_writes_dispatch_statistics(tmp_path):
    device = rt.get_device("local-sync")
    path = tmp_path / "profile.txt"
    with pytest.raises(ValueError, match="unrecognized profiling mode"):
        device.begin_profiling(mode="not-a-mode")
    device.begin_profiling(mode="dispatch", file_path=str(path))
    src = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    m = _load(ireec.compile_str(src, target_backends=["vmvx"]), device)
    m.f(np.ones(4, np.float32))
    device.flush_profiling()
    device.end_profiling()
    assert "f_dispatch_0" in path.read_text()
    device.begin_profiling()
    device.end_profiling()
    with pytest.raises(RuntimeError, match="UNIMPLEMENTED"):
        device.begin_external_capture("renderdoc")


def test_device_array_host_accessibility(device):
    init = np.arange(12, dtype=np.int32).reshape(3, 4)
    ary = rt.asdevicearray(device, init)
    assert repr(ary) == "<IREE DeviceArray: shape=[3, 4], dtype=int32>"
    assert not ary.is_host_accessible
    with pytest.raises(ValueError, match="implicitly transferred"):
        np.asarray(ary)
    with pytest.raises(ValueError, match="implicitly transferred"):
        _ = ary + 1
    host = ary.to_host()
    assert ary.is_host_accessible
    np.testing.assert_array_equal(host, init)
    assert ary.astype(np.int32, copy=False) is ary
    assert ary.astype(np.int32) is not ary
    implicit = rt.asdevicearray(device, init, implicit_host_transfer=True)
    np.testing.assert_array_equal(implicit + 1, init + 1)
    np.testing.assert_array_equal(copy.deepcopy(implicit), init)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(implicit)), init)
    assert rt.asdevicearray(device, ary) is ary
    # The staging path of _copy_to_host (used where the host cannot map).
    np.testing.assert_array_equal(ary._copy_to_host(), init)


def test_results_that_are_constants_map_read_only():
    src = "func.func @k() -> tensor<2xf32> {\n  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>\n  return %c : tensor<2xf32>\n}\n"
    m = rt.load_vm_flatbuffer(ireec.compile_str(src, target_backends=["vmvx"]), driver="local-task")
    r = m.k().to_host()
    np.testing.assert_array_equal(r, [1, 2])
    with pytest.raises(ValueError):
        r[0] = 5  # a module constant is read-only memory


def test_dlpack_both_ways_without_copies(device):
    # numpy → gree: the device reads numpy's memory.
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    arr = rt.from_dlpack(host, device)
    assert arr.shape == [2, 3] and arr.dtype == np.float32
    host[0, 0] = 42
    assert arr.to_host()[0, 0] == 42
    # gree → numpy: numpy reads the device buffer.
    dev_arr = rt.asdevicearray(device, np.ones(4, np.float64))
    back = np.from_dlpack(dev_arr)
    dev_arr._buffer_view.map().asarray([4], np.float64)[1] = 7
    assert back[1] == 7
    assert dev_arr.__dlpack_device__() == (1, 0)
    # Capsules through the device, for each element type.
    for dt in (np.int8, np.uint16, np.int64, np.float16, np.complex64, np.bool_):
        a = (np.arange(12) % 3).astype(dt).reshape(3, 4)
        bv = device.from_dlpack_capsule(a.__dlpack__())
        assert bv.shape == [3, 4]

        class Producer:
            def __dlpack__(self, stream=None):
                return device.create_dlpack_capsule(bv, 1, 0)

            def __dlpack_device__(self):
                return (1, 0)

        np.testing.assert_array_equal(np.from_dlpack(Producer()), a)
    # A consumed capsule, and a strided tensor, are refused.
    cap = np.zeros(3, np.float32).__dlpack__()
    device.from_dlpack_capsule(cap)
    with pytest.raises(ValueError, match="consumed"):
        device.from_dlpack_capsule(cap)
    with pytest.raises(ValueError, match="row-major"):
        rt.from_dlpack(np.zeros((4, 4), np.float32)[:, ::2], device)


def test_dlpack_with_torch_when_installed(device):
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float32)
    arr = rt.from_dlpack(t, device)
    t[2] = 100
    assert arr.to_host()[2] == 100
    back = torch.from_dlpack(rt.asdevicearray(device, np.full(3, 2.5, np.float32)))
    assert back.tolist() == [2.5, 2.5, 2.5]


ASYNC_SRC = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_coarse_fences_calls():
    vmfb = ireec.compile_str(ASYNC_SRC, target_backends=["vmvx"], extra_args=["--iree-execution-model=async-external"])
    device = rt.get_device("local-task")
    m = _load(vmfb, device)
    f = m.add.vm_function
    assert f.reflection["iree.abi.model"] == "coarse-fences" and f.calling_convention == "0rrrr_r"
    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    # The invoker passes the fences itself and waits: a synchronous call.
    np.testing.assert_array_equal(m.add(a, b).to_host(), a + b)
    # With the caller's fences: the call returns before the work runs.
    inst = rt.VmInstance()
    vm_mod = rt.VmModule.copy_buffer(inst, vmfb)
    context = rt.VmContext(inst, [rt.create_hal_module(inst, device), vm_mod])
    gate, done = device.create_semaphore(0), device.create_semaphore(0)
    args, results = rt.VmVariantList(4), rt.VmVariantList(1)
    args.push_ref(rt.asdevicearray(device, a)._buffer_view)
    args.push_ref(rt.asdevicearray(device, b)._buffer_view)
    args.push_ref(rt.HalFence.create_at(gate, 1))
    args.push_ref(rt.HalFence.create_at(done, 1))
    context.invoke(vm_mod.lookup_function("add"), args, results)
    assert not done.wait(1, deadline=0)  # still waiting for the gate
    gate.signal(1)
    assert done.wait(1, timeout=10_000_000_000)
    np.testing.assert_array_equal(rt.DeviceArray(device, results.get_as_object(0, rt.HalBufferView)).to_host(), a + b)


def test_variant_lists_hold_hal_objects(device):
    lst = rt.VmVariantList(3)
    buf = device.allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=1024)
    lst.push_ref(buf)
    lst.push_ref(rt.HalFence(2))
    lst.push_int(7)
    assert str(lst) == "<VmVariantList(3): [HalBuffer(1024), fence(0), 7]>"
    assert isinstance(lst.get_as_object(0, rt.HalBuffer), rt.HalBuffer)
    assert isinstance(lst.get_as_object(1, rt.HalFence), rt.HalFence)
    del buf
    gc.collect()  # the list holds its own reference
    assert lst.get_as_object(0).byte_length() == 1024
    ref = lst.__iree_vm_ref__
    assert ref == lst.ref and ref.isinstance(rt.VmVariantList)
    assert ref.deref(rt.VmVariantList) is lst and rt.VmVariantList.__iree_vm_cast__(ref) is lst
    b = rt.VmBuffer(4, mutable=True)
    memoryview(b)[:] = b"abcd"
    assert bytes(b) == b"abcd"
    with pytest.raises(TypeError):
        memoryview(rt.VmBuffer(4, mutable=False))[:] = b"abcd"


def test_device_close_and_context_manager():
    with rt.get_driver("local-task").create_default_device() as d:
        s = d.create_semaphore(0)
        assert repr(d) == "local-task"
    assert repr(d) == "<closed HalDevice>"
    with pytest.raises(RuntimeError, match="closed"):
        d.create_semaphore(0)
    assert s.query() == 0  # a semaphore outlives its device's handle


IDENTITY_SRC = """func.func @same(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_numpy_arguments_cross_without_copies_and_results_never_alias_them():
    device = rt.get_device("local-task")
    m = _load(ireec.compile_str(IDENTITY_SRC, target_backends=["vmvx"]), device)
    before = device.allocator.statistics
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(m.twice(a).to_host(), 2 * a)
    after = device.allocator.statistics
    # The argument was imported, not copied: only the result was allocated
    # (16 bytes, below which nothing else is allocated per call).
    assert after["device_bytes_allocated"] - before["device_bytes_allocated"] <= 16
    same = m.same(a)
    a[0] = 100  # the caller's array changes after the call …
    assert same.to_host()[0] == 0  # … but a returned argument is a copy
    ro = np.arange(4, dtype=np.float32)
    ro.flags.writeable = False
    np.testing.assert_array_equal(m.twice(ro).to_host(), 2 * ro)
    strided = np.arange(8, dtype=np.float32)[::2]
    np.testing.assert_array_equal(m.twice(strided).to_host(), 2 * strided)


TRACE_SRC = """func.func @trace_args(%arg0: tensor<2xi32>, %arg1: tensor<3xi32>) {
  flow.tensor.trace "key" = [%arg0: tensor<2xi32>, %arg1: tensor<3xi32>]
  return
}
"""


def test_trace_sink_receives_traced_tensors():
    device = rt.get_device("local-sync")
    vmfb = ireec.compile_str(TRACE_SRC, target_backends=["vmvx"])
    seen = []
    inst = rt.VmInstance()
    mod = rt.VmModule.copy_buffer(inst, vmfb)
    sink = rt.HalModuleDebugSink(lambda key, views: seen.append((key, [v.to_numpy().tolist() for v in views])))
    ctx = rt.VmContext(inst, [rt.create_hal_module(inst, device, debug_sink=sink), mod])
    f = rt.FunctionInvoker(ctx, device, mod.lookup_function("trace_args"))
    f(np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32))
    assert seen == [("key", [[1, 2], [3, 4, 5]])]

    def fail(key, views):
        raise KeyError("from the sink")

    ctx2 = rt.VmContext(inst, [rt.create_hal_module(inst, device, debug_sink=rt.HalModuleDebugSink(fail)), mod])
    g = rt.FunctionInvoker(ctx2, device, mod.lookup_function("trace_args"))
    with pytest.raises(RuntimeError, match="UNKNOWN.*KeyError.*from the sink"):
        g(np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32))


TORCH_SCRIPT = """
import numpy as np, torch
import iree_go.runtime as rt
device = rt.get_device("local-task")
t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
arr = rt.from_dlpack(t, device)
t[0, 1] = 100
assert arr.to_host()[0, 1] == 100, arr.to_host()
d = rt.asdevicearray(device, np.full(4, 1.5, np.float32))
back = torch.from_dlpack(d)
d._buffer_view.map().asarray([4], np.float32)[2] = 9
assert back.tolist() == [1.5, 1.5, 9.0, 1.5], back.tolist()
print("ok")
"""


def test_dlpack_with_the_system_torch():
    # CI installs Debian's torch for the system Python; gree's package is
    # this Python's, so the script runs there with it on the path.
    import subprocess
    import sys

    py = "/usr/bin/python3"
    if not os.path.exists(py) or subprocess.run([py, "-c", "import torch"], capture_output=True).returncode:
        pytest.skip("no torch for /usr/bin/python3 (apt-get install python3-torch)")
    site = os.path.dirname(os.path.dirname(os.path.dirname(rt.__file__)))
    env = dict(os.environ, PYTHONPATH=site)
    r = subprocess.run([py, "-c", TORCH_SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    if "No module named" in r.stderr and "cffi" in r.stderr:
        pytest.skip(f"the system Python cannot load {sys.executable}'s packages: {r.stderr.strip().splitlines()[-1]}")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_loop_bridge_resolves_futures_on_semaphores():
    import asyncio

    device = rt.get_device("local-task")
    loop = asyncio.new_event_loop()
    bridge = rt.HalDeviceLoopBridge(device, loop)
    try:
        s1, s2 = device.create_semaphore(0), device.create_semaphore(0)

        async def main():
            f1 = bridge.on_semaphore(s1, 1, "one")
            f2 = bridge.on_semaphore(s2, 2, "two")
            f1.add_done_callback(lambda _: s2.signal(2))
            s1.signal(1)
            return await f1, await f2

        assert loop.run_until_complete(main()) == ("one", "two")
        bad = device.create_semaphore(0)

        async def failing():
            f = bridge.on_semaphore(bad, 1, None)
            bad.fail("NEVER")
            return await f

        with pytest.raises(RuntimeError, match="NEVER"):
            loop.run_until_complete(failing())
    finally:
        bridge.stop()
        loop.close()
    t = rt.HalExternalTimepoint()
    t.cuda_event = 1234
    assert t.type == int(rt.ExternalTimepointType.CUDA_EVENT)
    with pytest.raises(ValueError):
        t.hip_event = 5
