"""HAL drivers and devices over libgree (IREE's iree.runtime._binding names)."""

import threading

from .. import _capi
from .._capi import ffi, lib, check
from . import _hal


class HalDevice:
    """A HAL device. ``repr`` is the device identifier, e.g. ``local-task``."""

    def __init__(self, handle):
        self._handle = ffi.gc(handle, lib.gree_device_release)
        self._id = ffi.string(lib.gree_device_id(handle)).decode("utf-8")
        self._allocator = None

    @property
    def _h(self):
        if self._handle is None:
            raise _hal.closed_error(f"HalDevice '{self._id}'")
        return self._handle

    @property
    def closed(self):
        """Whether close() (or the end of a with block) released the device."""
        return self._handle is None

    @property
    def _info(self):
        info = ffi.new("gree_device_info_t*")
        check(lib.gree_device_info(self._h, info))
        return info

    @property
    def device_id(self):
        return int(self._info.device_id)

    @property
    def path(self):
        return ffi.string(self._info.path).decode("utf-8")

    @property
    def name(self):
        return ffi.string(self._info.name).decode("utf-8")

    @property
    def allocator(self):
        """The device's allocator."""
        if self._allocator is None:
            self._allocator = _hal.HalAllocator(self)
        return self._allocator

    def close(self):
        """Releases the device now instead of at garbage collection: queued
        work still waiting is cancelled, running work is waited for, and the
        device's worker threads stop. Using the device afterwards raises a
        RuntimeError naming it; contexts created on it fail their calls.
        Closing twice does nothing."""
        if self._handle is not None:
            h, self._handle = self._handle, None
            ffi.gc(h, None)  # detaches the finalizer (returns None)
            lib.gree_device_release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Profiling.

    def begin_profiling(self, mode=None, file_path=None):
        """Starts a device profile: mode "queue", "dispatch" or "executable";
        file_path receives it at flush and end (the local devices write their
        dispatch statistics)."""
        m = mode.encode("utf-8") if mode is not None else ffi.NULL
        f = file_path.encode("utf-8") if file_path is not None else ffi.NULL
        check(lib.gree_device_begin_profiling(self._h, m, f), "starting device profiling")

    def flush_profiling(self):
        check(lib.gree_device_flush_profiling(self._h), "flushing device profiling")

    def end_profiling(self):
        check(lib.gree_device_end_profiling(self._h), "ending device profiling")

    def begin_external_capture(self, provider, file_path=None, label=None):
        raise NotImplementedError(f"UNIMPLEMENTED; the {self!r} device has no external capture provider ('{provider}')")

    def end_external_capture(self):
        raise NotImplementedError(f"UNIMPLEMENTED; the {self!r} device has no external capture in progress")

    # Synchronization and queues.

    def create_semaphore(self, initial_value):
        out = ffi.new("gree_semaphore_t*")
        check(lib.gree_device_create_semaphore(self._h, int(initial_value), out), "creating semaphore")
        return _hal.HalSemaphore(_handle=out[0])

    def queue_alloca(self, allocation_size, wait_semaphores, signal_semaphores):
        """A device-local buffer usable once signal_semaphores are reached."""
        w, kw = _hal._semaphore_list(wait_semaphores)
        s, ks = _hal._semaphore_list(signal_semaphores)
        out = ffi.new("gree_buffer_t*")
        params = _hal._no_params(_hal.MemoryType.DEVICE_LOCAL, _hal.BufferUsage.DEFAULT)
        check(lib.gree_device_queue_alloca(self._h, w, s, params, int(allocation_size), out),
              "allocating memory on queue")
        return _hal.HalBuffer(_handle=out[0])

    def queue_dealloca(self, buffer, wait_semaphores, signal_semaphores):
        w, kw = _hal._semaphore_list(wait_semaphores)
        s, ks = _hal._semaphore_list(signal_semaphores)
        check(lib.gree_device_queue_dealloca(self._h, w, s, buffer._h), "deallocating memory on queue")

    def queue_execute(self, command_buffers, wait_semaphores, signal_semaphores):
        w, kw = _hal._semaphore_list(wait_semaphores)
        s, ks = _hal._semaphore_list(signal_semaphores)
        cb = command_buffers._h if command_buffers is not None else ffi.NULL
        check(lib.gree_device_queue_execute(self._h, w, s, cb, ffi.NULL, 0), "executing command buffers")

    def queue_copy(self, source_buffer, target_buffer, wait_semaphores, signal_semaphores):
        """Copies all of source_buffer to the start of target_buffer."""
        n = source_buffer.byte_length()
        if n > target_buffer.byte_length():
            raise ValueError("Source and buffer length must be less than the target buffer length and it does not. "
                             "Please check allocations")
        w, kw = _hal._semaphore_list(wait_semaphores)
        s, ks = _hal._semaphore_list(signal_semaphores)
        check(lib.gree_device_queue_copy(self._h, w, s, _hal._ref(source_buffer, 0, n), _hal._ref(target_buffer, 0, n)),
              "Copying buffer on queue")

    # DLPack.

    def create_dlpack_capsule(self, buffer_view, device_type_code, device_id):
        """A "dltensor" capsule over buffer_view's memory (not copied)."""
        from . import _dlpack

        return _dlpack.export_capsule(buffer_view, int(device_type_code), int(device_id))

    def from_dlpack_capsule(self, capsule):
        """A buffer view over a DLPack tensor's memory (not copied)."""
        from . import _dlpack

        return _dlpack.import_capsule(self, capsule)

    def __repr__(self):
        if self._handle is None:
            return "<closed HalDevice>"
        return ffi.string(lib.gree_device_id(self._handle)).decode("utf-8")


