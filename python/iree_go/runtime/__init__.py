"""gree's runtime with IREE's Python API (``iree.runtime``): HAL drivers
and devices, modules, contexts and function invocation."""

from ._binding import HalDevice, HalDriver
from ._hal import BufferUsage, HalBufferView, HalElementType, MappedMemory, MemoryAccess, MemoryType
from ._vm import Linkage, VmContext, VmFunction, VmInstance, VmModule, VmVariantList, create_hal_module
from .array_interop import DeviceArray, asdevicearray
from .function import ArgumentError, FunctionInvoker, ReturnError
from . import flags
from . import system_setup
from .system_api import (
    Config,
    SystemContext,
    TARGET_BACKEND_TO_DRIVER,
    load_vm_flatbuffer,
    load_vm_flatbuffer_file,
    load_vm_module,
    load_vm_modules,
    normalize_value,
)
from .system_setup import (
    get_device,
    get_driver,
    get_first_device,
    query_available_drivers,
)

__all__ = [
    "ArgumentError", "BufferUsage", "Config", "DeviceArray", "FunctionInvoker", "HalBufferView",
    "HalDevice", "HalDriver", "HalElementType", "Linkage", "MappedMemory", "MemoryAccess", "MemoryType", "ReturnError", "SystemContext",
    "TARGET_BACKEND_TO_DRIVER", "VmContext", "VmFunction", "VmInstance", "VmModule", "VmVariantList",
    "asdevicearray", "create_hal_module", "flags", "get_device", "get_driver", "get_first_device",
    "load_vm_flatbuffer", "load_vm_flatbuffer_file", "load_vm_module", "load_vm_modules",
    "normalize_value", "query_available_drivers", "system_setup",
]
