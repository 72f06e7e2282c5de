"""numpy dtypes ↔ HAL element types ↔ ABI type names (IREE's
iree.runtime.dtypes).

bf16, the f8 types and the sub-byte types (int4, uint4, int2, uint2,
float4_e2m1fn) map through ml_dtypes when it is installed; without it they
have no numpy dtype and everything else still works.

Sub-byte elements are stored one per byte, as ml_dtypes arrays hold them
(IREE packs two i4 per byte). The byte gree's kernels read and write is
canonical: an integer's low bits sign-extended through the byte, whatever
its signedness, and an f4E2M1FN code in the low four bits with the high
bits zero. ``to_storage`` makes an array's bytes canonical on the way in
and ``from_storage`` clears the high bits on the way out, so results hold
the bytes ml_dtypes itself makes (``np.array([-3], int4).tobytes() ==
b"\x0d"``).
"""

import dataclasses
from typing import Any, Dict, Optional

import numpy as np

from ._hal import HalElementType as ET

try:  # optional: bf16 and f8 dtypes
    import ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    ml_dtypes = None

__all__ = [
    "DTypeInfo",
    "DTYPE_TO_ABI_TYPE",
    "map_abi_type_to_dtype_info",
    "map_dtype_to_dtype_info",
    "map_dtype_to_hal_element_type",
    "map_name_to_dtype_info",
]


@dataclasses.dataclass(frozen=True)
class DTypeInfo:
    """One numpy dtype with its name, ABI type ("f32", "i8", …) and HAL type."""

    dtype: np.dtype
    name: str
    abi_type: str
    hal_type: ET

    @property
    def is_complex(self) -> bool:
        return self.dtype.kind == "c"

    @property
    def is_floating_point(self) -> bool:
        return self.dtype.kind == "f" or self.abi_type.startswith(("bf", "f8", "f4"))

    @property
    def is_integer(self) -> bool:
        return self.dtype.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.dtype.kind == "i"


# (numpy name, ABI type, HAL element type), signed integers before unsigned
# ones so the signed dtype wins where both share an ABI type.
_TABLE = [
    ("float16", "f16", ET.FLOAT_16),
    ("float32", "f32", ET.FLOAT_32),
    ("float64", "f64", ET.FLOAT_64),
    ("int8", "i8", ET.SINT_8),
    ("uint8", "i8", ET.UINT_8),
    ("int16", "i16", ET.SINT_16),
    ("uint16", "i16", ET.UINT_16),
    ("int32", "i32", ET.SINT_32),
    ("uint32", "i32", ET.UINT_32),
    ("int64", "i64", ET.SINT_64),
    ("uint64", "i64", ET.UINT_64),
    ("bool", "i1", ET.BOOL_8),
    ("complex64", "complex<f32>", ET.COMPLEX_64),
    ("complex128", "complex<f64>", ET.COMPLEX_128),
]

# ml_dtypes names with their MLIR spelling and HAL element type.
_ML_TABLE = [
    ("bfloat16", "bf16", ET.BFLOAT_16),
    ("float8_e4m3fn", "f8E4M3FN", ET.FLOAT_8_E4M3_FN),
    ("float8_e4m3fnuz", "f8E4M3FNUZ", ET.FLOAT_8_E4M3_FNUZ),
    ("float8_e5m2", "f8E5M2", ET.FLOAT_8_E5M2),
    ("float8_e5m2fnuz", "f8E5M2FNUZ", ET.FLOAT_8_E5M2_FNUZ),
    ("float8_e8m0fnu", "f8E8M0FNU", ET.FLOAT_8_E8M0_FNU),
    # Sub-byte types, signed before unsigned as above.
    ("int4", "i4", ET.SINT_4),
    ("uint4", "i4", ET.UINT_4),
    ("int2", "i2", ET.SINT_2),
    ("uint2", "i2", ET.UINT_2),
    ("float4_e2m1fn", "f4E2M1FN", ET.FLOAT_4_E2M1_FN),
]

_BY_DTYPE: Dict[np.dtype, DTypeInfo] = {}
for _name, _abi, _et in _TABLE:
    _BY_DTYPE[np.dtype(_name)] = DTypeInfo(np.dtype(_name), _name, _abi, _et)

