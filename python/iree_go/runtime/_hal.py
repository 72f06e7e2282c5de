"""HAL objects over libgree (IREE's iree.runtime HAL names): element types,
memory enums, buffers, buffer views, mapped memory, semaphores, fences,
command buffers and allocators."""

import enum
import time

import numpy as np

from .. import _capi
from .._capi import ffi, lib, check, take_string


def _et(numerical, bits):
    return (numerical << 24) | bits


class HalElementType(enum.IntEnum):
    """IREE's element-type words: (numerical type << 24) | bit count."""

    NONE = 0
    OPAQUE_8 = _et(0x00, 8)
    OPAQUE_16 = _et(0x00, 16)
    OPAQUE_32 = _et(0x00, 32)
    OPAQUE_64 = _et(0x00, 64)
    BOOL_8 = _et(0x13, 8)
    INT_4 = _et(0x10, 4)
    INT_8 = _et(0x10, 8)
    INT_16 = _et(0x10, 16)
    INT_32 = _et(0x10, 32)
    INT_64 = _et(0x10, 64)
    SINT_4 = _et(0x11, 4)
    SINT_8 = _et(0x11, 8)
    SINT_16 = _et(0x11, 16)
    SINT_32 = _et(0x11, 32)
    SINT_64 = _et(0x11, 64)
    UINT_4 = _et(0x12, 4)
    UINT_8 = _et(0x12, 8)
    UINT_16 = _et(0x12, 16)
    UINT_32 = _et(0x12, 32)
    UINT_64 = _et(0x12, 64)
    FLOAT_16 = _et(0x21, 16)
    FLOAT_32 = _et(0x21, 32)
    FLOAT_64 = _et(0x21, 64)
    BFLOAT_16 = _et(0x22, 16)
    COMPLEX_64 = _et(0x23, 64)
    COMPLEX_128 = _et(0x23, 128)
    FLOAT_8_E5M2 = _et(0x24, 8)
    FLOAT_8_E4M3_FN = _et(0x25, 8)
    FLOAT_8_E5M2_FNUZ = _et(0x26, 8)
    FLOAT_8_E4M3_FNUZ = _et(0x27, 8)
    FLOAT_8_E8M0_FNU = _et(0x28, 8)
    # gree's additions: the 2-bit integers and f4E2M1FN (0x29, the next
    # number after the f8 types; IREE has no element type for it). Sub-byte
    # elements are stored one per byte (dtypes.to_storage).
    INT_2 = _et(0x10, 2)
    SINT_2 = _et(0x11, 2)
    UINT_2 = _et(0x12, 2)
    FLOAT_4_E2M1_FN = _et(0x29, 4)

    @staticmethod
    def map_to_dtype(element_type):
        """The numpy dtype of an element type (ValueError when none)."""
        from . import dtypes

        return dtypes.to_dtype(element_type)

    @staticmethod
    def is_byte_aligned(element_type):
        """Whether elements of the type are whole bytes (i4 is not)."""
        return (int(element_type) & 0xFF) % 8 == 0

    @staticmethod
    def dense_byte_count(element_type):
        """The bytes one element takes when densely stored (rounded up)."""
        return ((int(element_type) & 0xFF) + 7) // 8


class MemoryType(enum.IntFlag):
    """IREE's iree_hal_memory_type_t bits."""

    NONE = 0
    OPTIMAL = 1
    HOST_VISIBLE = 2
    HOST_COHERENT = 4
    HOST_CACHED = 8
    HOST_LOCAL = 64 | 4 | 2
    DEVICE_VISIBLE = 16
    DEVICE_LOCAL = 32 | 16


class MemoryAccess(enum.IntFlag):
    """IREE's iree_hal_memory_access_t bits."""

    NONE = 0
    READ = 1
    WRITE = 2
    DISCARD = 4
    DISCARD_WRITE = 6
    ALL = 7


