"""The C ABI's HAL objects, called through cffi as a C program would: the
example program that allocates, fills, dispatches and reads back, and misuse
(NULL, released, double-released and foreign handles) answered with errors
naming the object, never a crash."""

import os
import subprocess

import pytest

import iree_go.compiler as ireec
from conftest import build_c_example
from iree_go._capi import ffi, lib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OK, INVALID_ARGUMENT, DEADLINE_EXCEEDED, FAILED_PRECONDITION, OUT_OF_RANGE, PERMISSION_DENIED = 0, 3, 4, 9, 11, 7


def code(st):
    c = int(lib.gree_status_code(st))
    lib.gree_status_free(st)
    return c


def message(st):
    m = ffi.string(lib.gree_status_message(st)).decode()
    lib.gree_status_free(st)
    return m


@pytest.fixture
def device():
    drv, dev = ffi.new("gree_driver_t*"), ffi.new("gree_device_t*")
    assert lib.gree_driver_create(b"local-sync", drv) == ffi.NULL
    assert lib.gree_driver_create_default_device(drv[0], dev) == ffi.NULL
    yield dev[0]
    lib.gree_device_release(dev[0])
    lib.gree_driver_release(drv[0])


def params(memory_type=48, usage=3 | 3072):
    p = ffi.new("gree_buffer_params_t*")
    p.type, p.usage = memory_type, usage
    return p[0]


def allocate(device, n):
    out = ffi.new("gree_buffer_t*")
    assert lib.gree_allocator_allocate_buffer(device, params(), n, out) == ffi.NULL
    return out[0]


def ref(buffer, offset=0, length=-1):
    r = ffi.new("gree_buffer_ref_t*")
    r.buffer, r.offset, r.length = buffer, offset, length
    return r[0]


NO_SEMAPHORES = ffi.new("gree_semaphore_list_t*")[0]


