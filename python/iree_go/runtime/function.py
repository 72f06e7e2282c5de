"""FunctionInvoker (IREE's iree.runtime.function): numpy in, DeviceArray out."""

import re

import numpy as np

from .._capi import ffi, lib, check
from ._hal import HalBufferView
from .array_interop import DeviceArray
from . import dtypes


class ArgumentError(ValueError):
    pass


class ReturnError(ValueError):
    pass


def _declared_args(function):
    """The argument types of iree.abi.declaration ("tensor<4xf32>", "i32")."""
    decl = function.reflection.get("iree.abi.declaration", "")
    m = re.search(r"\((.*?)\) ->", decl)
    if not m or not m.group(1).strip():
        return []
    return [p.split(":", 1)[1].strip() for p in re.split(r", (?=%)", m.group(1))]


def _cconv_args(function):
    cc = function.calling_convention
    return cc[1:].split("_", 1)[0]


def _new_list():
    out = ffi.new("gree_value_list_t*")
    check(lib.gree_value_list_create(out))
    return ffi.gc(out[0], lib.gree_value_list_release)


def _push(device, lst, value, kind, index, want):
    def fail(msg):
        raise ArgumentError(f"Error passing argument {index}: expected {want}, got {msg}")

    if kind in "iIfF":
        if isinstance(value, (DeviceArray, HalBufferView)) or (isinstance(value, np.ndarray) and value.ndim > 0):
            fail("an array")
        try:
            v = np.asarray(value).item()
        except Exception:  # noqa: BLE001
            fail(type(value).__name__)
        if kind == "i":
            check(lib.gree_value_list_push_i32(lst, int(v)))
        elif kind == "I":
            check(lib.gree_value_list_push_i64(lst, int(v)))
        elif kind == "f":
            check(lib.gree_value_list_push_f32(lst, float(v)))
        else:
            check(lib.gree_value_list_push_f64(lst, float(v)))
        return
    if value is None:
        check(lib.gree_value_list_push_null(lst))
        return
    if isinstance(value, DeviceArray):
        value = value._buffer_view
    if isinstance(value, HalBufferView):
        check(lib.gree_value_list_push_buffer_view(lst, value._handle))
        return
    if isinstance(value, (list, tuple, dict)) and not _looks_numeric(value):
        sub = _new_list()
        items = [value[k] for k in sorted(value)] if isinstance(value, dict) else value
        for i, x in enumerate(items):
            _push(device, sub, x, "r", f"{index}[{i}]", "a value")
        check(lib.gree_value_list_push_list(lst, sub))
        return
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        arr = arr.astype(np.float32)
    if arr.dtype == np.int64 and not isinstance(value, np.ndarray):
        arr = arr.astype(np.int32)
    et = dtypes.to_element_type(arr.dtype)
    if et is None:
        fail(f"an array of dtype {arr.dtype}, which has no IREE element type")
    bv = HalBufferView._from_numpy(device, arr, et)
    check(lib.gree_value_list_push_buffer_view(lst, bv._handle))


def _looks_numeric(v):
    try:
        a = np.asarray(v)
        return a.dtype.kind in "biufc"
    except Exception:  # noqa: BLE001
        return False


def _pack(device, function, args):
    kinds = _cconv_args(function)
    want = _declared_args(function)
    if len(args) != len(kinds):
        decl = function.reflection.get("iree.abi.declaration", function.name)
        raise ArgumentError(f"Error passing arguments: function '{function.name}' takes {len(kinds)} "
                            f"argument(s), got {len(args)} ({decl})")
    lst = _new_list()
    for i, (a, k) in enumerate(zip(args, kinds)):
        _push(device, lst, a, k, i, want[i] if i < len(want) else "a value")
    return lst


def _unpack(device, lst):
    out = []
    n = int(lib.gree_value_list_size(lst))
    for i in range(n):
        t = ffi.new("gree_value_type_t*")
        iv, fv = ffi.new("int64_t*"), ffi.new("double*")
        bv, sub = ffi.new("gree_buffer_view_t*"), ffi.new("gree_value_list_t*")
        check(lib.gree_value_list_get(lst, i, t, iv, fv, bv, sub))
        kind = int(t[0])
        if kind in (lib.GREE_VALUE_I32, lib.GREE_VALUE_I64):
            out.append(int(iv[0]))
        elif kind in (lib.GREE_VALUE_F32, lib.GREE_VALUE_F64):
            out.append(float(fv[0]))
        elif kind == lib.GREE_VALUE_BUFFER_VIEW:
            out.append(DeviceArray(device, HalBufferView._from_handle(bv[0]), implicit_host_transfer=True))
        elif kind == lib.GREE_VALUE_LIST:
            out.append(_unpack(device, ffi.gc(sub[0], lib.gree_value_list_release)))
        else:
            out.append(None)
    return out


class FunctionInvoker:
    """Calls one exported function: ``invoker(*args)``."""

    def __init__(self, vm_context, device, vm_function):
        self._vm_context = vm_context
        self._device = device
        self._vm_function = vm_function

    @property
    def vm_function(self):
        return self._vm_function

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise ArgumentError("Error passing arguments: keyword arguments are not supported")
        f = self._vm_function
        packed = _pack(self._device, f, args)
        res = self._vm_context._invoke(f.module_name, f.name, packed)
        try:
            values = _unpack(self._device, res)
        except Exception as e:  # noqa: BLE001
            raise ReturnError(f"Error processing function return: {e}") from e
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        return tuple(values)

    def __repr__(self):
        return repr(self._vm_function)