class BufferUsage(enum.IntFlag):
    """IREE's iree_hal_buffer_usage_t bits."""

    NONE = 0
    TRANSFER_SOURCE = 1
    TRANSFER_TARGET = 2
    TRANSFER = 3
    DISPATCH_INDIRECT_PARAMETERS = 256
    DISPATCH_UNIFORM_READ = 512
    DISPATCH_STORAGE_READ = 1024
    DISPATCH_STORAGE_WRITE = 2048
    DISPATCH_STORAGE = 3072
    DISPATCH_IMAGE_READ = 4096
    DISPATCH_IMAGE_WRITE = 8192
    DISPATCH_IMAGE = 12288
    SHARING_EXPORT = 65536
    SHARING_REPLICATE = 131072
    SHARING_CONCURRENT = 262144
    SHARING_IMMUTABLE = 524288
    MAPPING_SCOPED = 16777216
    MAPPING_PERSISTENT = 33554432
    MAPPING_OPTIONAL = 67108864
    MAPPING_ACCESS_RANDOM = 134217728
    MAPPING_ACCESS_SEQUENTIAL_WRITE = 268435456
    MAPPING = 16777216 | 134217728
    DEFAULT = 3 | 3072


class BufferCompatibility(enum.IntFlag):
    """IREE's iree_hal_buffer_compatibility_t bits."""

    NONE = 0
    ALLOCATABLE = 1
    IMPORTABLE = 2
    EXPORTABLE = 4
    QUEUE_TRANSFER = 1024
    QUEUE_DISPATCH = 2048


class SemaphoreCompatibility(enum.IntFlag):
    """IREE's iree_hal_semaphore_compatibility_t bits."""

    NONE = 0
    HOST_WAIT = 1
    DEVICE_WAIT = 2
    HOST_SIGNAL = 4
    DEVICE_SIGNAL = 8
    HOST_ONLY = 1 | 4
    DEVICE_ONLY = 2 | 8
    ALL = 15


class ExternalTimepointType(enum.IntEnum):
    """IREE's iree_hal_external_timepoint_type_t (gree's semaphores export
    none of them)."""

    NONE = 0
    ASYNC_PRIMITIVE = 1
    CUDA_EVENT = 2
    HIP_EVENT = 3


class ExternalTimepointFlags(enum.IntFlag):
    """IREE's iree_hal_external_timepoint_flags_t."""

    NONE = 0


def _no_params(memory_type, allowed_usage, access=0):
    p = ffi.new("gree_buffer_params_t*")
    p.type, p.usage, p.access = int(memory_type), int(allowed_usage), int(access)
    return p[0]


def _timeout_ns(timeout, deadline):
    """A C timeout (ns; -1 forever, 0 poll) from IREE's Python timeout (a
    duration in ns) or deadline (an absolute time in ns on the monotonic
    clock)."""
    if timeout is not None and deadline is not None:
        raise ValueError("timeout and deadline cannot both be set")
    if timeout is not None:
        return max(int(timeout), 0)
    if deadline is not None:
        return max(int(deadline) - time.monotonic_ns(), 0)
    return -1


def closed_error(what):
    """The error of a use of a closed object: a RuntimeError with IREE's
    FAILED_PRECONDITION code naming the object."""
    exc = RuntimeError(f"FAILED_PRECONDITION; {what} is closed")
    exc.code = _capi.CODE_NAMES.index("FAILED_PRECONDITION")
    return exc


class _Handle:
    """One owned libgree handle, released by close(), a with block or the
    garbage collector."""

    _release = None

    def _own(self, handle):
        self._handle = ffi.gc(handle, type(self)._release)

    def _close(self):
        h = getattr(self, "_handle", None)
        if h is not None:
            self._handle = None
            ffi.gc(h, None)  # detaches the finalizer (returns None)
            type(self)._release(h)

    def close(self):
        """Releases the handle now instead of at garbage collection (what
        it holds lives on while other objects hold it too). Later uses raise
        a RuntimeError naming the object; closing twice does nothing."""
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._close()

    @property
    def _h(self):
        if self._handle is None:
            raise closed_error(f"the {type(self).__name__}")
        return self._handle


