"""DeviceArray and asdevicearray (IREE's iree.runtime.array_interop), with
DLPack in both directions.

A DeviceArray is either host accessible (its buffer is mapped, or copied,
into a numpy array the host reads) or device resident (shape and dtype only).
It becomes host accessible through ``to_host()``, or implicitly (``np.asarray``,
ufuncs, indexing) when it was made with ``implicit_host_transfer=True``, as
function results are; implicit transfer of any other array is a ValueError.
"""

import numpy as np
import numpy.lib.mixins

from ._hal import BufferCompatibility, BufferUsage, HalBufferView, HalFence, MemoryType
from . import dtypes

__all__ = ["DeviceArray", "asdevicearray", "from_dlpack"]

_DEVICE_FUNCTIONS = {}


def _implements(np_function):
    def decorator(fn):
        _DEVICE_FUNCTIONS[np_function] = fn
        return fn

    return decorator


# DLPack's device type for host memory.
_DL_CPU = 1


class DeviceArray(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An array held by a device (IREE's DeviceArray)."""

    def __init__(self, device, buffer_view, implicit_host_transfer=False, override_dtype=None):
        self._device = device
        self._buffer_view = buffer_view
        self._implicit_host_transfer = implicit_host_transfer
        self._override_dtype = override_dtype
        self._mapped_memory = None
        self._host_array = None

    def __array__(self, dtype=None, copy=None):
        host = self._transfer_to_host(True)
        return host if dtype is None else host.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        if func in _DEVICE_FUNCTIONS:
            return _DEVICE_FUNCTIONS[func](*args, **kwargs)
        args = [a.to_host() if isinstance(a, DeviceArray) else a for a in args]
        return func(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        def host(x):
            return x._transfer_to_host(True) if isinstance(x, DeviceArray) else x

        inputs = [host(x) for x in inputs]
        if kwargs.get("out") is not None:
            kwargs = dict(kwargs, out=tuple(host(x) for x in kwargs["out"]))
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __repr__(self):
        return f"<IREE DeviceArray: shape={np.shape(self)}, dtype={self.dtype}>"

    @property
    def is_host_accessible(self):
        """Whether the array is host accessible now."""
        return self._host_array is not None

    def to_host(self):
        """The array as a numpy array: a mapping of its memory where the host
        can map it, else a copy."""
        return self._transfer_to_host(False)

    def _is_mappable(self):
        b = self._buffer_view.get_buffer()
        return (b.memory_type() & int(MemoryType.HOST_VISIBLE) == int(MemoryType.HOST_VISIBLE)
                and b.allowed_usage() & int(BufferUsage.MAPPING_SCOPED) == int(BufferUsage.MAPPING_SCOPED))

    def _transfer_to_host(self, implicit):
        if implicit and not self._implicit_host_transfer:
            raise ValueError("DeviceArray cannot be implicitly transferred to the host: "
                             "if necessary, do an explicit transfer via .to_host()")
        if self._host_array is None:
            if self._is_mappable():
                self._mapped_memory = self._buffer_view.map()
                host = self._mapped_memory.asarray(self._buffer_view.shape, self._raw_dtype())
            else:
                host = self._copy_to_host()
            # Sub-byte elements (int4, …) come back as a copy holding the
            # bytes ml_dtypes makes, not as a mapping.
            host = dtypes.from_storage(host, self._buffer_view.element_type)
            if self._override_dtype is not None and np.dtype(self._override_dtype) != host.dtype:
                host = dtypes.astype(host, self._override_dtype)
            self._host_array = host
        return self._host_array

    def _copy_to_host(self):
        """A host copy through the device's queue: into imported host memory
        where the allocator can import it, else into a staging buffer."""
        raw = self._raw_dtype()
        source = self._buffer_view.get_buffer()
        alloc = self._device.allocator
        mem = int(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE)
        usage = int(BufferUsage.TRANSFER_TARGET | BufferUsage.MAPPING_PERSISTENT)

        def copy_into(host_buffer):
            sem = self._device.create_semaphore(0)
            self._device.queue_copy(source, host_buffer, wait_semaphores=HalFence.create_at(sem, 0),
                                    signal_semaphores=HalFence.create_at(sem, 1))
            HalFence.create_at(sem, 1).wait()

        compat = alloc.query_buffer_compatibility(memory_type=mem, allowed_usage=usage, intended_usage=usage,
                                                  allocation_size=source.byte_length())
        if compat & int(BufferCompatibility.IMPORTABLE):
            result = np.empty(self._buffer_view.shape, dtype=raw)
            copy_into(alloc.import_host_allocation(result.reshape(-1).view(np.uint8) if result.size else result,
                                                   memory_type=mem, allowed_usage=usage))
            return result
        staging = alloc.allocate_buffer(memory_type=mem, allowed_usage=int(BufferUsage.TRANSFER_TARGET | BufferUsage.MAPPING_SCOPED),
                                        allocation_size=source.byte_length())
        copy_into(staging)
        return staging.map().asarray(self._buffer_view.shape, raw).copy()

    def _raw_dtype(self):
        return dtypes.to_dtype(self._buffer_view.element_type)

    @property
    def dtype(self):
        if self._override_dtype is not None:
            return np.dtype(self._override_dtype)
        return self._raw_dtype()

    @property
    def shape(self):
        return np.shape(self)

    def astype(self, dtype, casting="unsafe", copy=True):
        if self.dtype == np.dtype(dtype) and not copy:
            return self
        return self.to_host().astype(dtype, casting=casting, copy=copy)

    def reshape(self, *args):
        return self.to_host().reshape(*args)

    def __iter__(self):
        return iter(self.to_host())

    def __getitem__(self, index):
        return self.to_host()[index]

    def __len__(self):
        shape = self._buffer_view.shape
        if not shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return shape[0]

    def __deepcopy__(self, memo):
        return self.to_host().copy()

    def __reduce__(self):
        return _restore, (self.to_host(),)

    # DLPack: host memory crosses without a copy.

    def __dlpack_device__(self):
        return (_DL_CPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            return np.array(self.to_host(), copy=True).__dlpack__()
        return self._device.create_dlpack_capsule(self._buffer_view, _DL_CPU, 0)


def _restore(ary):
    return ary


@_implements(np.shape)
def _shape(arr):
    # A list, as IREE's DeviceArray gives (np.shape of an ndarray is a tuple).
    return arr._buffer_view.shape


@_implements(np.reshape)
def _reshape(arr, *args, **kwargs):
    return arr.reshape(*args, **kwargs)


def asdevicearray(device, a, dtype=None, *, implicit_host_transfer=False,
                  memory_type=MemoryType.DEVICE_LOCAL, allowed_usage=BufferUsage.DEFAULT, element_type=None):
    """Copies array-like a to device as a DeviceArray (a DeviceArray of the
    dtype asked for is returned as it is)."""
    if isinstance(a, DeviceArray):
        if dtype is None or np.dtype(dtype) == a.dtype:
            return a
        a = a.to_host()
    if device is None:
        raise ValueError("asdevicearray needs a device (e.g. iree_go.runtime.get_device('local-task'))")
    # np.require keeps 0-d arrays 0-d (np.ascontiguousarray makes them 1-d).
    arr = np.require(np.asarray(a, dtype=dtype), requirements="C")
    et = element_type if element_type is not None else dtypes.to_element_type(arr.dtype)
    if et is None:
        raise ValueError(f"Could not map dtype {arr.dtype} to IREE element type")
    buf = device.allocator.allocate_buffer_copy(memory_type=memory_type, allowed_usage=allowed_usage,
                                                device=device, buffer=_bytes_view(dtypes.to_storage(arr, et)))
    bv = HalBufferView(buf, list(arr.shape), et)
    return DeviceArray(device, bv, implicit_host_transfer=implicit_host_transfer, override_dtype=arr.dtype)


def _bytes_view(arr):
    """arr's bytes as a 1-d uint8 array (types the buffer protocol cannot
    describe, bf16, f8 and the sub-byte types, included)."""
    return arr.reshape(-1).view(np.uint8) if arr.size else np.zeros(0, np.uint8)


def from_dlpack(obj, device=None, *, implicit_host_transfer=True):
    """A DeviceArray over the memory of a DLPack producer (a numpy array, a
    CPU torch tensor, …) without copying; device defaults to local-task.
    The producer's memory must be dense and row-major."""
    if device is None:
        from .system_setup import get_device

        device = get_device("local-task")
    capsule = obj.__dlpack__() if hasattr(obj, "__dlpack__") else obj
    bv = device.from_dlpack_capsule(capsule)
    return DeviceArray(device, bv, implicit_host_transfer=implicit_host_transfer)
