"""FunctionInvoker (IREE's iree.runtime.function): Python values in,
DeviceArrays and Python scalars out.

Three ways to pack a call, chosen once per function:

- gree's modules: arguments are packed by the calling convention and checked
  against the function's ``iree.abi.declaration`` before the call, so a wrong
  count, shape or dtype is an ``ArgumentError`` (a ValueError) naming the
  argument and the type the function expects;
- functions carrying IREE's legacy ``iree.abi`` JSON reflection: packed and
  unpacked by its descriptors, keyword arguments and nested
  lists/tuples/dicts included (see _function_abi);
- functions with neither: packed by Python type (int → i64, float → f64,
  lists, tuples and dicts → VM lists, arrays → buffer views).

A ``VmContext`` is called directly; any other context object through IREE's
protocol, ``vm_context.invoke(vm_function, arg_list, ret_list)``.
"""

import threading

import numpy as np

from . import _function_abi, _hal
from ._function_abi import ArgumentError, ReturnError
from ._hal import HalBufferView
from ._declaration import _KIND_TEXT, _can_convert, _describe, _element_text, _normalize_element, _shape_matches, \
    _signature
from ._vm import VmContext, VmVariantList
from .array_interop import DeviceArray
from . import dtypes

__all__ = ["ArgumentError", "FunctionInvoker", "ReturnError"]