# The ml_dtypes types: mapped to HAL types, not part of the DTypeInfo tables
# (as in IREE).
_ML_BY_DTYPE: Dict[np.dtype, DTypeInfo] = {}
if ml_dtypes is not None:
    for _name, _abi, _et in _ML_TABLE:
        if hasattr(ml_dtypes, _name):
            _dt = np.dtype(getattr(ml_dtypes, _name))
            _ML_BY_DTYPE[_dt] = DTypeInfo(_dt, _name, _abi, _et)

_BY_NAME = {info.name: info for info in _BY_DTYPE.values()}
_BY_ABI: Dict[str, DTypeInfo] = {}
for _info in _BY_DTYPE.values():
    _BY_ABI.setdefault(_info.abi_type, _info)

# HAL element type → numpy dtype (signless integers read as signed).
_BY_HAL: Dict[int, np.dtype] = {}
for _info in list(_BY_DTYPE.values()) + list(_ML_BY_DTYPE.values()):
    _BY_HAL[int(_info.hal_type)] = _info.dtype
for _et, _dt in [(ET.INT_8, "int8"), (ET.INT_16, "int16"), (ET.INT_32, "int32"), (ET.INT_64, "int64")]:
    _BY_HAL[int(_et)] = np.dtype(_dt)
for _et, _signed in [(ET.INT_4, ET.SINT_4), (ET.INT_2, ET.SINT_2)]:
    if int(_signed) in _BY_HAL:
        _BY_HAL[int(_et)] = _BY_HAL[int(_signed)]

DTYPE_TO_ABI_TYPE: Dict[np.dtype, str] = {info.dtype: info.abi_type for info in _BY_DTYPE.values()}


def map_dtype_to_dtype_info(dtype) -> DTypeInfo:
    """The DTypeInfo of a numpy dtype (KeyError when unknown)."""
    dt = np.dtype(dtype)
    try:
        return _BY_DTYPE[dt]
    except KeyError:
        raise KeyError(f"Numpy dtype {dt} not found.") from None


def map_name_to_dtype_info(name: str) -> DTypeInfo:
    """The DTypeInfo of a numpy dtype name such as "float32"."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"Numpy dtype name {name!r} not found.") from None


def map_abi_type_to_dtype_info(abi_type: str) -> DTypeInfo:
    """The DTypeInfo of an ABI type such as "f32" (integers map to signed)."""
    try:
        return _BY_ABI[abi_type]
    except KeyError:
        raise KeyError(f"ABI type {abi_type!r} not found.") from None


def map_dtype_to_hal_element_type(dtype: Any) -> Optional[ET]:
    """The HAL element type of a numpy dtype, or None."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    info = _BY_DTYPE.get(dt) or _ML_BY_DTYPE.get(dt)
    return info.hal_type if info is not None else None


# gree's helpers (used by the rest of iree_go.runtime).


def to_element_type(dtype) -> Optional[ET]:
    """The HAL element type of a numpy dtype, or None."""
    return map_dtype_to_hal_element_type(dtype)


def to_dtype(element_type) -> np.dtype:
    """The numpy dtype of a HAL element type (ValueError when none)."""
    dt = _BY_HAL.get(int(element_type))
    if dt is None:
        try:
            name = ET(int(element_type)).name
        except ValueError:
            et = int(element_type)
            prefix = {0x10: "i", 0x11: "si", 0x12: "ui", 0x21: "f"}.get(et >> 24)
            name = f"0x{et:08x}" + (f" ({prefix}{et & 0xFF})" if prefix else "")
        hint = ""
        if ml_dtypes is None and name.startswith(("BFLOAT", "FLOAT_", "INT_", "SINT_", "UINT_")):
            hint = " (install ml_dtypes for bf16, the f8 types and int4, uint4, int2, uint2, float4_e2m1fn)"
        elif _is_sub_byte(element_type):
            hint = (" (numpy arrays hold the sub-byte types ml_dtypes has: int4, uint4, int2, uint2 and "
                    "float4_e2m1fn; read the bytes with HalBufferView.to_numpy(np.int8))")
        raise ValueError(f"No numpy dtype for element type {name}{hint}")
    return dt


def _is_sub_byte(element_type) -> bool:
    """Whether elements of the type are narrower than a byte and stored one
    per byte: integers of 1 to 7 bits (not the 8-bit bool) and f4E2M1FN."""
    et = int(element_type)
    bits, numerical = et & 0xFF, et >> 24
    return 0 < bits < 8 and numerical in (0x10, 0x11, 0x12, 0x29)


