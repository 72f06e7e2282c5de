"""IREE's iree.runtime.io: the parameter classes (from _io) and the helpers
built on them — SplatValue and save_archive_file (write an .irpa archive from
a dict, as safetensors' save_file does), and the conversions between numpy
arrays and index entries, which record an array's dtype and shape in the
entry's metadata ("TENSORv0:" and a JSON object; iree-turbine's "PYTORCH:"
is read as well)."""

import json
import math
import os

import numpy as np

from ._io import (
    FileHandle,
    ParameterIndex,
    ParameterIndexEntry,
    ParameterProvider,
    create_io_parameters_module,
)
from .dtypes import map_dtype_to_dtype_info, map_name_to_dtype_info

__all__ = [
    "FileHandle",
    "ParameterIndex",
    "ParameterIndexEntry",
    "ParameterProvider",
    "SplatValue",
    "create_io_parameters_module",
    "parameter_index_add_numpy_ndarray",
    "parameter_index_entry_as_numpy_flat_ndarray",
    "parameter_index_entry_as_numpy_ndarray",
    "save_archive_file",
]

# Tensor metadata is "<version>:<json>"; this version is written, both read.
_METADATA_VERSION = "TENSORv0"
_TURBINE_METADATA_VERSION = "PYTORCH"


class SplatValue:
    """A value of ``count`` elements (an int or a shape) all equal to
    ``pattern``, a one-element array or numpy scalar; ``total_length`` is its
    size in bytes."""

    def __init__(self, pattern, count):
        elements = pattern.size if isinstance(pattern, (np.ndarray, np.generic)) else len(pattern)
        if elements != 1:
            raise ValueError("SplatValue requires an array of a single element")
        self.pattern = pattern
        n = count if isinstance(count, (int, np.integer)) else math.prod(int(d) for d in count)
        self.total_length = int(n) * pattern.itemsize

    def __repr__(self):
        return f"SplatValue({self.pattern} of {self.total_length})"


def save_archive_file(entries, file_path):
    """Writes an IREE parameter archive (.irpa) at file_path holding entries,
    a dict of key to SplatValue (stored as a splat, no data) or
    buffer-protocol object (its bytes)."""
    index = ParameterIndex()
    for key, value in entries.items():
        if isinstance(value, SplatValue):
            index.add_splat(key, value.pattern, value.total_length)
        else:
            if isinstance(value, np.ndarray):
                value = np.ascontiguousarray(value)
            index.add_buffer(key, value)
    index.create_archive_file(os.fspath(file_path))


def _tensor_metadata(array):
    dtype = array.dtype
    info = map_dtype_to_dtype_info(dtype)
    desc = {
        "type": "Tensor",
        "dtype": info.name,
        "shape": [int(d) for d in array.shape],
        "dtype_desc": {
            "class_name": type(dtype).__name__,
            "is_complex": info.is_complex,
            "is_floating_point": info.is_floating_point,
            "is_signed": info.is_signed,
            "itemsize": dtype.itemsize,
        },
    }
    return f"{_METADATA_VERSION}:{json.dumps(desc)}"


def parameter_index_add_numpy_ndarray(index, name, array):
    """Adds array's bytes to index as name, with metadata recording its dtype
    and shape (parameter_index_entry_as_numpy_ndarray reads them back). The
    index keeps a C-contiguous array alive instead of copying it."""
    metadata = _tensor_metadata(array)
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    index.add_buffer(name, flat, metadata=metadata)


def parameter_index_entry_as_numpy_flat_ndarray(index_entry):
    """The entry's bytes as a flat uint8 array: a view of host memory for a
    file entry in memory, a copy read from the file for a descriptor-backed
    one, the pattern repeated over the length for a splat."""
    if index_entry.is_splat:
        pattern = np.frombuffer(index_entry.splat_pattern, dtype=np.uint8)
        return np.tile(pattern, index_entry.length // max(len(pattern), 1))
    if not index_entry.is_file:
        raise ValueError(f"Unsupported ParameterIndexEntry: {index_entry}")
    handle, offset = index_entry.file_storage
    if handle.is_host_allocation:
        return np.asarray(index_entry.file_view)
    data = os.pread(handle.fd, index_entry.length, offset)
    if len(data) != index_entry.length:
        raise ValueError(f"Parameter entry '{index_entry.key}': the file ends after {len(data)} of its {index_entry.length} bytes")
    return np.frombuffer(data, dtype=np.uint8)


def parameter_index_entry_as_numpy_ndarray(index_entry):
    """The entry as an array of the dtype and shape its metadata records
    (parameter_index_add_numpy_ndarray's, or iree-turbine's); ValueError
    naming the entry when the metadata is missing or not a tensor's."""
    key = index_entry.key
    text = index_entry.metadata.decode("utf-8", "replace")
    version, sep, body = text.partition(":")
    if not sep:
        raise ValueError(f'Invalid metadata for parameter index entry "{key}". '
                         f'Expected format version prefix not found in "{text[:100]}".')
    if version not in (_METADATA_VERSION, _TURBINE_METADATA_VERSION):
        raise ValueError(f'Unsupported metadata format version "{version}" for parameter index entry "{key}": '
                         "Cannot convert to tensor")
    try:
        desc = json.loads(body)
    except json.JSONDecodeError as e:
        raise ValueError(f"Bad metadata for parameter entry {key}: {e}") from e
    if not isinstance(desc, dict) or "dtype" not in desc or "shape" not in desc or "type" not in desc:
        raise ValueError(f"Bad metadata for parameter entry {key}: expected an object with type, dtype and shape")
    if desc["type"] != "Tensor":
        raise ValueError(f"Metadata for parameter entry {key} is not a Tensor ('{desc['type']}')")
    try:
        dtype = map_name_to_dtype_info(desc["dtype"]).dtype
    except (KeyError, TypeError) as e:
        raise ValueError(f"Unsupported dtype {desc['dtype']!r} for parameter entry {key}") from e
    try:
        shape = [int(d) for d in desc["shape"]]
    except (TypeError, ValueError) as e:
        raise ValueError(f"Illegal shape for parameter entry {key}") from e
    flat = parameter_index_entry_as_numpy_flat_ndarray(index_entry)
    need = math.prod(shape) * dtype.itemsize
    if flat.nbytes != need:
        raise ValueError(f"Parameter entry {key} holds {flat.nbytes} bytes, but {desc['dtype']}{shape} needs {need}")
    return flat.view(dtype).reshape(shape)
