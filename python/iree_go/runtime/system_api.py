"""Config, SystemContext and the loaders (IREE's iree.runtime.system_api)."""

from typing import Optional, Sequence

import numpy as np

from ._binding import HalDevice
from ._vm import VmContext, VmInstance, VmModule, create_hal_module
from .function import FunctionInvoker
from .system_setup import get_first_device

# As in IREE: no cuda/rocm entries.
TARGET_BACKEND_TO_DRIVER = {
    "llvm-cpu": "local-task",
    "vmvx": "local-task",
    "vulkan-spirv": "vulkan",
}


class Config:
    """A device and a VM instance to run modules with."""

    def __init__(self, driver_name: Optional[str] = None, *, device: Optional[HalDevice] = None):
        if driver_name is not None and device is not None:
            raise ValueError("Either 'device' or 'driver_name' can be specified (not both)")
        self.vm_instance = VmInstance()
        if device is None:
            device = get_first_device(driver_name.split(",") if driver_name else None)
        self.device = device
        self.default_vm_modules = (create_hal_module(self.vm_instance, self.device),)
        self.driver = repr(device)

    def __repr__(self):
        return f"<Config device={self.device!r}>"


class BoundModule:
    """A module bound to a context: ``bm.fn`` or ``bm["fn"]`` is a FunctionInvoker."""

    def __init__(self, context, vm_module):
        self._context = context
        self._vm_module = vm_module

    @property
    def name(self):
        return self._vm_module.name

    @property
    def vm_module(self):
        return self._vm_module

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __getitem__(self, name):
        vm_function = self._vm_module.lookup_function(name) if hasattr(self._vm_module, "lookup_function") else None
        if vm_function is None:
            raise KeyError(f"Function '{name}' not found in module '{self}'")
        return FunctionInvoker(self._context.vm_context, self._context.config.device, vm_function)

    def __repr__(self):
        return f"<BoundModule {self._vm_module!r}>"


class BoundModules(dict):
    """The modules of a context, by name (also as attributes)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class SystemContext:
    """Modules loaded on a device. With ``vm_modules`` the set is fixed;
    without, modules can be added (``add_vm_module``)."""

    def __init__(self, vm_modules=None, config: Optional[Config] = None):
        self._config = config if config is not None else Config()
        self._is_dynamic = vm_modules is None
        self._vm_context = VmContext(self._config.vm_instance, list(self._config.default_vm_modules) + list(vm_modules or ()),
                                     _device=self._config.device)
        self._modules = BoundModules()
        for m in self._config.default_vm_modules:
            self._modules[m.name] = BoundModule(self, m)
        for m in vm_modules or ():
            self._modules[m.name] = BoundModule(self, m)

    @property
    def vm_context(self):
        return self._vm_context

    @property
    def is_dynamic(self):
        return self._is_dynamic

    @property
    def config(self):
        return self._config

    @property
    def instance(self):
        return self._config.vm_instance

    @property
    def modules(self):
        return self._modules

    def add_vm_modules(self, vm_modules):
        assert self._is_dynamic, "Cannot 'add_module' on a static context"
        for m in vm_modules:
            if m.name in self._modules:
                raise ValueError(f"Attempt to register duplicate VmModule: '{m.name}'")
            self._vm_context.register_modules([m])
            self._modules[m.name] = BoundModule(self, m)

    def add_vm_module(self, vm_module):
        self.add_vm_modules((vm_module,))

    def add_module_dependency(self, name, minimum_version=0):
        if name not in self._modules:
            raise ValueError(f"Module dependency '{name}' is not registered in this context")


def _driver_for(driver, backend):
    if driver is None and backend is None:
        raise ValueError("Either 'driver' or 'backend' must be specified, but got 'None' for both.")
    if driver is not None and backend is not None:
        raise ValueError("Cannot specify both 'driver' and a 'backend' to infer the driver from.")
    return driver if driver is not None else TARGET_BACKEND_TO_DRIVER[backend]


def load_vm_modules(*vm_modules, config: Optional[Config] = None):
    """Loads modules into a new static context; returns their BoundModules."""
    ctx = SystemContext(vm_modules=vm_modules, config=config)
    return [ctx.modules[m.name] for m in vm_modules]


def load_vm_module(vm_module, config: Optional[Config] = None):
    """Loads one module into a new context; returns its BoundModule."""
    return load_vm_modules(vm_module, config=config)[0]


def load_vm_flatbuffer(vm_flatbuffer: bytes, *, driver: Optional[str] = None, backend: Optional[str] = None):
    """Loads module bytes on the driver named (or inferred from backend)."""
    config = Config(_driver_for(driver, backend))
    vm_module = VmModule.copy_buffer(config.vm_instance, vm_flatbuffer)
    return load_vm_module(vm_module, config)


def load_vm_flatbuffer_file(path: str, *, driver: Optional[str] = None, backend: Optional[str] = None, destroy_callback=None):
    """Loads a module file on the driver named (or inferred from backend)."""
    config = Config(_driver_for(driver, backend))
    vm_module = VmModule.mmap(config.vm_instance, path, destroy_callback=destroy_callback)
    return load_vm_module(vm_module, config)


def normalize_value(value):
    """IREE's argument normalization: Python scalars become numpy arrays
    (float64 → float32, int64 → int32); containers pass through."""
    if value is None or isinstance(value, (list, tuple, dict)):
        return value
    if isinstance(value, (bool, int, float)):
        a = np.asarray(value)
        if a.dtype == np.float64:
            a = a.astype(np.float32)
        elif a.dtype == np.int64:
            a = a.astype(np.int32)
        return a
    return value