class VmRef:
    """A reference to a VM object (IREE's VmRef): ``deref(cls)`` returns the
    object as cls, ``isinstance(cls)`` tests its type."""

    def __init__(self, obj):
        self._obj = obj

    def deref(self, clazz, optional=False):
        v = clazz.__iree_vm_cast__(self)
        if v is None and not optional:
            raise TypeError("Cannot dereference to specific type")
        return v

    def isinstance(self, clazz):
        return isinstance(self._obj, clazz)

    def __eq__(self, other):
        return isinstance(other, VmRef) and other._obj is self._obj

    def __hash__(self):
        return id(self._obj)

    def __repr__(self):
        return f"<VmRef {type(self._obj).__name__} at 0x{id(self._obj):x}>"


class _RefProtocol:
    """IREE's ref protocol: __iree_vm_ref__, ref and __iree_vm_cast__."""

    @property
    def __iree_vm_ref__(self):
        return VmRef(self)

    @property
    def ref(self):
        return VmRef(self)

    @classmethod
    def __iree_vm_cast__(cls, ref):
        obj = ref._obj if isinstance(ref, VmRef) else ref
        return obj if isinstance(obj, cls) else None


class _ArrayHolder:
    """Exposes host memory to numpy while keeping its owner alive."""

    def __init__(self, owner, ptr, nbytes, readonly=False):
        self._owner = owner
        addr = int(ffi.cast("uintptr_t", ptr)) if nbytes else 0
        self.__array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "version": 3,
            "data": (addr, readonly),
        }


class MappedMemory:
    """Host-visible buffer memory mapped for the host (IREE's MappedMemory):
    ``asarray`` views it as an ndarray without copying."""

    def __init__(self, buffer, ptr, nbytes):
        self._buffer = buffer
        self._ptr = ptr
        self._nbytes = nbytes
        self._readonly = False

    @staticmethod
    def _map(buffer, offset, length):
        """Maps a range for reading and, where the buffer allows it, writing
        (a read-only buffer, a module constant, maps to read-only arrays)."""
        info = buffer._info()
        writable = bool(info.allowed_access & int(MemoryAccess.WRITE))
        access = MemoryAccess.ALL if writable else MemoryAccess.READ
        p = ffi.new("void**")
        check(lib.gree_buffer_map(buffer._h, int(access), offset, length, p))
        m = MappedMemory(buffer, p[0], length)
        m._readonly = not writable
        return m

    def asarray(self, shape, numpy_dtype_descr):
        """The mapped bytes as an ndarray of shape and dtype (which must fit)."""
        import numpy as np

        dt = np.dtype(numpy_dtype_descr)
        shape = tuple(int(d) for d in shape)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        if n > self._nbytes:
            raise ValueError(f"Mapped memory of {self._nbytes} bytes is too small for shape {list(shape)} of {dt} ({n} bytes)")
        raw = np.asarray(_ArrayHolder(self, self._ptr, self._nbytes, self._readonly))
        return raw[:n].view(dt).reshape(shape)


class HalBuffer(_Handle, _RefProtocol):
    """A range of device memory (IREE's HalBuffer)."""

    _release = lib.gree_buffer_release

    def __init__(self, *args, _handle=None, _keep=None):
        if _handle is None:
            raise TypeError("HalBuffer cannot be constructed directly; use a HalAllocator or HalDevice.queue_alloca")
        self._own(_handle)
        self._keep = _keep  # host memory an imported buffer views

    def _info(self):
        info = ffi.new("gree_buffer_info_t*")
        check(lib.gree_buffer_info(self._h, info))
        return info

    def byte_length(self):
        return int(self._info().byte_length)

    def memory_type(self):
        return int(self._info().memory_type)

    def allowed_usage(self):
        return int(self._info().allowed_usage)

    def fill_zero(self, byte_offset, byte_length):
        """Zeroes [byte_offset, byte_offset + byte_length) through a mapping."""
        m = MappedMemory._map(self, int(byte_offset), int(byte_length))
        if m._readonly:
            raise RuntimeError("PERMISSION_DENIED; fill_zero of a read-only buffer")
        if byte_length:
            ffi.memmove(m._ptr, b"\0" * int(byte_length), int(byte_length))

    def map(self):
        """Maps the whole buffer (host-visible buffers with a MAPPING usage)."""
        return MappedMemory._map(self, 0, self.byte_length())

    def create_view(self, shape, element_size):
        """A buffer view of shape over the buffer with elements of
        element_size bytes (an opaque element type of that size)."""
        dims = list(shape.dims if isinstance(shape, Shape) else shape)
        return HalBufferView(self, dims, _et(0x00, 8 * int(element_size)))

    def __eq__(self, other):
        return isinstance(other, HalBuffer) and other._handle == self._handle

    __hash__ = object.__hash__

    def __repr__(self):
        text = ffi.new("char**")
        check(lib.gree_buffer_format(self._h, text))
        return f"<HalBuffer {take_string(text[0])}>"


