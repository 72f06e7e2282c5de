"""gree's runtime with IREE's Python API (``iree.runtime``): HAL drivers
and devices, modules, contexts and function invocation."""

from ._binding import HalDevice, HalDriver
from ._hal import (
    BufferCompatibility,
    BufferUsage,
    ExternalTimepointFlags,
    ExternalTimepointType,
    HalAllocator,
    HalBuffer,
    HalBufferView,
    HalCommandBuffer,
    HalElementType,
    HalExternalTimepoint,
    HalFence,
    HalModuleDebugSink,
    HalSemaphore,
    MappedMemory,
    MemoryAccess,
    MemoryType,
    SemaphoreCompatibility,
    Shape,
    VmRef,
)
from ._cancel import CancelToken, deadline
from ._loop import HalDeviceLoopBridge
from .typing import HalModuleBufferViewTraceCallback
from ._vm import Linkage, VmBuffer, VmContext, VmFunction, VmInstance, VmModule, VmVariantList, create_hal_module
from ._py_module import PyModuleInterface
from .array_interop import DeviceArray, asdevicearray, from_dlpack
from .benchmark import BenchmarkResult, BenchmarkTimeoutError, BenchmarkToolError, benchmark_exe, benchmark_module
from . import benchmark
from .function import ArgumentError, FunctionInvoker, ReturnError
from . import io
from .io import *  # noqa: F401,F403 - the parameter API (IREE's iree.runtime.io)
from . import flags
from ._trace import trace_active, trace_begin, trace_end, trace_output
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
    "ArgumentError", "BufferCompatibility", "CancelToken", "BufferUsage", "Config", "DeviceArray", "ExternalTimepointFlags",
    "ExternalTimepointType", "FunctionInvoker", "HalAllocator", "HalBuffer", "HalBufferView", "HalCommandBuffer",
    "HalDevice", "HalDeviceLoopBridge", "HalDriver", "HalElementType", "HalExternalTimepoint", "HalFence", "HalModuleBufferViewTraceCallback", "HalModuleDebugSink", "HalSemaphore", "Linkage",
    "MappedMemory", "MemoryAccess", "MemoryType", "PyModuleInterface", "ReturnError", "SemaphoreCompatibility", "Shape", "SystemContext",
    "TARGET_BACKEND_TO_DRIVER", "VmBuffer", "VmContext", "VmFunction", "VmInstance", "VmModule", "VmRef",
    "VmVariantList", "asdevicearray", "create_hal_module", "deadline", "flags", "from_dlpack", "get_device", "get_driver",
    "get_first_device",
    "load_vm_flatbuffer", "load_vm_flatbuffer_file", "load_vm_module", "load_vm_modules",
    "normalize_value", "query_available_drivers", "system_setup",
    "trace_active", "trace_begin", "trace_end", "trace_output",
]
__all__ += io.__all__
