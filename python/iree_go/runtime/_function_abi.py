"""IREE's ``iree.abi`` reflection for FunctionInvoker: a JSON object whose
"a" and "r" lists describe a function's arguments and results.

Descriptors: scalars ("i8", "i16", "i32", "i64", "f32", "f64"),
``["ndarray", dtype, rank, dim…]`` (a dim may be null), keyword arguments
``["named", name, descriptor]`` and nested structures packed as VM lists:
``["slist", d…]``, ``["stuple", d…]``, ``["sdict", [key, d]…]`` (results also
``["py_homogeneous_list", d]``). Results come back as Python lists, tuples
and dicts; a single slist/stuple/sdict result is inlined: the function
returns its items. Errors use IREE's messages (``mismatched call arity: …``,
``expected a sequence with 2 values. got: …``) followed by the argument and
descriptor they concern.
"""

import json
import operator

import numpy as np

from . import _hal, dtypes
from ._hal import HalBufferView
from ._vm import VmVariantList
from .array_interop import DeviceArray

__all__ = ["ArgumentError", "ReturnError", "LegacyAbi", "parse"]


class ArgumentError(ValueError):
    """An argument FunctionInvoker cannot pass to the function."""


class ReturnError(ValueError):
    """A result FunctionInvoker cannot turn into a Python value."""


class _Bad(Exception):
    """A packing failure; LegacyAbi.pack adds which argument it was."""


_MISSING = object()
_STRUCTS = ("slist", "stuple", "sdict")
# (VM kind, lowest, highest) of the integer primitives; i8 and i16 travel as
# i32, as VM function arguments do.
_INTS = {"i8": ("i", -(1 << 7), (1 << 8) - 1), "i16": ("i", -(1 << 15), (1 << 16) - 1),
         "i32": ("i", -(1 << 31), (1 << 32) - 1), "i64": ("I", -(1 << 63), (1 << 64) - 1)}
_FLOATS = {"f32": "f", "f64": "F"}


def parse(vm_function):
    """The LegacyAbi of vm_function's ``iree.abi`` reflection, or None when
    it has none."""
    reflection = getattr(vm_function, "reflection", None) or {}
    text = reflection.get("iree.abi")
    if text is None:
        return None
    return LegacyAbi(text, reflection, getattr(vm_function, "name", None))


