"""VM objects over libgree: VmInstance, VmModule, VmFunction, VmContext,
VmVariantList (IREE's iree.runtime._binding VM names)."""

import enum
import mmap as _mmap
import threading
import warnings

from .._capi import ffi, lib, check
from . import _cancel, _hal
from ._hal import HalBuffer, HalBufferView, HalFence, VmRef, _RefProtocol

_ALIGNMENT = 64  # IREE_HAL_HEAP_BUFFER_ALIGNMENT


class _Scratch(threading.local):
    """Out-parameters of the C calls that read or make a list, made once
    per thread (each ffi.new costs about a microsecond; a call used seven).
    Those calls run no Python code, so nothing else uses the scratch
    between such a call and the read of its results."""

    def __init__(self):
        self.kind = ffi.new("gree_value_type_t*")
        self.i64 = ffi.new("int64_t*")
        self.f64 = ffi.new("double*")
        self.view = ffi.new("gree_buffer_view_t*")
        self.list = ffi.new("gree_value_list_t*")


_scratch = _Scratch()

# Function and module names as the C calls take them.
_names = {}


def _encoded(name):
    b = _names.get(name)
    if b is None:
        b = _names[name] = name.encode("utf-8")
    return b


_DeviceArray = None


def _device_array_class():
    global _DeviceArray
    if _DeviceArray is None:
        from .array_interop import DeviceArray

        _DeviceArray = DeviceArray
    return _DeviceArray


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

    def __init__(self, module, ordinal, name, cconv, declaration, reflection=None):
        self.module_name = module.name
        self.ordinal = ordinal
        self.name = name
        self.linkage = Linkage.EXPORT
        self._cconv = cconv
        self.reflection = dict(reflection) if reflection else ({"iree.abi.declaration": declaration} if declaration else {})
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
        self._name = ffi.string(lib.gree_module_name(handle)).decode("utf-8")
        self._blob = blob
        self._functions = []
        n = int(lib.gree_module_function_count(self._handle))
        for i in range(n):
            name, cconv, decl = ffi.new("char**"), ffi.new("char**"), ffi.new("char**")
            check(lib.gree_module_function_info(self._handle, i, name, cconv, decl))
            refl = {}
            key, value = ffi.new("char**"), ffi.new("char**")
            for j in range(lib.gree_module_function_reflection_count(self._handle, i)):
                check(lib.gree_module_function_reflection(self._handle, i, j, key, value))
                refl[ffi.string(key[0]).decode("utf-8")] = ffi.string(value[0]).decode("utf-8")
            self._functions.append(VmFunction(self, i, *(ffi.string(p[0]).decode("utf-8") for p in (name, cconv, decl)), refl))

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
            raise ValueError(f"VmModule cannot wrap an unaligned buffer: it must be {_ALIGNMENT}-byte aligned (copy_buffer copies it)")
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
    def _h(self):
        if self._handle is None:
            raise _hal.closed_error(f"VmModule '{self._name}'")
        return self._handle

    def close(self):
        """Releases the module's handle now instead of at garbage collection
        (contexts it was registered in keep using it). Later uses raise a
        RuntimeError naming the module; closing twice does nothing."""
        h, self._handle = self._handle, None
        if h is not None:
            ffi.gc(h, None)  # detaches the finalizer (returns None)
            lib.gree_module_release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def name(self):
        return self._name

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


class _HalModule(VmModule):
    """The "hal" module of a context, as create_hal_module returns it.

    gree's HAL bridge is built into every context, so this module names the
    devices the context runs on (calls run on the first; a module that places
    work on several devices resolves device i to the i-th) and the debug sink
    that receives what its programs trace; it exports no functions to
    Python."""

    def __init__(self, devices, debug_sink=None):
        # No module handle: the bridge is made with the context.
        self._handle = None
        self._name = "hal"
        self._blob = None
        self._functions = []
        self.devices = list(devices)
        self.device = self.devices[0]
        self.debug_sink = debug_sink

    def close(self):
        pass

    def __repr__(self):
        return "<VmModule hal : []>"


def create_hal_module(instance, device=None, devices=None, debug_sink=None):
    """The HAL module for a device, or for a device list (IREE's
    create_hal_module)."""
    if device is not None and devices is not None:
        raise ValueError("Either 'device' or 'devices' can be specified (not both)")
    if devices is not None:
        devices = list(devices)
        if not devices:
            raise ValueError("create_hal_module(devices=...) needs at least one device")
    elif device is not None:
        devices = [device]
    else:
        raise ValueError("create_hal_module needs a device (device=...) or devices (devices=[...])")
    for i, d in enumerate(devices):
        if not hasattr(d, "_h"):
            raise TypeError(f"devices[{i}] is a {type(d).__name__}, not a HalDevice")
    return _HalModule(devices, debug_sink)


