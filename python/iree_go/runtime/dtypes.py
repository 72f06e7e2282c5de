"""numpy dtypes ↔ HAL element types (IREE's iree.runtime dtypes)."""

import numpy as np

from ._hal import HalElementType as ET

_TO_ET = {
    np.dtype(np.float16): ET.FLOAT_16,
    np.dtype(np.float32): ET.FLOAT_32,
    np.dtype(np.float64): ET.FLOAT_64,
    np.dtype(np.int8): ET.SINT_8,
    np.dtype(np.int16): ET.SINT_16,
    np.dtype(np.int32): ET.SINT_32,
    np.dtype(np.int64): ET.SINT_64,
    np.dtype(np.uint8): ET.UINT_8,
    np.dtype(np.uint16): ET.UINT_16,
    np.dtype(np.uint32): ET.UINT_32,
    np.dtype(np.uint64): ET.UINT_64,
    np.dtype(np.bool_): ET.BOOL_8,
    np.dtype(np.complex64): ET.COMPLEX_64,
    np.dtype(np.complex128): ET.COMPLEX_128,
}

try:  # bf16 and f8 through ml_dtypes, when installed
    import ml_dtypes

    for name, et in [("bfloat16", ET.BFLOAT_16), ("float8_e4m3fn", ET.FLOAT_8_E4M3_FN),
                     ("float8_e4m3fnuz", ET.FLOAT_8_E4M3_FNUZ), ("float8_e5m2", ET.FLOAT_8_E5M2),
                     ("float8_e5m2fnuz", ET.FLOAT_8_E5M2_FNUZ), ("float8_e8m0fnu", ET.FLOAT_8_E8M0_FNU)]:
        if hasattr(ml_dtypes, name):
            _TO_ET[np.dtype(getattr(ml_dtypes, name))] = et
except ImportError:  # pragma: no cover - optional
    ml_dtypes = None

_FROM_ET = {et: dt for dt, et in _TO_ET.items()}
# Signless integers (what compiled modules produce) read as signed.
_FROM_ET.update({ET.INT_8: np.dtype(np.int8), ET.INT_16: np.dtype(np.int16),
                 ET.INT_32: np.dtype(np.int32), ET.INT_64: np.dtype(np.int64)})


def to_element_type(dtype):
    """The HAL element type of a numpy dtype, or None."""
    return _TO_ET.get(np.dtype(dtype))


def to_dtype(element_type):
    """The numpy dtype of a HAL element type (ValueError when none)."""
    try:
        return _FROM_ET[ET(element_type)]
    except (KeyError, ValueError):
        raise ValueError(f"No numpy dtype for element type {element_type!r}") from None


# IREE's ABI names of the element types.
def abi_name(dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return "i1"
    if dt.kind == "f":
        return f"f{dt.itemsize * 8}"
    if dt.kind in "iu":
        return f"i{dt.itemsize * 8}"
    if dt.kind == "c":
        return f"complex<f{dt.itemsize * 4}>"
    return str(dt)
