"""Parameters over libgree's gree_io_* calls (IREE's FileHandle,
ParameterIndex, ParameterIndexEntry, ParameterProvider and
create_io_parameters_module; iree.runtime.io adds IREE's helpers).

A ParameterIndex lists named parameters: splats, ranges of host memory or of
files (.irpa, .safetensors and .gguf files are parsed into entries). A
provider serves an index as one scope; the module create_io_parameters_module
returns makes a context resolve its programs'
``#flow.parameter.named<"scope"::"key">`` globals from providers (each
parameter copied once per context into memory the runtime owns, so results
never alias caller memory)."""

import os

from .._capi import check, ffi, lib, take_bytes, take_string
from . import _hal
from ._vm import VmModule

__all__ = [
    "FileHandle",
    "ParameterIndex",
    "ParameterIndexEntry",
    "ParameterProvider",
    "create_io_parameters_module",
]


def _access(readable, writable):
    return (lib.GREE_IO_FILE_ACCESS_READ if readable else 0) | (lib.GREE_IO_FILE_ACCESS_WRITE if writable else 0)


def _blob(value, what):
    """Bytes of a str (UTF-8) or a bytes-like object; None is empty."""
    if value is None:
        return b""
    if isinstance(value, str):
        return value.encode("utf-8")
    try:
        return memoryview(value).tobytes()
    except TypeError:
        raise TypeError(f"{what} must be str or bytes-like, not {type(value).__name__}") from None


def _key(key):
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    if not isinstance(key, str):
        raise TypeError(f"a parameter key must be a str, not {type(key).__name__}")
    return key.encode("utf-8")


class FileHandle:
    """Parameter bytes: host memory (a buffer-protocol object, or a file
    mapped or read into memory) or an open file descriptor."""

    def __init__(self, *args, _handle=None):
        if _handle is None:
            raise TypeError("FileHandle cannot be constructed directly; use FileHandle.wrap_memory or FileHandle.wrap_fd")
        self._handle = ffi.gc(_handle, lib.gree_io_file_handle_release)

    @staticmethod
    def wrap_memory(host_buffer, readable=True, writable=False):
        """Wraps a C-contiguous buffer-protocol object without copying it;
        the object stays alive as long as the handle or an index entry using
        it does."""
        mv = memoryview(host_buffer)
        if not mv.c_contiguous:
            raise ValueError("FileHandle.wrap_memory needs a C-contiguous buffer")
        if writable and mv.readonly:
            raise ValueError("FileHandle.wrap_memory(writable=True) needs a writable buffer; this one is read-only")
        flat = mv.cast("B") if mv.nbytes and (mv.ndim != 1 or mv.format != "B") else mv
        ptr = ffi.from_buffer(flat, require_writable=writable) if mv.nbytes else ffi.NULL
        # libgree calls _hal._released when its last reference goes.
        keep = ffi.new_handle((host_buffer, mv, ptr))
        key = int(ffi.cast("uintptr_t", keep))
        _hal._imported[key] = keep
        out = ffi.new("gree_io_file_handle_t*")
        st = lib.gree_io_file_handle_wrap_memory(ptr, mv.nbytes, _access(readable, writable), _hal._released, keep, out)
        if st != ffi.NULL:
            _hal._imported.pop(key, None)
            check(st, "Could not wrap host memory into a file handle")
        return FileHandle(_handle=out[0])

    @staticmethod
    def wrap_fd(fd, readable=True, writable=False):
        """Wraps a duplicate of the open descriptor fd (close yours at will)."""
        out = ffi.new("gree_io_file_handle_t*")
        check(lib.gree_io_file_handle_open_fd(int(fd), _access(readable, writable), out),
              "Could not wrap host fd into a file handle")
        return FileHandle(_handle=out[0])

    @property
    def _h(self):
        if self._handle is None:
            raise _hal.closed_error("FileHandle")
        return self._handle

    def _info(self):
        info = ffi.new("gree_io_file_handle_info_t*")
        check(lib.gree_io_file_handle_query(self._h, info))
        return info

    def close(self):
        """Drops this object's reference now: the handle is released at once
        unless a host_allocation view of it is alive (then with the last
        view); indexes using it keep it. Closing twice does nothing."""
        self._handle = None

    @property
    def is_host_allocation(self):
        return self._info().type == lib.GREE_IO_FILE_HANDLE_HOST_ALLOCATION

    @property
    def host_allocation(self):
        """A memoryview of the bytes (read-only unless the handle is
        writable); it keeps the handle alive."""
        info = self._info()
        if info.type != lib.GREE_IO_FILE_HANDLE_HOST_ALLOCATION:
            raise ValueError("FileHandle is not based on a host allocation and cannot be mapped")
        if info.size == 0:
            return memoryview(b"")
        # The pointer's finalizer holds the handle: the view keeps it alive.
        ptr = ffi.gc(ffi.cast("uint8_t*", info.data), lambda _p, handle=self._h: None)
        mv = memoryview(ffi.buffer(ptr, info.size))
        return mv if info.access & lib.GREE_IO_FILE_ACCESS_WRITE else mv.toreadonly()

    @property
    def is_fd(self):
        return self._info().type == lib.GREE_IO_FILE_HANDLE_FD

    @property
    def fd(self):
        """The handle's own descriptor (a duplicate of the one wrapped)."""
        info = self._info()
        if info.type != lib.GREE_IO_FILE_HANDLE_FD:
            raise ValueError("FileHandle is not based on a file descriptor")
        return int(info.fd)

    def __repr__(self):
        if self._handle is None:
            return "<FileHandle closed>"
        if self.is_host_allocation:
            return f"FileHandle<host_allocation({self.host_allocation})>"
        if self.is_fd:
            return f"FileHandle<fd({self.fd})>"
        return "<FileHandle unknown>"