def _trace_callback(sink):
    """A C trace sink calling sink's buffer_view_trace_callback; an exception
    it raises fails the invocation (UNKNOWN, with its text)."""

    @ffi.callback("gree_status_t(void*, const char*, gree_value_list_t)")
    def callback(user, key, views):
        try:
            lst = VmVariantList(_handle=views, _borrowed=True)
            bvs = [lst.get_as_object(i, HalBufferView) for i in range(len(lst))]
            fn = sink.buffer_view_trace_callback
            if fn is not None:
                fn(ffi.string(key).decode("utf-8"), bvs)
            return ffi.NULL
        except BaseException as e:  # noqa: BLE001 - reported to the caller as a status
            return lib.gree_status_allocate(2, f"trace callback raised {type(e).__name__}: {e}".encode("utf-8"))

    return callback


def _new_list_handle():
    out = _scratch.list
    check(lib.gree_value_list_create(out))
    return out[0]


class VmVariantList(_RefProtocol):
    """A list of VM values: integers, floats, buffers, buffer views, fences,
    nested lists and nulls (IREE's VmVariantList). ``push_int`` stores an i64
    and ``push_float`` an f64, as in IREE. ``push_list`` stores a copy of the
    list's current entries. The list holds a reference to each buffer it
    holds."""

    def __init__(self, capacity=0, *, _handle=None, _borrowed=False):
        if _borrowed:
            self._handle = _handle  # valid for a callback's duration only
        else:
            self._handle = ffi.gc(_handle if _handle is not None else _new_list_handle(), lib.gree_value_list_release)

    # Pushing.

    def push_int(self, value):
        check(lib.gree_value_list_push_i64(self._handle, int(value)))

    def push_float(self, value):
        check(lib.gree_value_list_push_f64(self._handle, float(value)))

    def push_ref(self, value):
        """Appends a reference: a HalBufferView (or a DeviceArray's), a
        HalBuffer, a HalFence, a VmVariantList, anything with
        __iree_vm_ref__, or None (a null reference)."""
        DeviceArray = _device_array_class()
        if isinstance(value, VmRef):
            value = value._obj
        elif not isinstance(value, (DeviceArray, HalBufferView, HalBuffer, HalFence, VmVariantList)) \
                and value is not None and hasattr(value, "__iree_vm_ref__"):
            value = value.__iree_vm_ref__._obj
        if value is None:
            check(lib.gree_value_list_push_null(self._handle))
        elif isinstance(value, DeviceArray):
            check(lib.gree_value_list_push_buffer_view(self._handle, value._buffer_view._h))
        elif isinstance(value, HalBufferView):
            check(lib.gree_value_list_push_buffer_view(self._handle, value._h))
        elif isinstance(value, HalBuffer):
            check(lib.gree_value_list_push_buffer(self._handle, value._h))
        elif isinstance(value, HalFence):
            check(lib.gree_value_list_push_fence(self._handle, value._h))
        elif isinstance(value, VmVariantList):
            check(lib.gree_value_list_push_list(self._handle, value._handle))
        else:
            raise TypeError(f"push_ref takes a HalBufferView, HalBuffer, HalFence or VmVariantList, got {type(value).__name__}")

    def push_list(self, value):
        if not isinstance(value, VmVariantList):
            raise TypeError(f"push_list takes a VmVariantList, got {type(value).__name__}")
        check(lib.gree_value_list_push_list(self._handle, value._handle))

    def _push_typed(self, kind, value):
        """Appends value as the VM type kind: "i" i32, "I" i64, "f" f32, "F" f64."""
        fn = {"i": lib.gree_value_list_push_i32, "I": lib.gree_value_list_push_i64,
              "f": lib.gree_value_list_push_f32, "F": lib.gree_value_list_push_f64}[kind]
        check(fn(self._handle, value))

    # Reading.

    def _entry(self, index):
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"VmVariantList index {index} out of range (size {n})")
        if index < 0:
            index += n
        return self._get(index)

    def _get(self, index):
        """(kind, value) of entry index, which must be in range."""
        sc = _scratch
        t, iv, fv, bv, sub = sc.kind, sc.i64, sc.f64, sc.view, sc.list
        check(lib.gree_value_list_get(self._handle, index, t, iv, fv, bv, sub))
        kind = int(t[0])
        if kind in (lib.GREE_VALUE_I32, lib.GREE_VALUE_I64):
            return kind, int(iv[0])
        if kind in (lib.GREE_VALUE_F32, lib.GREE_VALUE_F64):
            return kind, float(fv[0])
        if kind == lib.GREE_VALUE_BUFFER_VIEW:
            return kind, HalBufferView._from_handle(bv[0])
        if kind == lib.GREE_VALUE_LIST:
            return kind, VmVariantList(_handle=sub[0])
        if kind == lib.GREE_VALUE_BUFFER:
            out = ffi.new("gree_buffer_t*")
            check(lib.gree_value_list_get_buffer(self._handle, index, out))
            return kind, HalBuffer(_handle=out[0])
        if kind == lib.GREE_VALUE_FENCE:
            out = ffi.new("gree_fence_t*")
            check(lib.gree_value_list_get_fence(self._handle, index, out))
            return kind, HalFence(_handle=out[0])
        return kind, None

    def get_variant(self, index):
        """The value at index: int, float, a reference object or None."""
        return self._entry(index)[1]

    def get_as_object(self, index, clazz=None):
        """The reference at index, checked against clazz when given."""
        kind, v = self._entry(index)
        if kind in (lib.GREE_VALUE_I32, lib.GREE_VALUE_I64, lib.GREE_VALUE_F32, lib.GREE_VALUE_F64):
            raise ValueError(f"VmVariantList entry {index} is a primitive value ({v!r}), not a reference")
        if clazz is not None and v is not None and not isinstance(v, clazz):
            raise ValueError(f"VmVariantList entry {index} is a {type(v).__name__}, not a {clazz.__name__}")
        return v

    get_as_ref = get_as_object

    def get_as_list(self, index):
        v = self.get_as_object(index)
        if not isinstance(v, VmVariantList):
            raise ValueError(f"VmVariantList entry {index} is not a list")
        return v

    @property
    def size(self):
        return int(lib.gree_value_list_size(self._handle))

    def __len__(self):
        return self.size

    def __iter__(self):
        return (self.get_variant(i) for i in range(len(self)))

    def _contents(self, seen):
        """The entries as IREE's VmVariantList repr spells them."""
        items = []
        for i in range(len(self)):
            kind, v = self._get(i)
            if kind in (lib.GREE_VALUE_I32, lib.GREE_VALUE_I64):
                items.append(str(v))
            elif kind in (lib.GREE_VALUE_F32, lib.GREE_VALUE_F64):
                items.append(f"{v:f}")
            elif kind == lib.GREE_VALUE_BUFFER_VIEW:
                shape = "x".join(str(d) for d in v.shape)
                et = int(v.element_type) & 0xFFFFFFFF
                items.append(f"HalBufferView({shape}:0x{et.to_bytes(4, 'little').hex()})")
            elif kind == lib.GREE_VALUE_BUFFER:
                items.append(f"HalBuffer({v.byte_length()})")
            elif kind == lib.GREE_VALUE_FENCE:
                items.append(f"fence({v.timepoint_count})")
            elif kind == lib.GREE_VALUE_LIST:
                items.append(f"List[{v._contents(seen)}]")
            else:
                items.append("None")
        return ", ".join(items)

    def __repr__(self):
        return f"<VmVariantList({len(self)}): [{self._contents(set())}]>"


