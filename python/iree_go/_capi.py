"""The one owner of cffi: loads libgree.so and declares its C ABI.

The declarations are read from the installed ``gree.h`` (the block between
GREE_CDEF_BEGIN and GREE_CDEF_END), so the header is the single source of
truth. ``GREE_LIBRARY`` (a path to libgree.so) overrides the packaged library.
``GREE_LIBLLVMLITE`` is set from the installed llvmlite before the library
loads (see _llvmlite.py).
"""

import os
import re

from cffi import FFI

from . import _llvmlite

_here = os.path.dirname(os.path.abspath(__file__))
_repo = os.path.dirname(os.path.dirname(_here))

# Installed layout first, then a source checkout (python/ beside include/ and
# build/), so tests can run against a freshly built library.
_HEADER_CANDIDATES = [
    os.path.join(_here, "_lib", "gree.h"),
    os.path.join(_repo, "include", "gree.h"),
]
_LIBRARY_CANDIDATES = [
    os.path.join(_here, "_lib", "libgree.so"),
    os.path.join(_repo, "build", "libgree.so"),
]


def _first_existing(paths, what):
    for p in paths:
        if os.path.exists(p):
            return p
    raise ImportError(
        f"iree_go: {what} not found (looked in {', '.join(paths)}); "
        "install the package with `pip install .` from gree's source tree"
    )


def _cdef_source(header_path):
    with open(header_path, "r", encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"/\* GREE_CDEF_BEGIN \*/(.*)/\* GREE_CDEF_END \*/", text, re.S)
    if not m:
        raise ImportError(f"iree_go: {header_path} has no GREE_CDEF block")
    lines = [l for l in m.group(1).splitlines() if not l.lstrip().startswith("#")]
    return "\n".join(lines)


ffi = FFI()
ffi.cdef(_cdef_source(_first_existing(_HEADER_CANDIDATES, "gree.h")))
_library_path = os.environ.get("GREE_LIBRARY") or _first_existing(
    _LIBRARY_CANDIDATES, "libgree.so"
)
# llvm-cpu's LLVM may come from llvmlite: tell libgree.so where it is
# before the library starts (it reads the environment once).
_llvmlite.configure()
lib = ffi.dlopen(_library_path)
library_path = _library_path

# IREE's status codes (the same numbers as gree_status_code_t).
CODE_NAMES = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]


def exception_type(code):
    """The Python exception IREE raises for a status code (status_utils.cc)."""
    name = CODE_NAMES[code] if 0 <= code < len(CODE_NAMES) else "UNKNOWN"
    if name in ("INVALID_ARGUMENT", "NOT_FOUND"):
        return ValueError
    if name == "OUT_OF_RANGE":
        return IndexError
    if name == "UNIMPLEMENTED":
        return NotImplementedError
    return RuntimeError


def check(status, context=None):
    """Raises the mapped exception for a non-OK status, freeing it.

    The exception's ``code`` attribute is the IREE status code."""
    if status == ffi.NULL:
        return
    try:
        code = int(lib.gree_status_code(status))
        message = ffi.string(lib.gree_status_message(status)).decode("utf-8", "replace")
    finally:
        lib.gree_status_free(status)
    if context:
        message = f"{context}: {message}"
    exc = exception_type(code)(message)
    exc.code = code
    raise exc


def take_string(ptr):
    """Copies a caller-frees C string into str and frees it."""
    if ptr == ffi.NULL:
        return ""
    try:
        return ffi.string(ptr).decode("utf-8", "replace")
    finally:
        lib.gree_free(ptr)


def take_bytes(ptr, size):
    """Copies caller-frees C bytes into bytes and frees them."""
    if ptr == ffi.NULL:
        return b""
    try:
        return bytes(ffi.buffer(ptr, size))
    finally:
        lib.gree_free(ptr)


def string_array(strings):
    """A char** for cffi calls; returns (array, keepalive)."""
    keep = [ffi.new("char[]", s.encode("utf-8")) for s in strings]
    arr = ffi.new("char*[]", keep) if keep else ffi.NULL
    return arr, keep


def run_tool(tool, argv, stdin=b""):
    """Runs a gree tool in process. Returns (exit_code, stdout, stderr)."""
    arr, keep = string_array(argv)
    out = ffi.new("uint8_t**")
    out_size = ffi.new("size_t*")
    err = ffi.new("uint8_t**")
    err_size = ffi.new("size_t*")
    code = ffi.new("int32_t*")
    stdin_buf = ffi.from_buffer(stdin) if stdin else ffi.NULL
    check(
        lib.gree_tool_run(
            tool.encode("utf-8"), len(argv), arr, stdin_buf, len(stdin),
            out, out_size, err, err_size, code,
        )
    )
    del keep
    return (
        int(code[0]),
        take_bytes(out[0], out_size[0]),
        take_bytes(err[0], err_size[0]),
    )
