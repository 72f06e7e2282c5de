"""FunctionInvoker (IREE's iree.runtime.function): Python values in,
DeviceArrays and Python scalars out.

Arguments are checked against the function's ``iree.abi.declaration`` before
the call, so a wrong count, shape or dtype is an ``ArgumentError`` (a
ValueError) naming the argument and the type the function expects.
"""

import functools
import re

import numpy as np

from . import _hal
from ._hal import HalBufferView, HalElementType
from ._vm import VmVariantList
from .array_interop import DeviceArray
from . import dtypes

__all__ = ["FunctionInvoker"]


class ArgumentError(ValueError):
    pass


class ReturnError(ValueError):
    pass


_KIND_TEXT = {"i": "i32", "I": "i64", "f": "f32", "F": "f64", "r": "a reference"}


def _split_top(text, sep=","):
    """Splits text at sep outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts]


def _declared_args(decl):
    """The argument types of an iree.abi.declaration as a tuple
    ("tensor<4xf32>", "i32", …), or None when decl declares none."""
    m = re.match(r"[^(]*@[^(]*\(", decl)
    if not m:
        return None
    depth, i = 1, m.end()
    start = i
    while i < len(decl) and depth:
        if decl[i] == "(":
            depth += 1
        elif decl[i] == ")":
            depth -= 1
        i += 1
    inner = decl[start:i - 1]
    types = []
    for p in _split_top(inner):
        t = p.split(":", 1)[1].strip() if ":" in p else p
        # Drop argument attributes ("tensor<4xf32> {iree.abi.foo}").
        types.append(_split_top(t, " ")[0] if "{" in t else t)
    return tuple(types)


def _parse_tensor(t):
    """(dims, element) of "tensor<4x?xf32>" (None for a dynamic dim), or
    None when t is not a ranked tensor type."""
    m = re.fullmatch(r"tensor<(.*)>", t or "")
    if not m:
        return None
    body = _split_top(m.group(1))[0]  # drop an encoding
    parts = body.split("x")
    element, dims = parts[-1], []
    for d in parts[:-1]:
        if d == "?":
            dims.append(None)
        elif d.isdigit():
            dims.append(int(d))
        else:
            return None
    return dims, element


@functools.lru_cache(maxsize=64)
def _element_text(element_type):
    """The MLIR element type of a HAL element type ("f32", "i32", "i1")."""
    et = int(element_type)
    bits, num = et & 0xFF, et >> 24
    if num in (0x10, 0x11, 0x12):
        return f"i{bits}"
    if num == 0x13:
        return "i1"
    if num == 0x21:
        return f"f{bits}"
    if num == 0x22:
        return "bf16"
    if num == 0x23:
        return f"complex<f{bits // 2}>"
    try:
        name = HalElementType(et).name
    except ValueError:
        return f"0x{et:08x}"
    return {"FLOAT_8_E5M2": "f8E5M2", "FLOAT_8_E4M3_FN": "f8E4M3FN", "FLOAT_8_E5M2_FNUZ": "f8E5M2FNUZ",
            "FLOAT_8_E4M3_FNUZ": "f8E4M3FNUZ", "FLOAT_8_E8M0_FNU": "f8E8M0FNU"}.get(name, name)


def _normalize_element(el):
    """Signed/unsigned integer spellings compare as signless ones."""
    if el.startswith(("si", "ui")) and el[2:].isdigit():
        return "i" + el[2:]
    return el


def _describe(value):
    """A short description of an argument for error messages."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, DeviceArray):
        try:
            dt = value.dtype
        except ValueError:
            dt = _element_text(value._buffer_view.element_type)
        return f"DeviceArray of shape {tuple(value.shape)} and dtype {dt}"
    if isinstance(value, HalBufferView):
        return f"HalBufferView of shape {tuple(value.shape)} and element type {_element_text(value.element_type)}"
    if isinstance(value, np.generic):
        return f"numpy {value.dtype} scalar {value!r}"
    if value is None:
        return "None"
    if isinstance(value, (bool, int, float)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, (list, tuple, dict)):
        return f"{type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__}"


def _shape_matches(shape, dims):
    return len(shape) == len(dims) and all(d is None or d == s for s, d in zip(shape, dims))