class ParameterIndexEntry:
    """One parameter of a ParameterIndex: key, length, metadata and where its
    bytes are (a range of a FileHandle, or a splat pattern)."""

    def __init__(self, *args, _index=None, _entry=None):
        if _entry is None:
            raise TypeError("ParameterIndexEntry comes from a ParameterIndex (index[i] or index.items())")
        e = _entry
        self._index = _index  # the entry's index stays alive with it
        self._key = take_bytes(ffi.cast("uint8_t*", e.key), e.key_length).decode("utf-8", "surrogateescape")
        self._metadata = take_bytes(e.metadata, e.metadata_length)
        self._length = int(e.length)
        self._is_file = e.storage == lib.GREE_IO_PARAMETER_STORAGE_FILE
        self._file = FileHandle(_handle=e.file) if self._is_file else None
        self._offset = int(e.offset)
        self._pattern = bytes(ffi.buffer(e.pattern, e.pattern_length)) if not self._is_file else None

    @property
    def key(self):
        return self._key

    @property
    def length(self):
        return self._length

    @property
    def metadata(self):
        return self._metadata

    @property
    def is_file(self):
        return self._is_file

    @property
    def is_splat(self):
        return not self._is_file

    @property
    def file_storage(self):
        """(FileHandle, offset) of a file-backed entry."""
        if not self._is_file:
            raise ValueError("Entry is not file storage based")
        return self._file, self._offset

    @property
    def file_view(self):
        """A memoryview of a file-backed entry's bytes in host memory."""
        handle, offset = self.file_storage
        return handle.host_allocation[offset:offset + self._length]

    @property
    def splat_pattern(self):
        if self._is_file:
            raise ValueError("Entry is not splat")
        return self._pattern

    def __repr__(self):
        if self._is_file:
            return f"<ParameterIndexEntry '{self._key}' {self._file!r}:{self._offset}:{self._length}>"
        return f"<ParameterIndexEntry '{self._key}' splat {self._pattern!r}:{self._length}>"


