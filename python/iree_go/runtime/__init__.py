"""gree's runtime with IREE's Python API (``iree.runtime``).

What works so far: driver and device discovery. Module loading and
invocation (VmModule, SystemContext, FunctionInvoker, …) arrive with the
compiler core; they are not exported until they work.
"""

from ._binding import HalDevice, HalDriver
from . import flags
from . import system_setup
from .system_setup import (
    get_device,
    get_driver,
    get_first_device,
    query_available_drivers,
)

__all__ = [
    "HalDevice",
    "HalDriver",
    "flags",
    "system_setup",
    "get_device",
    "get_driver",
    "get_first_device",
    "query_available_drivers",
]
