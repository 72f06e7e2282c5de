"""Driver and device discovery (IREE's iree.runtime.system_setup)."""

import logging
import os
import threading
from typing import Collection, Optional, Sequence

from ._binding import HalDevice, HalDriver, get_cached_hal_driver

DEFAULT_DRIVER_NAMES = "local-task,cuda,vulkan"

_device_cache = {}
_device_lock = threading.Lock()


def query_available_drivers() -> Collection[str]:
    """The registered HAL driver names, in registration order."""
    return HalDriver.query()


def get_driver(device_uri: str) -> HalDriver:
    """The driver for a device URI's scheme, cached by scheme."""
    return get_cached_hal_driver(device_uri)


def get_device(device_uri: str, cache: bool = True) -> HalDevice:
    """The device a URI names: 'cuda', 'cuda:0', 'cuda://0', 'cuda://GPU-<uuid>'."""
    if cache:
        with _device_lock:
            device = _device_cache.get(device_uri)
            if device is not None and not device.closed:
                return device
    device = get_driver(device_uri).create_device_by_uri(device_uri)
    if cache:
        with _device_lock:
            cached = _device_cache.get(device_uri)
            if cached is None or cached.closed:
                _device_cache[device_uri] = device
            else:
                device = cached
    return device


def get_first_device(
    device_uris: Optional[Sequence[str]] = None, cache: bool = True
) -> HalDevice:
    """The first device that can be created from a list of URIs."""
    if device_uris is None:
        env = os.environ.get("IREE_DEFAULT_DEVICE")
        device_uris = (env or DEFAULT_DRIVER_NAMES).split(",")
        device_uris = [u.strip() for u in device_uris if u.strip()]
    last_exception = None
    for device_uri in device_uris:
        try:
            return get_device(device_uri, cache=cache)
        except ValueError:
            # Unknown driver or device: skip silently, as IREE does.
            pass
        except Exception as e:
            logging.info("Error creating device %s: %s", device_uri, e)
            last_exception = e
    if last_exception:
        raise RuntimeError(
            "Could not create device. Exception for last tried follows."
        ) from last_exception
    raise ValueError(f"No device found from list {device_uris}")