def _r(value, limit=200):
    """repr(value), cut to limit characters for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _label(name):
    return f"function '{name}'" if name else "the function"


def _int_packer(abi):
    kind, lo, hi = _INTS[abi]
    bits = int(abi[1:])

    def pack(lst, value, view):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        try:
            v = operator.index(value)
        except TypeError:
            raise _Bad(f"expected an integer for {abi}, got {type(value).__name__} {_r(value)}") from None
        if not lo <= v <= hi:
            raise _Bad(f"{v} does not fit in {abi}")
        if v >= 1 << (bits - 1):  # unsigned bit patterns, sign-extended
            v -= 1 << bits
        lst._push_typed(kind, v)

    return pack


def _float_packer(abi):
    kind = _FLOATS[abi]

    def pack(lst, value, view):
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            v = float(value)
        except (TypeError, ValueError):
            raise _Bad(f"expected a number for {abi}, got {type(value).__name__} {_r(value)}") from None
        lst._push_typed(kind, v)

    return pack


def _ndarray_packer(desc):
    if len(desc) < 2 or not isinstance(desc[1], str):
        raise ValueError(f"Malformed ndarray descriptor {desc!r}: expected [\"ndarray\", dtype, rank, dim...]")
    target = dtypes.dtype_for_abi(desc[1])
    if target is None:
        raise ValueError(f"could not map abi type {desc[1]!r} to numpy dtype")
    # The shape is checked only where the descriptor is well formed: a rank
    # followed by that many dims (IREE itself checks none).
    dims = None
    if len(desc) >= 3 and isinstance(desc[2], int) and len(desc) == 3 + desc[2]:
        dims = tuple(desc[3:])

    def pack(lst, value, view):
        if isinstance(value, DeviceArray):
            bv = value._buffer_view
        elif isinstance(value, HalBufferView):
            bv = value
        else:
            try:
                arr = np.asarray(value, dtype=target, order="C")
            except Exception as e:  # noqa: BLE001 - the reason is the message
                raise _Bad(f"could not convert value to numpy array: dtype={target!r}, error='{e}', "
                           f"value={_r(value)}") from e
            bv = view(arr)
        if dims is not None:
            shape = bv._dims()
            if len(shape) != len(dims) or any(d is not None and d != s for s, d in zip(shape, dims)):
                want = "x".join("?" if d is None else str(d) for d in dims)
                raise _Bad(f"expected an array of shape [{want}], got shape {list(shape)}")
        lst.push_ref(bv)

    return pack


def _sequence_packer(desc):
    subs = [_packer(d) for d in desc[1:]]

    def pack(lst, value, view):
        try:
            n = len(value)
        except TypeError:
            n = None
        if n != len(subs):
            raise _Bad(f"expected a sequence with {len(subs)} values. got: {_r(value)}")
        sub = VmVariantList(len(subs))
        for i, p in enumerate(subs):
            try:
                item = value[i]
            except Exception as e:  # noqa: BLE001 - the reason is the message
                raise _Bad(f"could not get item {i} from: {_r(value)}: {e}") from e
            p(sub, item, view)
        lst.push_list(sub)

    return pack


def _dict_packer(desc):
    subs = []
    for entry in desc[1:]:
        if not isinstance(entry, list) or len(entry) != 2:
            raise ValueError(f"Malformed sdict entry {entry!r}: expected [key, descriptor]")
        subs.append((entry[0], _packer(entry[1])))

    def pack(lst, value, view):
        try:
            n = len(value)
        except TypeError:
            n = None
        if n != len(subs):
            raise _Bad(f"expected a dict with {len(subs)} values. got: {_r(value)}")
        sub = VmVariantList(len(subs))
        for key, p in subs:
            try:
                item = value[key]
            except Exception as e:  # noqa: BLE001 - the reason is the message
                raise _Bad(f"could not get item {key!r} from: {_r(value)}: {e}") from e
            p(sub, item, view)
        lst.push_list(sub)

    return pack


def _packer(desc):
    """A function packing one Python value as desc describes into a list."""
    if isinstance(desc, list):
        kind = desc[0] if desc else None
        if kind == "ndarray":
            return _ndarray_packer(desc)
        if kind in ("slist", "stuple"):
            return _sequence_packer(desc)
        if kind == "sdict":
            return _dict_packer(desc)
        raise ValueError(f"Unrecognized reflection compound type: {kind}")
    if desc in _INTS:
        return _int_packer(desc)
    if desc in _FLOATS:
        return _float_packer(desc)
    raise ValueError(f"Unrecognized reflection primitive type: {desc}")


class LegacyAbi:
    """A function's parsed ``iree.abi``: packs calls (positional and keyword
    arguments) and unpacks results as its descriptors say."""

    def __init__(self, text, reflection, name=None):
        self.name = name
        try:
            abi = json.loads(text)
        except (TypeError, ValueError) as e:
            raise RuntimeError(f"Reflection metadata is not valid JSON: {text}") from e
        try:
            self.arg_descs, self.ret_descs = abi["a"], abi["r"]
        except (KeyError, TypeError) as e:
            raise RuntimeError(f"Malformed function reflection metadata: {reflection}") from e
        if not isinstance(self.arg_descs, list) or not isinstance(self.ret_descs, list):
            raise RuntimeError(f"Malformed function reflection metadata structure: {reflection}")
        # A single slist/stuple/sdict result is inlined: its items are the
        # function's results.
        r = self.ret_descs
        self.inlined = len(r) == 1 and isinstance(r[0], list) and bool(r[0]) and r[0][0] in _STRUCTS
        self._packers, self._names, self._kwargs, self._positional = [], [], {}, 0
        for desc in self.arg_descs:
            index, kw = len(self._packers), None
            if isinstance(desc, list) and desc and desc[0] == "named":
                if len(desc) != 3 or not isinstance(desc[1], str):
                    raise ValueError(f"Malformed named descriptor {desc!r} (argument {index} of {_label(name)}): "
                                     f"expected [\"named\", name, descriptor]")
                kw, desc = desc[1], desc[2]
                self._kwargs[kw] = index
            else:
                self._positional += 1
            try:
                self._packers.append(_packer(desc))
            except ValueError as e:
                raise ValueError(f"{e} (argument {index} of {_label(name)})") from None
            self._names.append(kw)

    def _where(self, i):
        kw = self._names[i]
        named = f" ('{kw}')" if kw is not None else ""
        return f"argument {i}{named} of {_label(self.name)}, descriptor {json.dumps(self.arg_descs[i])}"

    def pack(self, args, kwargs, view):
        """A VmVariantList of args and kwargs; view(i, array) makes the
        buffer view of a host array passed as argument i."""
        n = len(self._packers)
        if len(args) > self._positional:
            raise ArgumentError(f"mismatched call arity: expected {self._positional} got {len(args)} "
                                f"({_label(self.name)} takes {self._positional} positional argument"
                                f"{'s' * (self._positional != 1)})")
        slots = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            i = self._kwargs.get(key)
            if i is None:
                known = ", ".join(self._kwargs) or "none"
                raise ArgumentError(f"specified kwarg '{key}' is unknown (the keyword arguments of "
                                    f"{_label(self.name)}: {known})")
            if slots[i] is not _MISSING:
                raise ArgumentError(f"mismatched call arity: duplicate keyword argument '{key}' "
                                    f"(argument {i} is also given by position)")
            slots[i] = value
        for i, value in enumerate(slots):
            if value is _MISSING:
                how = f"pass it as {self._names[i]}=" if self._names[i] is not None else "pass it by position"
                raise ArgumentError(f"mismatched call arity: expected a value for argument {i} "
                                    f"({self._where(i)}: {how})")
        lst = VmVariantList(n)
        for i, (pack, value) in enumerate(zip(self._packers, slots)):
            try:
                pack(lst, value, lambda arr, i=i: view(i, arr))
            except _Bad as e:
                raise ArgumentError(f"{e} ({self._where(i)})") from e.__cause__
        return lst

    def unpack(self, lst, device, imported=()):
        """The Python values of the result list lst."""
        inv = _Decoding(device, imported)
        if self.inlined:
            return [_structure(inv, lst, self.ret_descs[0])]
        return _sequence(inv, lst, self.ret_descs)


class _Decoding:
    """Where result decoding is, for error messages."""

    __slots__ = ("device", "imported", "lst", "index", "desc")

    def __init__(self, device, imported):
        self.device, self.imported = device, imported
        self.lst, self.index, self.desc = None, 0, None


def _return_error(inv, summary, cause=None, where=""):
    if inv.lst is not None and not where:
        try:
            where = f"{inv.index}@{inv.lst!r} with description {inv.desc}"
        except Exception:  # noqa: BLE001 - a message must not fail
            where = "<error printing list item>"
    e = ReturnError(f"Error processing function return: {summary} (while decoding return {where})")
    raise e from cause


def _sequence(inv, lst, descs):
    n = len(lst)
    if n != len(descs):
        _return_error(inv, f"mismatched return arity: {n} vs {len(descs)}",
                      where=f"{lst!r} with descriptions {descs}")
    out = []
    for i, desc in enumerate(descs):
        inv.lst, inv.index, inv.desc = lst, i, desc
        kind = desc if isinstance(desc, str) else (desc[0] if isinstance(desc, list) and desc else None)
        convert = _CONVERTERS.get(kind)
        if convert is None:
            _return_error(inv, f"cannot map VM type to Python: {kind}")
        try:
            out.append(convert(inv, lst, i, desc))
        except ReturnError:
            raise
        except Exception as e:  # noqa: BLE001 - wrapped with where it happened
            _return_error(inv, f"exception converting from VM type to Python: {e}", e)
    return out


def _structure(inv, sub, desc):
    """The list, tuple or dict of the VM list sub that desc describes."""
    if desc[0] == "sdict":
        keys = [entry[0] for entry in desc[1:]]
        return dict(zip(keys, _sequence(inv, sub, [entry[1] for entry in desc[1:]])))
    items = _sequence(inv, sub, desc[1:])
    return tuple(items) if desc[0] == "stuple" else items


def _to_structure(inv, lst, i, desc):
    return _structure(inv, lst.get_as_list(i), desc)


def _to_homogeneous_list(inv, lst, i, desc):
    sub = lst.get_as_list(i)
    return _sequence(inv, sub, [desc[1]] * len(sub))


def _to_ndarray(inv, lst, i, desc):
    bv = lst.get_as_object(i, HalBufferView)
    if bv is None:
        _return_error(inv, "expected a buffer view, got a null reference")
    dtype = dtypes.dtype_for_abi(desc[1]) if len(desc) > 1 and isinstance(desc[1], str) else None
    if dtype is None:
        _return_error(inv, f"unrecognized dtype '{desc[1] if len(desc) > 1 else None}'")
    if inv.imported:
        # A result in the memory of an argument passed without a copy is
        # copied: results never alias the caller's arrays.
        addr = _hal.host_address(bv)
        if addr is not None and any(lo <= addr < hi for lo, hi in inv.imported):
            bv = HalBufferView._from_numpy(inv.device, bv.to_numpy(), bv.element_type)
    return DeviceArray(inv.device, bv, implicit_host_transfer=True, override_dtype=dtype)


def _to_scalar(bound):
    def convert(inv, lst, i, desc):
        value = lst.get_variant(i)
        if not isinstance(value, bound):
            _return_error(inv, f"expected an {bound} value but got {value.__class__}")
        return value

    return convert


_CONVERTERS = {
    "ndarray": _to_ndarray,
    "slist": _to_structure,
    "stuple": _to_structure,
    "sdict": _to_structure,
    "py_homogeneous_list": _to_homogeneous_list,
    **{t: _to_scalar(int) for t in ("i8", "i16", "i32", "i64")},
    **{t: _to_scalar(float) for t in ("f16", "f32", "f64", "bf16")},
}