class _Packer:
    """Packs Python arguments into a VmVariantList for one call."""

    def __init__(self, device, function):
        self.device = device
        self.function = function
        # Any object with a reflection dict will do (IREE's tests pass
        # stand-ins without a name or calling convention).
        self.name = getattr(function, "name", "<unnamed>")
        reflection = getattr(function, "reflection", None) or {}
        self.kinds, self.declared, self.tensors = _signature(
            getattr(function, "calling_convention", None) or "", reflection.get("iree.abi.declaration", ""))
        # A coarse-fences function's last two arguments are its wait and
        # signal fences: the invoker passes them (see FunctionInvoker).
        self.fences = reflection.get("iree.abi.model") == "coarse-fences"
        if self.fences and self.kinds is not None and len(self.kinds) >= 2:
            self.kinds = self.kinds[:-2]
        # Threads calling one function share its packer: what a pack
        # leaves for the call's unpacking is the thread's own.
        self._tls = threading.local()

    @property
    def imported(self):
        """The host ranges of the arrays the calling thread's last pack
        passed without a copy."""
        return self._tls.imported

    @imported.setter
    def imported(self, ranges):
        self._tls.imported = ranges

    def want(self, i):
        if self.declared is not None and i < len(self.declared):
            return self.declared[i]
        if self.kinds is not None and i < len(self.kinds):
            return _KIND_TEXT.get(self.kinds[i], "a value")
        return "a value"

    def fail(self, i, got, cause=None):
        e = ArgumentError(f"Error passing argument {i}: expected {self.want(i)}, got {got}")
        if cause is not None:
            raise e from cause
        raise e

    def pack(self, args):
        # The host ranges of arrays passed without a copy: a result in one
        # of them (a function returning its argument) is copied, so that
        # results never alias the caller's arrays.
        self.imported = []
        n = len(self.kinds) if self.kinds is not None else len(args)
        name = self.name
        if len(args) < n:
            self.fail(len(args), f"no value (function '{name}' takes {n} argument{'s' * (n != 1)}, {len(args)} given)")
        if len(args) > n:
            raise ArgumentError(
                f"Error passing argument {n}: expected no more arguments, got {_describe(args[n])} "
                f"(function '{name}' takes {n} argument{'s' * (n != 1)}, {len(args)} given)")
        lst = VmVariantList()
        for i, a in enumerate(args):
            kind = self.kinds[i] if self.kinds is not None else "r"
            if kind in "iIfF":
                self.push_scalar(lst, i, kind, a)
            else:
                self.push_ref(lst, i, a)
        return lst

    def push_scalar(self, lst, i, kind, value):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        if isinstance(value, (bool, np.bool_)):
            value = int(value)
        if kind in "iI":
            if not isinstance(value, (int, np.integer)):
                self.fail(i, _describe(value))
            v = int(value)
            lo, hi = (-(1 << 31), (1 << 32) - 1) if kind == "i" else (-(1 << 63), (1 << 64) - 1)
            if not lo <= v <= hi:
                self.fail(i, f"{v}, which does not fit in {_KIND_TEXT[kind]}")
            bits = 32 if kind == "i" else 64
            if v >= 1 << (bits - 1):  # unsigned bit patterns
                v -= 1 << bits
            lst._push_typed(kind, v)
        else:
            if not isinstance(value, (int, float, np.integer, np.floating)):
                self.fail(i, _describe(value))
            lst._push_typed(kind, float(value))

    def push_ref(self, lst, i, value):
        tensor = self.tensors[i] if i < len(self.tensors) else None
        if tensor is None:
            self.push_untyped(lst, value, i)
            return
        dims, element = tensor
        if isinstance(value, (DeviceArray, HalBufferView)):
            bv = value._buffer_view if isinstance(value, DeviceArray) else value
            if not _shape_matches(bv._dims(), dims) or _normalize_element(_element_text(bv.element_type)) != element:
                self.fail(i, _describe(value))
            lst.push_ref(bv)
            return
        if isinstance(value, np.ndarray):
            ok = dtypes.dtype_matches_abi(value.dtype, element)
            if ok is False or not _shape_matches(value.shape, dims):
                self.fail(i, _describe(value))
            lst.push_ref(self.view(i, value))
            return
        if value is None or isinstance(value, (dict, VmVariantList)):
            self.fail(i, _describe(value))
        # Python numbers, numpy scalars, nested lists: converted to the
        # declared element type.
        try:
            arr = np.asarray(value)
        except Exception as e:  # noqa: BLE001 - ragged lists and the like
            self.fail(i, f"{_describe(value)} that is not an array ({e})", e)
        target = dtypes.dtype_for_abi(element)
        if arr.dtype.kind not in "biufc" or (target is not None and not _can_convert(arr.dtype, target)):
            self.fail(i, _describe(value) if not isinstance(value, (list, tuple)) else
                      f"{type(value).__name__} of shape {arr.shape} and dtype {arr.dtype}")
        if target is not None:
            arr = arr.astype(target)
        if not _shape_matches(arr.shape, dims):
            self.fail(i, f"{type(value).__name__} of shape {arr.shape}")
        lst.push_ref(self.view(i, arr))

    def view(self, i, arr):
        """A buffer view of arr: its own memory on devices that use host
        memory (no copy), else a copy on the device."""
        et = dtypes.to_element_type(arr.dtype)
        if et is None:
            self.fail(i, f"array of dtype {arr.dtype}, which has no IREE element type")
        bv = _hal.import_array(self.device, arr)
        if bv is not None:
            self.imported.append((arr.ctypes.data, arr.ctypes.data + arr.nbytes))
            return bv
        return HalBufferView._from_numpy(self.device, arr, et)

    def push_untyped(self, lst, value, where):
        """Packs as IREE's dynamic mode does: int → i64, float → f64, lists,
        tuples and dicts (values by sorted key) → lists, arrays and numpy
        scalars → buffer views (gree also takes bool → i64, None → a null
        reference)."""
        if value is None:
            lst.push_ref(None)
        elif isinstance(value, int):
            lst.push_int(int(value))
        elif isinstance(value, float) and not isinstance(value, np.generic):
            lst.push_float(value)
        elif isinstance(value, (DeviceArray, HalBufferView, VmVariantList)):
            lst.push_ref(value)
        elif isinstance(value, (list, tuple, dict)):
            sub = VmVariantList(len(value))
            items = [value[k] for k in sorted(value)] if isinstance(value, dict) else value
            for x in items:
                self.push_untyped(sub, x, where)
            lst.push_list(sub)
        else:
            try:
                arr = np.asarray(value)
            except Exception as e:  # noqa: BLE001
                raise ArgumentError(self._unconvertible(where, value)) from e
            if arr.dtype.kind not in "biufc" and dtypes.to_element_type(arr.dtype) is None:
                raise ArgumentError(self._unconvertible(where, value))
            lst.push_ref(self.view(where, arr))

    @staticmethod
    def _unconvertible(where, value):
        return (f"Error passing argument {where}: could not convert python value to VM: {_function_abi._r(value)} "
                f"({_describe(value)}; numbers, arrays, DeviceArrays, HalBufferViews, lists, tuples and dicts "
                f"of them can be passed)")