def _can_convert(src, dst):
    """Whether array-like data of dtype src may be converted to dst (Python
    numbers and lists, not arrays): never floats to integers."""
    if src == dst:
        return True
    s, d = src.kind, dst.kind
    if d == "b":
        return s == "b"
    if d in "iu":
        return s in "biu"
    if d == "c":
        return s in "biufc"
    # f16/f32/f64 and the ml_dtypes floats (bf16, f8).
    return s in "biuf"


@functools.lru_cache(maxsize=256)
def _signature(cc, declaration):
    """What a call needs from a function's calling convention and
    declaration, parsed once per signature: the argument kinds ("rr", or
    None), the declared argument types (or None) and, for each declared
    type, its (dims, normalized element) when it is a ranked tensor."""
    # "0rr_r": version 0, then the argument kinds ("v" for none).
    kinds = cc[1:].split("_", 1)[0] if cc.startswith("0") else None
    if kinds == "v":
        kinds = ""
    declared = _declared_args(declaration)
    tensors = []
    for t in declared or ():
        tensor = _parse_tensor(t)
        tensors.append(None if tensor is None else (tensor[0], _normalize_element(tensor[1])))
    return kinds, declared, tuple(tensors)


class _Packer:
    """Packs Python arguments into a VmVariantList for one call."""

    def __init__(self, device, function):
        self.device = device
        self.function = function
        self.kinds, self.declared, self.tensors = _signature(
            function.calling_convention or "", function.reflection.get("iree.abi.declaration", ""))
        # A coarse-fences function's last two arguments are its wait and
        # signal fences: the invoker passes them (see FunctionInvoker).
        self.fences = function.reflection.get("iree.abi.model") == "coarse-fences"
        if self.fences and self.kinds is not None and len(self.kinds) >= 2:
            self.kinds = self.kinds[:-2]

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
        name = self.function.name
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
        tuples and dicts (values by sorted key) → lists, arrays → buffer views."""
        if value is None:
            lst.push_ref(None)
        elif isinstance(value, (bool, int, np.bool_)):
            lst.push_int(int(value))
        elif isinstance(value, float):
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
                raise ArgumentError(f"Error passing argument {where}: cannot pass {_describe(value)}") from e
            if arr.dtype.kind not in "biufc" and dtypes.to_element_type(arr.dtype) is None:
                raise ArgumentError(f"Error passing argument {where}: cannot pass {_describe(value)}")
            lst.push_ref(self.view(where, arr))


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
    """Calls one exported function: ``invoker(*args)``. One result comes back
    as itself, none as None, several as a tuple."""

    def __init__(self, vm_context, device, vm_function, tracer=None):
        self._vm_context = vm_context
        self._device = device
        self._vm_function = vm_function
        self._packer = None

    @property
    def vm_function(self):
        return self._vm_function

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise ArgumentError(
                f"Error passing argument: keyword arguments ({', '.join(kwargs)}) need iree.abi reflection, "
                f"which function '{self._vm_function.name}' does not have")
        f = self._vm_function
        if self._packer is None or self._packer.function is not f:
            self._packer = _Packer(self._device, f)
        packed = self._packer.pack(args)
        signal = None
        if self._packer.fences:
            # As IREE's tools do: a wait fence already reached, and a signal
            # fence the call waits for before its results are read.
            from ._hal import HalFence

            signal = HalFence.create_at(self._device.create_semaphore(0), 1)
            packed.push_ref(HalFence(0))
            packed.push_ref(signal)
        res = self._vm_context._invoke(f.module_name, f.name, packed)
        if signal is not None:
            signal.wait()
        try:
            values = _unpack(self._device, res, self._packer.imported)
        except Exception as e:  # noqa: BLE001
            raise ReturnError(f"Error processing function return: {e}") from e
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        return tuple(values)

    def __repr__(self):
        return repr(self._vm_function)


# The memory type and usage of the buffers made for arguments passed as
# host arrays (IREE's names; gree's local devices import host arrays in place).
IMPLICIT_BUFFER_ARG_MEMORY_TYPE = _hal.MemoryType.DEVICE_LOCAL
IMPLICIT_BUFFER_ARG_USAGE = _hal.BufferUsage.DEFAULT
