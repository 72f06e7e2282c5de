// Package tooling formats what the runtime tools print about drivers and
// devices (--list_drivers, --list_devices, --dump_devices) with IREE's exact
// text, so iree-run-module, the C ABI and Python's dump_device_info share
// one implementation.
package tooling
