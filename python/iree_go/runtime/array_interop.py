"""DeviceArray and asdevicearray (IREE's iree.runtime.array_interop)."""

import numpy as np
import numpy.lib.mixins

from ._hal import HalBufferView, MemoryType, BufferUsage
from . import dtypes


class DeviceArray(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An array held by a device; ``to_host()`` copies it to numpy."""

    def __init__(self, device, buffer_view, implicit_host_transfer=False, override_dtype=None):
        self._device = device
        self._buffer_view = buffer_view
        self._implicit_host_transfer = implicit_host_transfer
        self._override_dtype = override_dtype
        self._host = None

    @property
    def is_host_accessible(self):
        return True

    @property
    def dtype(self):
        if self._override_dtype is not None:
            return self._override_dtype
        return dtypes.to_dtype(self._buffer_view.element_type)

    @property
    def shape(self):
        return self._buffer_view.shape

    def to_host(self):
        if self._host is None:
            self._host = self._buffer_view.to_numpy(self.dtype)
        return self._host

    def __array__(self, dtype=None, copy=None):
        if not self._implicit_host_transfer:
            raise ValueError("DeviceArray cannot be implicitly transferred to the host: "
                             "if necessary, do an explicit transfer via .to_host()")
        a = self.to_host()
        return a.astype(dtype) if dtype is not None else a

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        conv = [np.asarray(x) if isinstance(x, DeviceArray) else x for x in inputs]
        return getattr(ufunc, method)(*conv, **kwargs)

    def astype(self, dtype, casting="unsafe", copy=True):
        return self.to_host().astype(dtype, casting=casting, copy=copy)

    def reshape(self, *shape):
        return self.to_host().reshape(*shape)

    def __iter__(self):
        return iter(self.to_host())

    def __getitem__(self, idx):
        return self.to_host()[idx]

    def __len__(self):
        return self.shape[0] if self.shape else 0

    def __deepcopy__(self, memo):
        return self.to_host().copy()

    def __reduce__(self):
        return (np.asarray, (self.to_host(),))

    def __repr__(self):
        try:
            dt = self.dtype
        except ValueError:  # an element type numpy cannot hold
            dt = self._buffer_view.element_type
        return f"<IREE DeviceArray: shape={self.shape}, dtype={dt}>"


def asdevicearray(device, a, dtype=None, *, implicit_host_transfer=False,
                  memory_type=MemoryType.DEVICE_LOCAL, allowed_usage=BufferUsage.DEFAULT, element_type=None):
    """Copies array-like a to device as a DeviceArray."""
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
    bv = HalBufferView._from_numpy(device, arr, et)
    return DeviceArray(device, bv, implicit_host_transfer=implicit_host_transfer)
