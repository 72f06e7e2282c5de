"""What FunctionInvoker reads from gree's function signatures: the calling
convention's argument kinds and the ``iree.abi.declaration``'s argument types,
parsed once per signature, and the texts its argument errors use."""

import functools
import re

import numpy as np

from . import dtypes
from ._hal import HalBufferView, HalElementType
from .array_interop import DeviceArray

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
            "FLOAT_8_E4M3_FNUZ": "f8E4M3FNUZ", "FLOAT_8_E8M0_FNU": "f8E8M0FNU",
            "FLOAT_4_E2M1_FN": "f4E2M1FN"}.get(name, name)


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
    # The ml_dtypes integers (int4, …) convert as integers.
    s, d = dtypes.kind_of(src) or src.kind, dtypes.kind_of(dst) or dst.kind
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
