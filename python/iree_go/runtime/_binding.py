"""HAL drivers and devices over libgree (IREE's iree.runtime._binding names)."""

import threading

from .. import _capi
from .._capi import ffi, lib, check


class HalDevice:
    """A HAL device. ``repr`` is the device identifier, e.g. ``local-task``."""

    def __init__(self, handle):
        self._handle = ffi.gc(handle, lib.gree_device_release)

    @property
    def _info(self):
        info = ffi.new("gree_device_info_t*")
        check(lib.gree_device_info(self._handle, info))
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

    def close(self):
        """Releases the device now instead of at garbage collection."""
        if self._handle is not None:
            lib.gree_device_release(ffi.gc(self._handle, None))
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

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
        _check_allocators(allocators)
        out = ffi.new("gree_device_t*")
        check(lib.gree_driver_create_default_device(self._handle, out))
        return HalDevice(out[0])

    def create_device(self, device_id, params=None, allocators=None):
        """Creates a device by id, or by a dict from query_available_devices."""
        _check_allocators(allocators)
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
        return HalDevice(out[0])

    def create_device_by_uri(self, device_uri, allocators=None):
        _check_allocators(allocators)
        out = ffi.new("gree_device_t*")
        check(
            lib.gree_driver_create_device_by_uri(
                self._handle, device_uri.encode("utf-8"), out
            )
        )
        return HalDevice(out[0])

    def __repr__(self):
        return f"<HalDriver {self.name}>"


def _check_allocators(allocators):
    if allocators:
        raise ValueError(
            f"allocator specs are not supported yet: {list(allocators)!r}"
        )


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