class Shape:
    """A buffer view shape (IREE's Shape)."""

    def __init__(self, dims):
        self.dims = [int(d) for d in dims]

    def __repr__(self):
        return f"Shape({self.dims})"


class HalBufferView(_Handle, _RefProtocol):
    """A shaped, typed view of a buffer (IREE's HalBufferView)."""

    _release = lib.gree_buffer_view_release

    def __init__(self, buffer=None, shape=None, element_type=None, *, _handle=None):
        if _handle is None:
            if not isinstance(buffer, HalBuffer) or shape is None or element_type is None:
                raise TypeError("HalBufferView(buffer, shape, element_type) takes a HalBuffer, a shape and an element type")
            dims = [int(d) for d in shape]
            c_shape = ffi.new("int64_t[]", dims or [0])
            out = ffi.new("gree_buffer_view_t*")
            check(lib.gree_buffer_view_create_from_buffer(buffer._h, c_shape, len(dims), int(element_type), out),
                  "creating buffer view")
            _handle = out[0]
        self._own(_handle)

    @classmethod
    def _from_handle(cls, handle):
        return cls(_handle=handle)

    @classmethod
    def _from_numpy(cls, device, array, element_type):
        """A new view on device holding a copy of array's contents (sub-byte
        elements made canonical: dtypes.to_storage)."""
        import numpy as np
        from . import dtypes

        # np.ascontiguousarray would turn a 0-d array into a 1-d one.
        a = dtypes.to_storage(np.require(array, requirements="C"), element_type)
        shape = ffi.new("int64_t[]", [int(d) for d in a.shape] or [0])
        out = ffi.new("gree_buffer_view_t*")
        data = ffi.from_buffer(a) if a.nbytes else ffi.NULL
        dev = device._h if device is not None else ffi.NULL
        check(lib.gree_buffer_view_create(dev, shape, a.ndim, int(element_type), data, a.nbytes, out))
        return cls._from_handle(out[0])

    # A buffer view's shape and element type never change, so each is read
    # from the library once.
    _shape = None
    _element_type = None

    def _dims(self):
        if self._shape is None:
            self._shape = tuple(int(lib.gree_buffer_view_dim(self._h, i))
                                for i in range(lib.gree_buffer_view_rank(self._h)))
        return self._shape

    @property
    def shape(self):
        """The dimensions, as a list."""
        return list(self._dims())

    @property
    def element_type(self):
        """The element type (a HalElementType when IREE names it)."""
        if self._element_type is None:
            v = int(lib.gree_buffer_view_element_type(self._h))
            try:
                self._element_type = HalElementType(v)
            except ValueError:
                self._element_type = v
        return self._element_type

    @property
    def byte_length(self):
        return int(lib.gree_buffer_view_byte_length(self._h))

    def get_buffer(self):
        """The buffer behind the view."""
        out = ffi.new("gree_buffer_t*")
        check(lib.gree_buffer_view_buffer(self._h, out))
        return HalBuffer(_handle=out[0])

    def map(self):
        """The view's buffer mapped for the host (``map().asarray(shape,
        dtype)``), all of it, as IREE maps it."""
        return self.get_buffer().map()

    def to_numpy(self, dtype=None):
        """Copies the contents into a new numpy array (sub-byte elements with
        the bytes ml_dtypes makes, unless dtype asks for another one)."""
        import numpy as np
        from . import dtypes

        dt = np.dtype(dtype) if dtype is not None else dtypes.to_dtype(self.element_type)
        out = np.empty(self.shape, dtype=dt)
        if out.nbytes > self.byte_length:
            raise ValueError(f"Buffer view of {self.byte_length} bytes cannot be read as {out.shape} of {dt}")
        if out.nbytes:
            check(lib.gree_buffer_view_read(self._h, ffi.from_buffer(out.reshape(-1).view(np.uint8)), out.nbytes))
        if dtype is None:
            out = dtypes.from_storage(out, self.element_type)
        return out

    def format(self, max_elements=1024):
        """The text IREE's tools print, e.g. ``4xf32=1 2 3 4``."""
        text = ffi.new("char**")
        check(lib.gree_buffer_view_format(self._h, max_elements, text))
        return take_string(text[0])

    def __eq__(self, other):
        return isinstance(other, HalBufferView) and other._handle == self._handle

    __hash__ = object.__hash__

    def __repr__(self):
        if self._handle is None:
            return "<HalBufferView (closed)>"
        # As IREE: the shape joined by ", ", the element-type word's bytes in
        # memory order, then the buffer.
        et = int(lib.gree_buffer_view_element_type(self._h)) & 0xFFFFFFFF
        buf = repr(self.get_buffer())[len("<HalBuffer "):-1]
        return f"<HalBufferView ({', '.join(str(d) for d in self.shape)}), element_type=0x{et.to_bytes(4, 'little').hex()}, {buf}>"


