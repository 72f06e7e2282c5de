"""Element types and buffer views (IREE's HalElementType, HalBufferView)."""

import enum

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
    DISPATCH_INDIRECT_PARAMS = 256
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


class MappedMemory:
    """The contents of a buffer view mapped to the host (IREE's
    MappedMemory). gree's buffer views live in host memory; ``asarray``
    returns a copy of them."""

    def __init__(self, buffer_view):
        self._buffer_view = buffer_view

    def asarray(self, shape, numpy_dtype):
        """The contents as an ndarray of shape and dtype (their byte size must
        not exceed the view's)."""
        import numpy as np

        dt = np.dtype(numpy_dtype)
        shape = [int(d) for d in shape]
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        length = self._buffer_view.byte_length
        if n > length:
            raise ValueError(f"Mapped memory of {length} bytes is too small for shape {shape} of {dt} ({n} bytes)")
        raw = np.empty(length, dtype=np.uint8)
        if length:
            check(lib.gree_buffer_view_read(self._buffer_view._handle, ffi.from_buffer(raw), length))
        return raw[:n].view(dt).reshape(shape)


class HalBufferView:
    """A shaped, typed buffer on a device (owns one gree_buffer_view_t).

    Made by the runtime (``asdevicearray``, function results, numpy
    arguments); gree has no separate HalBuffer objects."""

    def __init__(self, *args, _handle=None):
        if _handle is None:
            raise TypeError(
                "HalBufferView(buffer, shape, element_type) is not supported by gree (there are no HalBuffer "
                "objects); make buffer views with iree_go.runtime.asdevicearray(device, array)"
            )
        self._handle = ffi.gc(_handle, lib.gree_buffer_view_release)

    @classmethod
    def _from_handle(cls, handle):
        return cls(_handle=handle)

    @classmethod
    def _from_numpy(cls, device, array, element_type):
        """A new view on device holding a copy of array's contents."""
        import numpy as np

        # np.ascontiguousarray would turn a 0-d array into a 1-d one.
        a = np.require(array, requirements="C")
        shape = ffi.new("int64_t[]", [int(d) for d in a.shape] or [0])
        out = ffi.new("gree_buffer_view_t*")
        data = ffi.from_buffer(a) if a.nbytes else ffi.NULL
        dev = device._handle if device is not None else ffi.NULL
        check(lib.gree_buffer_view_create(dev, shape, a.ndim, int(element_type), data, a.nbytes, out))
        return cls._from_handle(out[0])

    # A buffer view's shape and element type never change (the C ABI has no
    # call that changes them), so each is read from the library once.
    _shape = None
    _element_type = None

    def _dims(self):
        """The dimensions, as a tuple."""
        if self._shape is None:
            self._shape = tuple(int(lib.gree_buffer_view_dim(self._handle, i))
                                for i in range(lib.gree_buffer_view_rank(self._handle)))
        return self._shape

    @property
    def shape(self):
        """The dimensions, as a list."""
        return list(self._dims())

    @property
    def element_type(self):
        """The element type (a HalElementType when IREE names it)."""
        if self._element_type is None:
            v = int(lib.gree_buffer_view_element_type(self._handle))
            try:
                self._element_type = HalElementType(v)
            except ValueError:
                self._element_type = v
        return self._element_type

    @property
    def byte_length(self):
        return int(lib.gree_buffer_view_byte_length(self._handle))

    def map(self):
        """The contents on the host (``map().asarray(shape, dtype)``)."""
        return MappedMemory(self)

    def to_numpy(self, dtype=None):
        """Copies the contents into a new numpy array."""
        import numpy as np
        from . import dtypes

        dt = np.dtype(dtype) if dtype is not None else dtypes.to_dtype(self.element_type)
        out = np.empty(self.shape, dtype=dt)
        if out.nbytes > self.byte_length:
            raise ValueError(f"Buffer view of {self.byte_length} bytes cannot be read as {out.shape} of {dt}")
        if out.nbytes:
            check(lib.gree_buffer_view_read(self._handle, ffi.from_buffer(out), out.nbytes))
        return out

    def format(self, max_elements=1024):
        """The text IREE's tools print, e.g. ``4xf32=1 2 3 4``."""
        text = ffi.new("char**")
        check(lib.gree_buffer_view_format(self._handle, max_elements, text))
        return take_string(text[0])

    def __repr__(self):
        # As IREE: the shape joined by ", ", the element-type word's bytes in
        # memory order, then the buffer.
        et = int(lib.gree_buffer_view_element_type(self._handle)) & 0xFFFFFFFF
        n = self.byte_length
        return (
            f"<HalBufferView ({', '.join(str(d) for d in self.shape)}), element_type=0x{et.to_bytes(4, 'little').hex()}, "
            f"{n} bytes (at offset 0 into {n}), memory_type=DEVICE_LOCAL|HOST_VISIBLE, allowed_access=ALL, "
            f"allowed_usage=TRANSFER|DISPATCH_STORAGE|MAPPING>"
        )