class VmBuffer:
    """A byte buffer VM modules read and write (IREE's VmBuffer): it supports
    the buffer protocol, read-only unless mutable."""

    def __new__(cls, length, alignment=0, mutable=True):
        if cls is VmBuffer:
            cls = _MutableVmBuffer if mutable else _ConstVmBuffer
        return cls._make(int(length))

    @property
    def __iree_vm_ref__(self):
        return VmRef(self)

    ref = __iree_vm_ref__

    def __repr__(self):
        return f"<VmBuffer size={len(self)}{'' if isinstance(self, _MutableVmBuffer) else ' readonly'}>"


class _MutableVmBuffer(VmBuffer, bytearray):
    @classmethod
    def _make(cls, n):
        b = bytearray.__new__(cls)
        bytearray.__init__(b, n)
        return b

    def __init__(self, *args, **kwargs):
        pass


class _ConstVmBuffer(VmBuffer, bytes):
    @classmethod
    def _make(cls, n):
        return bytes.__new__(cls, n)

    def __init__(self, *args, **kwargs):
        pass


class VmContext:
    """Modules registered on the devices of the hal module among modules
    (calls run on its first device), else on the first default device."""

    def __init__(self, instance, modules=None, *, _device=None):
        device = _device
        devices = None
        sink = None
        for m in modules or ():
            if isinstance(m, _HalModule):
                device, devices, sink = m.device, m.devices, m.debug_sink
        if device is None:
            from .system_setup import get_first_device

            device = get_first_device()
        self._device = device
        # The other devices are borrowed by the context: keep them alive.
        self._devices = devices or [device]
        out = ffi.new("gree_context_t*")
        if len(self._devices) > 1:
            handles = ffi.new("gree_device_t[]", [d._h for d in self._devices])
            check(lib.gree_context_create_with_devices(handles, len(self._devices), out))
        else:
            check(lib.gree_context_create(device._h, out))
        self._handle = ffi.gc(out[0], lib.gree_context_release)
        self._modules = {}
        self._trace = None
        if sink is not None:
            self._set_sink(sink)
        self.register_modules([m for m in modules or () if not isinstance(m, _HalModule)])

    @property
    def context_id(self):
        return id(self)

    @property
    def _h(self):
        if self._handle is None:
            raise _hal.closed_error("VmContext")
        return self._handle

    def close(self):
        """Releases the context now instead of at garbage collection: its
        executables (an llvm-cpu executable's shared object and memory file),
        module constants and globals and its cached buffers are freed at once;
        results already returned stay valid. Later calls raise a RuntimeError
        naming the context; closing twice does nothing."""
        h, self._handle = self._handle, None
        if h is not None:
            ffi.gc(h, None)  # detaches the finalizer (returns None)
            lib.gree_context_release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _set_sink(self, sink):
        self._trace = _trace_callback(sink)
        check(lib.gree_context_set_trace_sink(self._h, self._trace, ffi.NULL))

    def register_modules(self, modules):
        for m in modules:
            if isinstance(m, _HalModule):
                if m.debug_sink is not None:
                    self._set_sink(m.debug_sink)
                continue
            if not isinstance(m, VmModule):
                raise TypeError(f"register_modules takes VmModules, got {type(m).__name__}")
            try:
                check(lib.gree_context_add_module(self._h, m._h), f"Error registering module '{m.name}'")
            except RuntimeError as e:
                from ._py_module import attach_cause  # a PyModule constructor's exception

                attach_cause(e)
                raise
            self._modules[m.name] = m

    def _add_check_module(self):
        """Registers the native "check" module (for check-test programs,
        whose failed expectations then make calls fail)."""
        check(lib.gree_context_add_check_module(self._h), "Error registering the check module")

    def _invoke(self, module_name, function_name, args, timeout=None, cancel_token=None):
        """Calls module_name.function_name with a VmVariantList; returns the
        results as a VmVariantList. The call is bounded by timeout (seconds),
        cancel_token and the thread's ``deadline`` block, and on the main
        thread by Ctrl-C (see _cancel)."""
        # Not the thread's scratch: the call may run Python functions
        # (PyModule) that make calls of their own.
        out = ffi.new("gree_value_list_t*")
        opts = _cancel.invoke_options(timeout, cancel_token)
        try:
            st = lib.gree_context_invoke_with_options(
                self._h, _encoded(module_name), _encoded(function_name),
                args._handle if args is not None else ffi.NULL, opts, out)
            if st != ffi.NULL:
                check(st, f"Error invoking function '{function_name}'")
        except BaseException as e:
            # KeyboardInterrupt from a SIGINT that came as the call finished:
            # its results are not returned, so they go now.
            if out[0] != ffi.NULL:
                lib.gree_value_list_release(out[0])
            from ._py_module import attach_cause  # a PyModule function's exception

            attach_cause(e)
            raise
        return VmVariantList(_handle=out[0])

    def invoke(self, function, inputs, outputs, *, timeout=None, cancel_token=None):
        """Calls function with the VmVariantList inputs and appends its results
        to the VmVariantList outputs. gree's extensions: timeout (seconds; a
        call still running then raises RuntimeError with code
        DEADLINE_EXCEEDED) and cancel_token (a CancelToken whose cancel()
        stops the call with CANCELLED)."""
        res = self._invoke(function.module_name, function.name, inputs, timeout, cancel_token)
        for i in range(len(res)):
            kind, v = res._get(i)
            if kind == lib.GREE_VALUE_I32:
                outputs._push_typed("i", v)
            elif kind == lib.GREE_VALUE_I64:
                outputs._push_typed("I", v)
            elif kind == lib.GREE_VALUE_F32:
                outputs._push_typed("f", v)
            elif kind == lib.GREE_VALUE_F64:
                outputs._push_typed("F", v)
            else:
                outputs.push_ref(v)