class HalSemaphore(_Handle):
    """A timeline semaphore (IREE's HalSemaphore)."""

    _release = lib.gree_semaphore_release

    def __init__(self, *args, _handle=None):
        if _handle is None:
            raise TypeError("HalSemaphore cannot be constructed directly; use HalDevice.create_semaphore")
        self._own(_handle)

    def query(self):
        v = ffi.new("uint64_t*")
        check(lib.gree_semaphore_query(self._h, v), "querying semaphore")
        return int(v[0])

    def signal(self, new_value):
        check(lib.gree_semaphore_signal(self._h, int(new_value)), "signaling semaphore")

    def fail(self, message):
        check(lib.gree_semaphore_fail(self._h, 2, str(message).encode("utf-8")))

    def wait(self, payload, timeout=None, deadline=None):
        """Waits until the value reaches payload: True when it did, False when
        the timeout or deadline passed; a failed semaphore raises."""
        t = _timeout_ns(timeout, deadline)
        st = lib.gree_semaphore_wait(self._h, int(payload), t)
        return _wait_result(st, "semaphore", lambda: lib.gree_semaphore_query(self._h, ffi.NULL))

    def import_timepoint(self, value, timepoint):
        raise NotImplementedError("gree's semaphores import no external timepoints")

    def export_timepoint(self, value, requested_type, requested_flags, out_external_timepoint):
        raise NotImplementedError("gree's semaphores export no external timepoints")


_DEADLINE_EXCEEDED = 4


def _wait_result(st, what, query):
    """True for a wait that succeeded, False for one that timed out; raises
    for a failure (as IREE: "synchronous <what> failure" when the wait saw
    it, "asynchronous" when it came after)."""
    if st != ffi.NULL:
        code = int(lib.gree_status_code(st))
        if code == _DEADLINE_EXCEEDED:
            lib.gree_status_free(st)
            return False
        check(st, f"synchronous {what} failure")
    check(query(), f"asynchronous {what} failure")
    return True