def to_storage(array, element_type):
    """array (C-contiguous, one byte per element) as gree stores elements of
    element_type: for a sub-byte type a new array of the same dtype whose
    bytes are canonical (integers sign-extended from their width, f4 codes
    with the high bits clear); any other array is returned as it is."""
    if not _is_sub_byte(element_type) or array.dtype.itemsize != 1:
        return array
    et = int(element_type)
    bits = et & 0xFF
    # 1-d, so that a 0-d array's arithmetic gives an array, not a scalar.
    raw = np.require(array, requirements="C").reshape(-1).view(np.uint8) & np.uint8((1 << bits) - 1)
    if et >> 24 != 0x29:
        sign = np.uint8(1 << (bits - 1))
        # (x ^ sign) - sign sign-extends x; uint8 arithmetic wraps.
        raw = np.subtract(raw ^ sign, sign, dtype=np.uint8)
    return raw.view(array.dtype).reshape(array.shape)


def from_storage(array, element_type):
    """array, elements of element_type as gree stores them, with the bytes
    ml_dtypes makes: for a sub-byte type a new array whose bytes keep only
    the element's bits; any other array is returned as it is."""
    if not _is_sub_byte(element_type) or array.dtype.itemsize != 1:
        return array
    bits = int(element_type) & 0xFF
    raw = np.require(array, requirements="C").reshape(-1).view(np.uint8)
    return (raw & np.uint8((1 << bits) - 1)).view(array.dtype).reshape(array.shape)


def abi_name(dtype) -> str:
    """The MLIR element type a numpy dtype passes as ("f32", "i32", "i1")."""
    dt = np.dtype(dtype)
    info = _BY_DTYPE.get(dt) or _ML_BY_DTYPE.get(dt)
    return info.abi_type if info is not None else str(dt)


def dtype_matches_abi(dtype, element: str) -> Optional[bool]:
    """Whether arrays of dtype may be passed for MLIR element type element
    ("f32", "i32", "si8", "bf16", "complex<f32>"); None if element is not a
    type gree knows (then the runtime decides)."""
    el = element
    if el.startswith(("si", "ui")) and el[2:].isdigit():
        el = "i" + el[2:]
    known = el in _BY_ABI or any(el == abi for _, abi, _ in _ML_TABLE)
    if not known:
        return None
    return abi_name(dtype) == el


def dtype_for_abi(element: str) -> Optional[np.dtype]:
    """The numpy dtype arrays for MLIR element type element are made with,
    or None."""
    el = element
    signed = True
    if el.startswith(("si", "ui")) and el[2:].isdigit():
        signed = el[0] == "s"
        el = "i" + el[2:]
    info = _BY_ABI.get(el)
    if info is not None:
        if info.is_integer and not signed:
            return np.dtype(f"uint{info.dtype.itemsize * 8}")
        return info.dtype
    for info in _ML_BY_DTYPE.values():
        # The sub-byte integers: signed dtypes come first; "ui4" is uint4.
        if info.abi_type == el and (signed or info.name.startswith("uint")):
            return info.dtype
    return None


def astype(array, dtype):
    """array.astype(dtype), where a sub-byte integer of the other
    signedness (int4 for uint4: ml_dtypes does not cast between them) is
    its bits reinterpreted, as a signless i4 result is read as uint4."""
    dt = np.dtype(dtype)
    if (array.dtype != dt and array.dtype.kind == dt.kind == "V"
            and kind_of(array.dtype) in ("i", "u") and kind_of(dt) in ("i", "u")
            and _ML_BY_DTYPE[array.dtype].abi_type == _ML_BY_DTYPE[dt].abi_type):
        return array.view(dt).copy()
    return array.astype(dt)


def kind_of(dtype) -> Optional[str]:
    """numpy's kind letter of dtype, with the ml_dtypes integers (int4,
    uint2, …, whose numpy kind is "V") as "i" or "u" and its floats as "f";
    None for other "V" dtypes."""
    dt = np.dtype(dtype)
    if dt.kind != "V":
        return dt.kind
    info = _ML_BY_DTYPE.get(dt)
    if info is None:
        return None
    if info.abi_type.startswith("i"):
        return "u" if info.name.startswith("uint") else "i"
    return "f"