class HalDriver:
    """A HAL driver (cuda, hip, local-sync, local-task, vulkan, …)."""

    def __init__(self, handle):
        self._handle = ffi.gc(handle, lib.gree_driver_release)

    @staticmethod
    def query():
        """The registered driver names, in registration order."""
        names = []
        for i in range(lib.gree_driver_registry_count()):
            name = ffi.new("char**")
            check(lib.gree_driver_registry_get(i, name, ffi.NULL))
            names.append(ffi.string(name[0]).decode("utf-8"))
        return names

    @property
    def name(self):
        return ffi.string(lib.gree_driver_name(self._handle)).decode("utf-8")

    def query_available_devices(self):
        """A list of ``{'device_id': int, 'path': str, 'name': str}``."""
        out = ffi.new("gree_device_info_list_t*")
        check(lib.gree_driver_query_available_devices(self._handle, out))
        lst = out[0]
        try:
            devices = []
            info = ffi.new("gree_device_info_t*")
            for i in range(lib.gree_device_info_list_size(lst)):
                check(lib.gree_device_info_list_get(lst, i, info))
                devices.append(
                    {
                        "device_id": int(info.device_id),
                        "path": ffi.string(info.path).decode("utf-8"),
                        "name": ffi.string(info.name).decode("utf-8"),
                    }
                )
            return devices
        finally:
            lib.gree_device_info_list_release(lst)

    def dump_device_info(self, device_id):
        """The --dump_devices text of one device."""
        text = ffi.new("char**")
        check(lib.gree_driver_dump_device_info(self._handle, int(device_id), text))
        return _capi.take_string(text[0])

    def create_default_device(self, allocators=None):
        out = ffi.new("gree_device_t*")
        check(lib.gree_driver_create_default_device(self._handle, out))
        return _with_allocators(HalDevice(out[0]), allocators)

    def create_device(self, device_id, params=None, allocators=None):
        """Creates a device by id, or by a dict from query_available_devices.
        allocators: allocator specs wrapping the device's allocator, in order
        ("caching", "debug", "caching:device_local=1gib;2gib;8", ...)."""
        if isinstance(device_id, dict):
            device_id = device_id["device_id"]
        if params:
            raise ValueError(
                f"device params are not supported yet by driver '{self.name}': {params!r}"
            )
        available = self.query_available_devices()
        if not any(d["device_id"] == device_id for d in available):
            raise ValueError(
                f"Device id {device_id} not found. Available devices: {available}"
            )
        out = ffi.new("gree_device_t*")
        check(lib.gree_driver_create_device(self._handle, int(device_id), out))
        return _with_allocators(HalDevice(out[0]), allocators)

    def create_device_by_uri(self, device_uri, allocators=None):
        out = ffi.new("gree_device_t*")
        check(
            lib.gree_driver_create_device_by_uri(
                self._handle, device_uri.encode("utf-8"), out
            )
        )
        return _with_allocators(HalDevice(out[0]), allocators)

    def __repr__(self):
        return f"<HalDriver {self.name}>"


def _with_allocators(device, allocators):
    """Wraps a new device's allocator in allocator specs (IREE's
    create_device(allocators=[...])); a bad spec releases the device and
    raises ValueError naming the known specs."""
    if not allocators:
        return device
    if isinstance(allocators, str):
        allocators = [allocators]
    specs = [ffi.new("char[]", str(a).encode("utf-8")) for a in allocators]
    try:
        check(lib.gree_device_configure_allocators(device._h, ffi.new("char*[]", specs), len(specs)))
    except BaseException:
        device.close()
        raise
    return device


def create_hal_driver(device_uri):
    """Creates a driver for the URI's scheme, uncached."""
    out = ffi.new("gree_driver_t*")
    check(lib.gree_driver_create(device_uri.encode("utf-8"), out))
    return HalDriver(out[0])


_driver_cache = {}
_driver_lock = threading.Lock()


def _driver_name(device_uri):
    return device_uri.split(":", 1)[0]


def get_cached_hal_driver(device_uri):
    """The driver for the URI's scheme, created once per scheme."""
    name = _driver_name(device_uri)
    with _driver_lock:
        driver = _driver_cache.get(name)
        if driver is None:
            driver = create_hal_driver(name)
            _driver_cache[name] = driver
        return driver


def clear_hal_driver_cache():
    with _driver_lock:
        _driver_cache.clear()


def parse_flags(*flags):
    """Parses runtime flags, e.g. ``parse_flags("--cuda_default_index=1")``."""
    arr, keep = _capi.string_array(list(flags))
    check(lib.gree_flags_parse(len(flags), arr))
    del keep


# IREE's _binding module also holds the VM types; code that imports them
# from here (IREE's own tests do) finds them. Imported last: _vm uses the
# names above.
from ._vm import Linkage, VmBuffer, VmContext, VmFunction, VmInstance, VmModule, VmVariantList  # noqa: E402
