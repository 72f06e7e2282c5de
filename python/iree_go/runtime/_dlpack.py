"""DLPack capsules over libgree's zero-copy import and export.

A capsule named "dltensor" holds a DLManagedTensor*; its consumer renames it
"used_dltensor" and calls the tensor's deleter when done. libgree builds and
reads the tensors; this module only makes and opens the capsules (through
Python's C API, reached with ctypes)."""

import ctypes

from .._capi import ffi, lib, check

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

_NAME = b"dltensor"
_USED = b"used_dltensor"

# The capsule destructor gets the capsule as a raw pointer (it is being
# destroyed; no reference may be taken), so the C API is called on it
# through separately typed entry points.
_get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_GetName", _api))
_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

# struct DLManagedTensor's deleter is its last field: after the DLTensor
# (48 bytes on 64-bit hosts) and manager_ctx.
_DELETER_OFFSET = 48 + 8
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _delete(managed):
    """Calls a DLManagedTensor's deleter."""
    fn = ctypes.c_void_p.from_address(managed + _DELETER_OFFSET).value
    if fn:
        _DELETER(fn)(managed)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _destructor(capsule):
    # An unconsumed capsule still owns its tensor.
    name = _get_name(capsule)
    if name == _NAME:
        p = _get_pointer(capsule, _NAME)
        if p:
            _delete(p)


_destructor_ptr = ctypes.cast(_destructor, ctypes.c_void_p).value


def export_capsule(buffer_view, device_type, device_id):
    """A "dltensor" capsule over buffer_view's host memory."""
    out = ffi.new("void**")
    check(lib.gree_buffer_view_export_dlpack(buffer_view._h, device_type, device_id, out), "exporting to DLPack")
    managed = int(ffi.cast("uintptr_t", out[0]))
    return _api.PyCapsule_New(managed, _NAME, _destructor_ptr)


def import_capsule(device, capsule):
    """A HalBufferView over a "dltensor" capsule's tensor, which it consumes."""
    from ._hal import HalBufferView

    if not _api.PyCapsule_IsValid(capsule, _NAME):
        raise ValueError("expected a DLPack capsule named 'dltensor' that was not consumed yet")
    managed = _api.PyCapsule_GetPointer(capsule, _NAME)
    out = ffi.new("gree_buffer_view_t*")
    check(lib.gree_buffer_view_import_dlpack(device._h, ffi.cast("void*", managed), out), "importing from DLPack")
    # The view owns the tensor now: its deleter runs when the view's memory
    # is freed, not when the capsule is.
    _api.PyCapsule_SetName(capsule, _USED)
    return HalBufferView._from_handle(out[0])