class HalFence(_Handle, _RefProtocol):
    """A set of semaphore timepoints (IREE's HalFence)."""

    _release = lib.gree_fence_release

    def __init__(self, capacity=None, *, _handle=None):
        if _handle is None:
            if capacity is None:
                raise TypeError("HalFence(capacity) needs a capacity")
            out = ffi.new("gree_fence_t*")
            check(lib.gree_fence_create(int(capacity), out), "creating fence")
            _handle = out[0]
        self._own(_handle)

    @staticmethod
    def create_at(sem, value):
        out = ffi.new("gree_fence_t*")
        check(lib.gree_fence_create_at(sem._h, int(value), out), "creating fence")
        return HalFence(_handle=out[0])

    @staticmethod
    def join(fences):
        fences = list(fences)
        arr = ffi.new("gree_fence_t[]", [f._h for f in fences] or [ffi.NULL])
        out = ffi.new("gree_fence_t*")
        check(lib.gree_fence_join(len(fences), arr, out), "joining fences")
        return HalFence(_handle=out[0])

    @property
    def timepoint_count(self):
        return int(lib.gree_fence_timepoint_count(self._h))

    def insert(self, sem, value):
        check(lib.gree_fence_insert(self._h, sem._h, int(value)), "inserting into fence")

    def extend(self, from_fence):
        check(lib.gree_fence_extend(self._h, from_fence._h), "extending fence")

    def fail(self, message):
        check(lib.gree_fence_fail(self._h, 2, str(message).encode("utf-8")))

    def signal(self):
        check(lib.gree_fence_signal(self._h), "signalling fence")

    def wait(self, timeout=None, deadline=None):
        """Waits for every timepoint: True when reached, False on timeout."""
        t = _timeout_ns(timeout, deadline)
        st = lib.gree_fence_wait(self._h, t)
        return _wait_result(st, "fence", lambda: lib.gree_fence_query(self._h, ffi.NULL))

    def _timepoints(self):
        """[(HalSemaphore, value)] of the fence's timepoints."""
        out = []
        sem, val = ffi.new("gree_semaphore_t*"), ffi.new("uint64_t*")
        for i in range(self.timepoint_count):
            check(lib.gree_fence_timepoint(self._h, i, sem, val))
            out.append((HalSemaphore(_handle=sem[0]), int(val[0])))
        return out

    def __repr__(self):
        return f"<HalFence fence({self.timepoint_count})>"


def _semaphore_list(value):
    """A gree_semaphore_list_t from a HalFence or a sequence of
    (HalSemaphore, value) pairs, and what keeps it alive for the call."""
    if isinstance(value, HalFence):
        pairs = value._timepoints()
    else:
        pairs = [(s, int(v)) for s, v in (value or [])]
    lst = ffi.new("gree_semaphore_list_t*")
    sems = ffi.new("gree_semaphore_t[]", [s._h for s, _ in pairs] or [ffi.NULL])
    vals = ffi.new("uint64_t[]", [v for _, v in pairs] or [0])
    lst.count, lst.semaphores, lst.values = len(pairs), sems, vals
    return lst[0], (pairs, sems, vals)


class HalCommandBuffer(_Handle, _RefProtocol):
    """Recorded commands for a device's queue (IREE's HalCommandBuffer):
    one-shot, begun at construction unless begin=False."""

    _release = lib.gree_command_buffer_release

    def __init__(self, device, binding_capacity=0, begin=True):
        out = ffi.new("gree_command_buffer_t*")
        check(lib.gree_command_buffer_create(device._h, 1, 3, int(binding_capacity), out), "creating command buffer")
        self._own(out[0])
        self._device = device
        if begin:
            self.begin()

    def begin(self):
        check(lib.gree_command_buffer_begin(self._h), "command buffer begin")

    def end(self):
        check(lib.gree_command_buffer_end(self._h), "command buffer end")

    def copy(self, source_buffer, target_buffer, source_offset=0, target_offset=0, length=None, end=False):
        if length is None:
            length = source_buffer.byte_length()
            if length != target_buffer.byte_length():
                raise ValueError("If length is not provided, source and target buffer length must match and it "
                                 "does not. Provide explicit length=")
        check(lib.gree_command_buffer_copy(self._h, _ref(source_buffer, source_offset, length),
                                           _ref(target_buffer, target_offset, length)), "copy command")
        if end:
            self.end()

    def fill(self, target_buffer, pattern, target_offset=0, length=None, end=False):
        pat = bytes(memoryview(pattern).cast("B"))
        if length is None:
            length = target_buffer.byte_length()
        check(lib.gree_command_buffer_fill(self._h, _ref(target_buffer, target_offset, length), pat, len(pat)),
              "command buffer fill")
        if end:
            self.end()


def _ref(buffer, offset=0, length=-1):
    r = ffi.new("gree_buffer_ref_t*")
    r.buffer = buffer._h
    r.offset = int(offset)
    r.length = -1 if length is None else int(length)
    return r[0]


