"""VM objects over libgree: VmInstance, VmModule, VmFunction, VmContext,
VmVariantList (IREE's iree.runtime._binding VM names)."""

import enum
import mmap as _mmap
import warnings

from .._capi import ffi, lib, check

_ALIGNMENT = 64  # IREE_HAL_HEAP_BUFFER_ALIGNMENT


class Linkage(enum.IntEnum):
    INTERNAL = 0
    IMPORT = 1
    IMPORT_OPTIONAL = 2
    EXPORT = 3


class VmInstance:
    """A VM instance (gree needs no per-instance state)."""

    def __repr__(self):
        return "<VmInstance>"


class VmFunction:
    """An exported function of a module."""

    def __init__(self, module, ordinal, name, cconv, declaration):
        self.module_name = module.name
        self.ordinal = ordinal
        self.name = name
        self.linkage = Linkage.EXPORT
        self._cconv = cconv
        self.reflection = {"iree.abi.declaration": declaration} if declaration else {}
        self._module = module

    @property
    def calling_convention(self):
        return self._cconv

    def __repr__(self):
        return f"<VmFunction {self.name}({self._cconv}), reflection = {self.reflection}>"


class VmModule:
    """A loaded, verified module. Build one with the static constructors."""

    def __init__(self, handle, blob):
        self._handle = ffi.gc(handle, lib.gree_module_release)
        self._blob = blob
        self._functions = []
        n = int(lib.gree_module_function_count(self._handle))
        for i in range(n):
            name, cconv, decl = ffi.new("char**"), ffi.new("char**"), ffi.new("char**")
            check(lib.gree_module_function_info(self._handle, i, name, cconv, decl))
            self._functions.append(VmFunction(self, i, *(ffi.string(p[0]).decode("utf-8") for p in (name, cconv, decl))))

    @staticmethod
    def _load(buffer):
        data = bytes(buffer)
        out = ffi.new("gree_module_t*")
        check(lib.gree_module_load(ffi.from_buffer(data), len(data), out), "Error loading VmModule")
        return VmModule(out[0], data)

    @staticmethod
    def copy_buffer(instance, buffer):
        """Loads a module from a copy of buffer."""
        return VmModule._load(buffer)

    @staticmethod
    def from_buffer(instance, buffer, warn_if_copy=True):
        """Loads a module; warns (as IREE does) when buffer is not 64-byte
        aligned and therefore copied."""
        mv = memoryview(buffer)
        addr = int(ffi.cast("uintptr_t", ffi.from_buffer(mv))) if mv.nbytes else 0
        if addr % _ALIGNMENT and warn_if_copy:
            warnings.warn(
                "Making copy of unaligned VmModule buffer. It is recommended to make this deterministic "
                "by calling `copy_buffer` to always make a copy or `mmap` to efficiently load from a file. "
                "This warning can be silenced by adding `warn_if_copy=False` to `from_buffer`"
            )
        return VmModule._load(mv)

    from_flatbuffer = from_buffer

    @staticmethod
    def wrap_buffer(instance, buffer, destroy_callback=None, close_buffer=False):
        mv = memoryview(buffer)
        addr = int(ffi.cast("uintptr_t", ffi.from_buffer(mv))) if mv.nbytes else 0
        if addr % _ALIGNMENT:
            raise ValueError(f"VmModule buffer is not {_ALIGNMENT}-byte aligned")
        m = VmModule._load(mv)
        if destroy_callback is not None:
            destroy_callback()
        if close_buffer and hasattr(buffer, "close"):
            buffer.close()
        return m

    @staticmethod
    def mmap(instance, filepath, destroy_callback=None):
        """Loads a module from a file."""
        with open(filepath, "rb") as f:
            try:
                with _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ) as m:
                    mod = VmModule._load(m)
            except ValueError:  # an empty file cannot be mapped
                mod = VmModule._load(f.read())
        if destroy_callback is not None:
            destroy_callback()
        return mod

    @property
    def name(self):
        return ffi.string(lib.gree_module_name(self._handle)).decode("utf-8")

    @property
    def version(self):
        return 0

    @property
    def function_names(self):
        return [f.name for f in self._functions]

    @property
    def stashed_flatbuffer_blob(self):
        return self._blob

    def lookup_function(self, name, linkage=Linkage.EXPORT):
        for f in self._functions:
            if f.name == name:
                return f
        return None

    def __repr__(self):
        return f"<VmModule {self.name} : [{', '.join(self.function_names)}]>"


class _HalModule:
    """The "hal" module every context holds (gree's HAL bridge is built in)."""

    name = "hal"

    def __init__(self, device):
        self.device = device

    def __repr__(self):
        return "<VmModule hal : []>"


def create_hal_module(instance, device=None, devices=None, debug_sink=None):
    """The HAL module for a device (IREE's create_hal_module)."""
    if device is not None and devices is not None:
        raise ValueError("Either 'device' or 'devices' can be specified (not both)")
    if devices is not None:
        if len(devices) != 1:
            raise NotImplementedError("gree contexts run on one device")
        device = devices[0]
    return _HalModule(device)


class VmVariantList:
    """A list of VM values."""

    def __init__(self, capacity=0):
        self._items = []

    def push_int(self, v):
        self._items.append(int(v))

    def push_float(self, v):
        self._items.append(float(v))

    def push_ref(self, v):
        self._items.append(v)

    def push_list(self, v):
        self._items.append(v)

    def get_as_object(self, i, cls=None):
        return self._items[i]

    def get_as_list(self, i):
        return self._items[i]

    def get_as_ref(self, i):
        return self._items[i]

    def get_variant(self, i):
        return self._items[i]

    @property
    def size(self):
        return len(self._items)

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"<VmVariantList({len(self._items)}): {self._items!r}>"


class VmContext:
    """Modules registered on one device."""

    def __init__(self, instance, modules=None, *, _device=None):
        device = _device
        for m in modules or ():
            if isinstance(m, _HalModule):
                device = m.device
        if device is None:
            from .system_setup import get_first_device

            device = get_first_device()
        self._device = device
        out = ffi.new("gree_context_t*")
        check(lib.gree_context_create(device._handle, out))
        self._handle = ffi.gc(out[0], lib.gree_context_release)
        self._modules = {}
        self.register_modules([m for m in modules or () if not isinstance(m, _HalModule)])

    @property
    def context_id(self):
        return id(self)

    def register_modules(self, modules):
        for m in modules:
            if isinstance(m, _HalModule):
                continue
            check(lib.gree_context_add_module(self._handle, m._handle), f"Error registering module '{m.name}'")
            self._modules[m.name] = m

    def _add_check_module(self):
        check(lib.gree_context_add_check_module(self._handle))

    def _invoke(self, module_name, function_name, args_handle):
        out = ffi.new("gree_value_list_t*")
        check(lib.gree_context_invoke(self._handle, module_name.encode(), function_name.encode(), args_handle, out),
              f"Error invoking function '{function_name}'")
        return ffi.gc(out[0], lib.gree_value_list_release)

    def invoke(self, function, inputs, outputs):
        """Calls function with a VmVariantList of inputs, appending to outputs."""
        from .function import _pack, _unpack

        args = _pack(self._device, function, list(inputs._items))
        res = self._invoke(function.module_name, function.name, args)
        for v in _unpack(self._device, res):
            outputs._items.append(v)