def _unpack(device, lst, imported=()):
    """Python values of a result list (IREE's dynamic mode): buffer views
    become DeviceArrays that allow implicit host transfer, lists stay
    VmVariantLists. A result in the memory of an argument passed without a
    copy (imported: its host ranges) becomes a copy."""
    out = []
    for i in range(len(lst)):
        v = lst._get(i)[1]
        if isinstance(v, HalBufferView):
            if imported:
                addr = _hal.host_address(v)
                if addr is not None and any(lo <= addr < hi for lo, hi in imported):
                    v = HalBufferView._from_numpy(device, v.to_numpy(), v.element_type)
            v = DeviceArray(device, v, implicit_host_transfer=True)
        out.append(v)
    return out


class FunctionInvoker:
    """Calls one exported function: ``invoker(*args, **kwargs)``. One result
    comes back as itself, none as None, several as a tuple. Keyword
    arguments need the function's ``iree.abi`` reflection to name them."""

    def __init__(self, vm_context, device, vm_function, tracer=None):
        self._vm_context = vm_context
        self._device = device
        self._vm_function = vm_function
        self._packer = None
        # IREE's legacy reflection, parsed once (None for gree's modules).
        self._abi = _function_abi.parse(vm_function)
        # A VmContext is called directly (deadlines and cancel tokens
        # included); any other object through its invoke(function, args,
        # results), as IREE's FunctionInvoker calls contexts.
        self._direct = isinstance(vm_context, VmContext) and type(vm_context).invoke is VmContext.invoke

    @property
    def vm_function(self):
        return self._vm_function

    def __call__(self, *args, **kwargs):
        f = self._vm_function
        if self._packer is None or self._packer.function is not f:
            self._packer = _Packer(self._device, f)
        if self._abi is not None:
            return self._call_abi(f, args, kwargs)
        if kwargs:
            raise ArgumentError(
                f"kwargs not supported for dynamic dispatch functions: keyword arguments ({', '.join(kwargs)}) "
                f"need iree.abi reflection, which function '{self._packer.name}' does not have; pass them by position")
        packed = self._packer.pack(args)
        res = self._run(f, packed)
        try:
            values = _unpack(self._device, res, self._packer.imported)
        except Exception as e:  # noqa: BLE001
            raise ReturnError(f"Error processing function return: {e}") from e
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        return tuple(values)

    def _call_abi(self, f, args, kwargs):
        """A call packed and unpacked by the function's iree.abi descriptors."""
        p = self._packer
        p.imported = []
        packed = self._abi.pack(args, kwargs, p.view)
        values = self._abi.unpack(self._run(f, packed), self._device, p.imported)
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        return tuple(values)

    def _run(self, f, packed):
        """Calls f with the packed arguments; returns its result list."""
        signal = None
        if self._packer.fences:
            # As IREE's tools do: a wait fence already reached, and a signal
            # fence the call waits for before its results are read.
            from ._hal import HalFence

            signal = HalFence.create_at(self._device.create_semaphore(0), 1)
            packed.push_ref(HalFence(0))
            packed.push_ref(signal)
        if self._direct:
            res = self._vm_context._invoke(f.module_name, f.name, packed)
        else:
            res = VmVariantList()
            self._vm_context.invoke(f, packed, res)
        if signal is not None:
            signal.wait()
        return res

    def __repr__(self):
        return repr(self._vm_function)


# The memory type and usage of the buffers made for arguments passed as
# host arrays (IREE's names; gree's local devices import host arrays in place).
IMPLICIT_BUFFER_ARG_MEMORY_TYPE = _hal.MemoryType.DEVICE_LOCAL
IMPLICIT_BUFFER_ARG_USAGE = _hal.BufferUsage.DEFAULT