class ParameterIndex:
    """A list of named parameters (IREE's ParameterIndex). Keys may repeat;
    lookups use the first."""

    def __init__(self):
        out = ffi.new("gree_io_parameter_index_t*")
        check(lib.gree_io_parameter_index_create(out), "Could not create IO parameter index")
        self._handle = ffi.gc(out[0], lib.gree_io_parameter_index_release)

    @property
    def _h(self):
        return self._handle

    def __len__(self):
        return int(lib.gree_io_parameter_index_count(self._h))

    def __getitem__(self, i):
        i = int(i)
        if i < 0:
            i += len(self)
            if i < 0:
                raise IndexError(f"entry {i - len(self)} out of range (have {len(self)} entries in the index)")
        e = ffi.new("gree_io_parameter_entry_t*")
        check(lib.gree_io_parameter_index_get(self._h, i, e), "Could not enumerate parameter index")
        return ParameterIndexEntry(_index=self, _entry=e)

    def items(self):
        """[(key, entry)] in index order (keys may repeat)."""
        entries = [self[i] for i in range(len(self))]
        return [(e.key, e) for e in entries]

    def __repr__(self):
        text = ffi.new("char**")
        check(lib.gree_io_parameter_index_dump(self._h, ffi.NULL, text), "Failed to dump parameter index")
        return take_string(text[0])

    def reserve(self, new_capacity):
        check(lib.gree_io_parameter_index_reserve(self._h, int(new_capacity)), "Could not reserve capacity")

    def add_splat(self, key, pattern, total_length, metadata=None):
        """Adds total_length bytes repeating pattern (a buffer of 1, 2, 4, 8
        or 16 bytes: a numpy scalar, a one-element array)."""
        k, pat, md = _key(key), _blob(pattern, "pattern"), _blob(metadata, "metadata")
        check(lib.gree_io_parameter_index_add_splat(self._h, k, len(k), pat, len(pat), int(total_length), md, len(md)),
              "Could not add parameter index entry")

    def add_from_file_handle(self, key, file_handle, length, offset=0, metadata=None):
        """Adds [offset, offset+length) of file_handle."""
        if not isinstance(file_handle, FileHandle):
            raise TypeError(f"file_handle must be a FileHandle, not {type(file_handle).__name__}")
        k, md = _key(key), _blob(metadata, "metadata")
        check(lib.gree_io_parameter_index_add_file(self._h, k, len(k), file_handle._h, int(offset), int(length), md, len(md)),
              "Could not add parameter index entry")

    def add_buffer(self, key, buffer, readable=True, writable=False, metadata=None):
        """Adds the bytes of a buffer-protocol object (not copied: the index
        keeps the object alive)."""
        fh = FileHandle.wrap_memory(buffer, readable, writable)
        self.add_from_file_handle(key, fh, memoryview(buffer).nbytes, 0, metadata)

    def load_from_file_handle(self, file_handle, format):
        """Adds the entries of the parameter file file_handle holds (format
        "irpa", "safetensors" or "gguf")."""
        if not isinstance(file_handle, FileHandle):
            raise TypeError(f"file_handle must be a FileHandle, not {type(file_handle).__name__}")
        check(lib.gree_io_parameter_index_load(self._h, file_handle._h, _format(format)),
              "Could not parse parameter file index")

    def load(self, file_path, format=None, readable=True, writable=False, mmap=True):
        """Adds the entries of the parameter file at file_path, mapped (mmap)
        or read into memory; format None detects it from the file. The file
        is opened read-only (readable and writable are accepted as IREE's)."""
        out = ffi.new("gree_io_file_handle_t*")
        check(lib.gree_io_file_handle_open(os.fsencode(file_path), 1 if mmap else 0, out),
              "Error opening parameter file")
        fh = FileHandle(_handle=out[0])
        try:
            check(lib.gree_io_parameter_index_load(self._h, fh._h, _format(format)),
                  "Could not parse parameter file index")
        finally:
            fh.close()

    def create_provider(self, *, scope="", max_concurrent_operations=None):
        """A provider serving this index as scope ("" is the global scope).
        max_concurrent_operations is accepted as IREE's (gree reads each
        parameter once, when a module is registered)."""
        out = ffi.new("gree_io_parameter_provider_t*")
        check(lib.gree_io_parameter_provider_create(self._h, scope.encode("utf-8"), out),
              "Could not create parameter provider from index")
        return ParameterProvider(_handle=out[0], _scope=scope)

    def create_archive_file(self, file_path, file_offset=0, target_index=None):
        """Writes the entries as an IREE parameter archive (.irpa) at
        file_offset of file_path; returns target_index (a new index when
        None) with the written archive's entries added."""
        target = target_index if target_index is not None else ParameterIndex()
        if not isinstance(target, ParameterIndex):
            raise TypeError(f"target_index must be a ParameterIndex, not {type(target).__name__}")
        check(lib.gree_io_parameter_index_write_archive(self._h, os.fsencode(file_path), int(file_offset), target._h),
              "Error building parameter archive")
        return target


def _format(format):
    if format is None:
        return ffi.NULL
    if not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    return format.encode("utf-8")


class ParameterProvider:
    """A ParameterIndex served as one scope (ParameterIndex.create_provider)."""

    def __init__(self, *args, _handle=None, _scope=""):
        if _handle is None:
            raise TypeError("ParameterProvider comes from ParameterIndex.create_provider")
        self._handle = ffi.gc(_handle, lib.gree_io_parameter_provider_release)
        self.scope = _scope

    def __repr__(self):
        return f"<ParameterProvider scope '{self.scope}'>"


def create_io_parameters_module(instance, *providers):
    """IREE's "io_parameters" module: registered in a context before a
    program, it resolves the program's parameters from providers (the first
    provider of each scope)."""
    for i, p in enumerate(providers):
        if not isinstance(p, ParameterProvider):
            raise TypeError(f"providers[{i}] is a {type(p).__name__}, not a ParameterProvider")
    handles = ffi.new("gree_io_parameter_provider_t[]", [p._handle for p in providers] or 1)
    out = ffi.new("gree_module_t*")
    check(lib.gree_io_parameters_module_create(len(providers), handles, out), "Error creating io_parameters module")
    return VmModule(out[0], None)