class HalAllocator:
    """A device's allocator (IREE's HalAllocator)."""

    def __init__(self, device):
        self._device = device

    def trim(self):
        check(lib.gree_allocator_trim(self._device._h), "Error trim()'ing HAL allocator")

    has_statistics = True

    @property
    def statistics(self):
        s = ffi.new("gree_allocator_statistics_t*")
        check(lib.gree_allocator_statistics(self._device._h, s))
        return {k: int(getattr(s, k)) for k in (
            "host_bytes_peak", "host_bytes_allocated", "host_bytes_freed",
            "device_bytes_peak", "device_bytes_allocated", "device_bytes_freed")}

    @property
    def formatted_statistics(self):
        text = ffi.new("char**")
        check(lib.gree_allocator_format_statistics(self._device._h, text), "unable to format statistics")
        return take_string(text[0])

    def query_buffer_compatibility(self, memory_type, allowed_usage, intended_usage, allocation_size):
        params = _no_params(memory_type, int(allowed_usage) & int(intended_usage))
        return int(lib.gree_allocator_query_compatibility(self._device._h, params, int(allocation_size), ffi.NULL))

    def allocate_buffer(self, memory_type, allowed_usage, allocation_size):
        """A new buffer of allocation_size bytes (zeroed)."""
        out = ffi.new("gree_buffer_t*")
        check(lib.gree_allocator_allocate_buffer(self._device._h, _no_params(memory_type, allowed_usage),
                                                 int(allocation_size), out), "could not allocate buffer")
        return HalBuffer(_handle=out[0])

    def _copy_of(self, params, buffer):
        """A new buffer holding a copy of a buffer-protocol object."""
        import numpy as np

        mv = memoryview(buffer)
        if not mv.c_contiguous:
            mv = memoryview(np.ascontiguousarray(buffer))
        out = ffi.new("gree_buffer_t*")
        check(lib.gree_allocator_allocate_buffer(self._device._h, params, mv.nbytes, out), "Failed to allocate buffer copy")
        b = HalBuffer(_handle=out[0])
        if mv.nbytes:
            src = ffi.from_buffer(mv.cast("B") if mv.ndim else mv.cast("B", (mv.nbytes,)))
            check(lib.gree_device_transfer_h2d(self._device._h, src, b._h, 0, mv.nbytes), "Failed to allocate buffer copy")
        return b, mv

    def allocate_buffer_copy(self, memory_type, allowed_usage, device, buffer, element_type=None):
        """A new buffer holding a copy of buffer (a buffer-protocol object,
        or an ml_dtypes array: bf16, f8, int4, …, which the buffer protocol
        cannot describe); with element_type, a HalBufferView of its shape
        (sub-byte elements made canonical: dtypes.to_storage)."""
        shape = None
        if isinstance(buffer, np.ndarray) and buffer.dtype.kind == "V":
            from . import dtypes

            shape = list(buffer.shape)
            arr = np.require(buffer, requirements="C")
            if element_type is not None:
                arr = dtypes.to_storage(arr, element_type)
            buffer = arr.reshape(-1).view(np.uint8)
        b, mv = self._copy_of(_no_params(memory_type, allowed_usage), buffer)
        if element_type is None:
            return b
        return HalBufferView(b, shape if shape is not None else list(mv.shape), element_type)

    def allocate_host_staging_buffer_copy(self, device, initial_contents):
        """A transfer buffer holding a copy of initial_contents."""
        return self._copy_of(_no_params(MemoryType.OPTIMAL | MemoryType.DEVICE_LOCAL, BufferUsage.TRANSFER),
                             initial_contents)[0]

    def import_host_allocation(self, buffer, memory_type, allowed_usage):
        """Wraps a writable, contiguous buffer-protocol object (a numpy array)
        as a buffer without copying; the buffer keeps it alive."""
        mv = memoryview(buffer)
        if mv.readonly or not mv.c_contiguous:
            raise ValueError("import_host_allocation needs a writable, C-contiguous buffer")
        return _import(self._device, buffer, _no_params(memory_type, allowed_usage), "could not import host allocation")


# Host memory imported into buffers stays alive as long as the buffer's
# memory does (which may outlive every Python object: a module global can
# hold it): each import holds its object here until libgree calls
# _released, when the memory is freed.
_imported = {}