def test_c_program_allocates_fills_dispatches_and_reads_back(tmp_path):
    exe = build_c_example("hal_dispatch", tmp_path)
    vmfb = tmp_path / "mul.vmfb"
    with open(os.path.join(REPO, "samples", "simple_mul.mlir")) as f:
        vmfb.write_bytes(ireec.compile_str(f.read(), target_backends=["vmvx"]))
    r = subprocess.run([exe, str(vmfb)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("entry 0: simple_mul_dispatch_0\n"
                        "out = 2.5 5 7.5 10\n"
                        "mapped out[3] = 10\n"
                        "device bytes allocated: 48\n"
                        "wait past the value: DEADLINE_EXCEEDED\n"
                        "use after release: FAILED_PRECONDITION\n"
                        "NULL buffer: INVALID_ARGUMENT\n"
                        "map out of range: OUT_OF_RANGE\n"
                        "wait on a failed semaphore: ABORTED\n")
    assert "released" in r.stderr  # the second release is noted, and ignored


def test_null_handles_are_invalid_argument(device):
    out = ffi.new("gree_buffer_t*")
    info = ffi.new("gree_buffer_info_t*")
    assert code(lib.gree_buffer_info(ffi.NULL, info)) == INVALID_ARGUMENT
    assert code(lib.gree_allocator_allocate_buffer(ffi.NULL, params(), 4, out)) == INVALID_ARGUMENT
    assert code(lib.gree_semaphore_signal(ffi.NULL, 1)) == INVALID_ARGUMENT
    assert code(lib.gree_fence_wait(ffi.NULL, 0)) == INVALID_ARGUMENT
    assert code(lib.gree_command_buffer_begin(ffi.NULL)) == INVALID_ARGUMENT
    assert code(lib.gree_device_queue_barrier(ffi.NULL, NO_SEMAPHORES, NO_SEMAPHORES)) == INVALID_ARGUMENT
    m = message(lib.gree_buffer_subspan(ffi.NULL, 0, 1, out))
    assert "buffer must not be NULL" in m
    assert code(lib.gree_allocator_allocate_buffer(device, params(), 4, ffi.NULL)) == INVALID_ARGUMENT
    # Releases of NULL are no-ops, accessors of NULL return zeros.
    lib.gree_buffer_release(ffi.NULL)
    lib.gree_semaphore_release(ffi.NULL)
    lib.gree_fence_release(ffi.NULL)
    lib.gree_command_buffer_release(ffi.NULL)
    lib.gree_executable_release(ffi.NULL)
    lib.gree_file_release(ffi.NULL)
    assert lib.gree_fence_timepoint_count(ffi.NULL) == 0
    assert lib.gree_executable_entry_count(ffi.NULL) == 0
    assert lib.gree_allocator_query_compatibility(ffi.NULL, params(), 4, ffi.NULL) == 0


def test_released_and_foreign_handles(device):
    b = allocate(device, 16)
    lib.gree_buffer_release(b)
    lib.gree_buffer_release(b)  # a second release does nothing
    info = ffi.new("gree_buffer_info_t*")
    m = message(lib.gree_buffer_info(b, info))
    assert m.startswith("FAILED_PRECONDITION;") and "buffer handle" in m and "was released" in m
    # A handle of one kind passed as another.
    sem = ffi.new("gree_semaphore_t*")
    assert lib.gree_device_create_semaphore(device, 0, sem) == ffi.NULL
    m = message(lib.gree_buffer_info(ffi.cast("gree_buffer_t", sem[0]), info))
    assert m.startswith("INVALID_ARGUMENT;") and "is a semaphore, not a buffer" in m
    # A value that was never a handle (not dereferenced).
    bogus = ffi.cast("gree_buffer_t", 0x1234560)
    m = message(lib.gree_buffer_info(bogus, info))
    assert m.startswith("INVALID_ARGUMENT;") and "is not a buffer handle" in m
    lib.gree_buffer_release(bogus)
    lib.gree_semaphore_release(sem[0])
    assert code(lib.gree_semaphore_query(sem[0], ffi.new("uint64_t*"))) == FAILED_PRECONDITION


def test_buffers_through_c(device):
    b = allocate(device, 16)
    data = ffi.new("float[]", [1, 2, 3, 4])
    assert lib.gree_device_transfer_h2d(device, data, b, 0, 16) == ffi.NULL
    sub = ffi.new("gree_buffer_t*")
    assert lib.gree_buffer_subspan(b, 8, 8, sub) == ffi.NULL
    got = ffi.new("float[2]")
    assert lib.gree_device_transfer_d2h(ffi.NULL, sub[0], 0, got, 8) == ffi.NULL
    assert list(got) == [3, 4]
    assert code(lib.gree_buffer_subspan(b, 8, 16, ffi.new("gree_buffer_t*"))) == OUT_OF_RANGE
    lib.gree_buffer_release(b)  # the subspan keeps the memory
    p = ffi.new("void**")
    assert lib.gree_buffer_map(sub[0], 1, 0, 8, p) == ffi.NULL
    assert list(ffi.cast("float*", p[0])[0:2]) == [3, 4]
    lib.gree_buffer_release(sub[0])
    # Mapping needs a MAPPING usage.
    raw = ffi.new("gree_buffer_t*")
    host = ffi.new("char[16]")
    assert lib.gree_allocator_import_host_buffer(device, params(70, 3), host, 16, ffi.NULL, ffi.NULL, raw) == ffi.NULL
    assert lib.gree_buffer_map(raw[0], 1, 0, 16, p) == ffi.NULL  # the heap allocator adds mapping
    lib.gree_buffer_release(raw[0])


def test_semaphores_fences_and_queue_through_c(device):
    sem = ffi.new("gree_semaphore_t*")
    assert lib.gree_device_create_semaphore(device, 0, sem) == ffi.NULL
    s = sem[0]
    assert code(lib.gree_semaphore_wait(s, 1, 0)) == DEADLINE_EXCEEDED
    assert code(lib.gree_semaphore_wait(s, 1, 1000000)) == DEADLINE_EXCEEDED
    b = allocate(device, 8)
    sems = ffi.new("gree_semaphore_t[1]", [s])
    one, two = ffi.new("uint64_t[1]", [1]), ffi.new("uint64_t[1]", [2])
    at1, at2 = ffi.new("gree_semaphore_list_t*"), ffi.new("gree_semaphore_list_t*")
    at1.count, at1.semaphores, at1.values = 1, sems, one
    at2.count, at2.semaphores, at2.values = 1, sems, two
    pattern = ffi.new("uint16_t*", 0x0102)
    assert lib.gree_device_queue_fill(device, at1[0], at2[0], ref(b), pattern, 2) == ffi.NULL
    lib.gree_buffer_release(b)  # the queued fill keeps it
    assert lib.gree_semaphore_signal(s, 1) == ffi.NULL
    fence = ffi.new("gree_fence_t*")
    assert lib.gree_fence_create_at(s, 2, fence) == ffi.NULL
    assert lib.gree_fence_wait(fence[0], -1) == ffi.NULL
    reached = ffi.new("int32_t*")
    assert lib.gree_fence_query(fence[0], reached) == ffi.NULL and reached[0] == 1
    assert lib.gree_fence_timepoint_count(fence[0]) == 1
    ts, tv = ffi.new("gree_semaphore_t*"), ffi.new("uint64_t*")
    assert lib.gree_fence_timepoint(fence[0], 0, ts, tv) == ffi.NULL and tv[0] == 2
    assert code(lib.gree_fence_timepoint(fence[0], 1, ts, tv)) == OUT_OF_RANGE
    assert code(lib.gree_fence_insert(fence[0], s, 3)) == OK  # same semaphore: greater value kept
    bad = ffi.new("gree_semaphore_list_t*")
    bad.count = 2  # arrays missing
    assert code(lib.gree_device_queue_barrier(device, bad[0], NO_SEMAPHORES)) == INVALID_ARGUMENT
    assert code(lib.gree_semaphore_fail(s, 10, b"gone")) == OK
    m = message(lib.gree_fence_wait(fence[0], 0))
    assert m.startswith("ABORTED;") and "gone" in m
    lib.gree_fence_release(fence[0])
    lib.gree_semaphore_release(s)


def test_command_buffer_misuse_through_c(device):
    cb = ffi.new("gree_command_buffer_t*")
    assert lib.gree_command_buffer_create(device, 1, 3, 0, cb) == ffi.NULL
    b = allocate(device, 8)
    pattern = ffi.new("uint8_t[3]")
    assert code(lib.gree_command_buffer_fill(cb[0], ref(b), pattern, 1)) == FAILED_PRECONDITION  # not begun
    assert lib.gree_command_buffer_begin(cb[0]) == ffi.NULL
    assert code(lib.gree_command_buffer_fill(cb[0], ref(b), pattern, 3)) == INVALID_ARGUMENT
    assert code(lib.gree_command_buffer_fill(cb[0], ref(b, 4, 8), pattern, 1)) == OUT_OF_RANGE
    assert code(lib.gree_command_buffer_copy(cb[0], ref(b, 0, 4), ref(b, 2, 4))) == INVALID_ARGUMENT  # overlap
    assert code(lib.gree_command_buffer_dispatch(cb[0], ffi.NULL, 0, 1, 1, 1, ffi.NULL, 0, ffi.NULL, 0)) == INVALID_ARGUMENT
    assert lib.gree_command_buffer_end(cb[0]) == ffi.NULL
    assert code(lib.gree_command_buffer_end(cb[0])) == FAILED_PRECONDITION
    lib.gree_buffer_release(b)
    assert lib.gree_device_queue_execute(device, NO_SEMAPHORES, NO_SEMAPHORES, cb[0], ffi.NULL, 0) == ffi.NULL
    assert code(lib.gree_device_queue_execute(device, NO_SEMAPHORES, NO_SEMAPHORES, cb[0], ffi.NULL, 0)) == FAILED_PRECONDITION
    lib.gree_command_buffer_release(cb[0])
    lib.gree_command_buffer_release(cb[0])


def test_profiling_and_files_through_c(device, tmp_path):
    assert code(lib.gree_device_begin_profiling(device, b"nonsense", ffi.NULL)) == INVALID_ARGUMENT
    path = str(tmp_path / "p.txt").encode()
    assert lib.gree_device_begin_profiling(device, b"queue", path) == ffi.NULL
    assert code(lib.gree_device_begin_profiling(device, b"queue", path)) == FAILED_PRECONDITION
    assert lib.gree_device_end_profiling(device) == ffi.NULL
    assert os.path.exists(path)
    data = ffi.new("char[]", b"0123456789")
    f = ffi.new("gree_file_t*")
    assert lib.gree_file_wrap_memory(data, 10, 1, 0, f) == ffi.NULL
    b = allocate(device, 4)
    assert lib.gree_device_queue_read(device, NO_SEMAPHORES, NO_SEMAPHORES, f[0], 3, ref(b)) == ffi.NULL
    out = ffi.new("char[4]")
    assert lib.gree_device_transfer_d2h(device, b, 0, out, 4) == ffi.NULL
    assert ffi.buffer(out, 4)[:] == b"3456"
    assert code(lib.gree_device_queue_read(device, NO_SEMAPHORES, NO_SEMAPHORES, f[0], 8, ref(b))) == OUT_OF_RANGE
    s = ffi.new("gree_semaphore_t*")
    assert lib.gree_device_create_semaphore(device, 0, s) == ffi.NULL
    one = ffi.new("uint64_t[1]", [1])
    sig = ffi.new("gree_semaphore_list_t*")
    sig.count, sig.semaphores, sig.values = 1, ffi.new("gree_semaphore_t[1]", [s[0]]), one
    # Writing to a read-only file fails the queue operation's signal.
    st = lib.gree_device_queue_write(device, NO_SEMAPHORES, sig[0], ref(b), f[0], 0)
    assert st == ffi.NULL, ffi.string(lib.gree_status_message(st))
    assert code(lib.gree_semaphore_wait(s[0], 1, -1)) == PERMISSION_DENIED
    lib.gree_file_release(f[0])
    lib.gree_buffer_release(b)
    lib.gree_semaphore_release(s[0])