@ffi.callback("void(void*)")
def _released(user):
    _imported.pop(int(ffi.cast("uintptr_t", user)), None)


def _import(device, obj, params, what):
    """A HalBuffer over obj's memory (a contiguous buffer-protocol object),
    not copied."""
    mv = memoryview(obj)
    flat = mv.cast("B") if mv.nbytes and (mv.ndim != 1 or mv.format != "B") else mv
    ptr = ffi.from_buffer(flat, require_writable=False) if mv.nbytes else ffi.NULL
    keep = ffi.new_handle((obj, mv, ptr))
    key = int(ffi.cast("uintptr_t", keep))
    _imported[key] = keep
    out = ffi.new("gree_buffer_t*")
    st = lib.gree_allocator_import_host_buffer(device._h, params, ptr, mv.nbytes, _released, keep, out)
    if st != ffi.NULL:
        _imported.pop(key, None)
        check(st, what)
    return HalBuffer(_handle=out[0])


def import_array(device, arr):
    """A HalBufferView over a C-contiguous, element-aligned numpy array's
    memory, without a copy, where device can use host memory; else None.
    A read-only array gives a read-only buffer. An array of a sub-byte
    type (ml_dtypes int4, …) is first copied into canonical bytes
    (dtypes.to_storage), and that copy is imported."""
    from . import dtypes

    et = dtypes.to_element_type(arr.dtype)
    if et is None or arr.nbytes == 0 or not arr.flags.c_contiguous or arr.ctypes.data % arr.dtype.itemsize:
        return None
    arr = dtypes.to_storage(arr, et)
    access = MemoryAccess.ALL if arr.flags.writeable else MemoryAccess.READ
    params = _no_params(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE, BufferUsage.DEFAULT | BufferUsage.MAPPING, access)
    compat = lib.gree_allocator_query_compatibility(device._h, params, arr.nbytes, ffi.NULL)
    if not compat & int(BufferCompatibility.IMPORTABLE) or not compat & int(BufferCompatibility.QUEUE_DISPATCH):
        return None
    data = arr.reshape(-1).view(np.uint8)
    return HalBufferView(_import(device, data, params, "importing an array"), list(arr.shape), et)


def host_address(buffer_view):
    """The host address of a buffer view's bytes, or None when the host
    cannot map it."""
    b = buffer_view.get_buffer()
    p = ffi.new("void**")
    st = lib.gree_buffer_map(b._h, int(MemoryAccess.READ), 0, buffer_view.byte_length, p)
    if st != ffi.NULL:
        lib.gree_status_free(st)
        return None
    return int(ffi.cast("uintptr_t", p[0]))


class HalModuleDebugSink:
    """Receives what a module traces (IREE's HalModuleDebugSink): the
    callback gets the trace key and the traced HalBufferViews."""

    def __init__(self, buffer_view_trace_callback):
        self._callback = buffer_view_trace_callback

    @property
    def buffer_view_trace_callback(self):
        return self._callback


class HalExternalTimepoint:
    """A semaphore timepoint in another API's terms (IREE's
    HalExternalTimepoint: a CUDA or HIP event). gree's semaphores import and
    export none yet; this holds the description."""

    def __init__(self):
        self.type = int(ExternalTimepointType.NONE)
        self.flags = int(ExternalTimepointFlags.NONE)
        self.compatibility = int(SemaphoreCompatibility.NONE)
        self._cuda_event = 0
        self._hip_event = 0

    def _event(self, kind, value):
        if self.type == int(ExternalTimepointType.NONE):
            self.type = int(kind)
        if self.type != int(kind):
            raise ValueError(f"Unexpected {kind.name.lower().replace('_event', '')} event for a {ExternalTimepointType(self.type).name} timepoint")
        return int(value)

    @property
    def cuda_event(self):
        return self._cuda_event

    @cuda_event.setter
    def cuda_event(self, value):
        self._cuda_event = self._event(ExternalTimepointType.CUDA_EVENT, value)

    @property
    def hip_event(self):
        return self._hip_event

    @hip_event.setter
    def hip_event(self, value):
        self._hip_event = self._event(ExternalTimepointType.HIP_EVENT, value)
