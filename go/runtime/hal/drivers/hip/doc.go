// Package hip is the "hip" HAL driver: AMD GPUs through the HIP runtime,
// loaded at run time from libamdhip64.so (ROCm), as IREE's
// runtime/src/iree/hal/drivers/hip does.
//
// The library is searched as IREE searches it (hip/dynamic_symbols.c,
// hip/registration/driver_module.c): when --hip_dylib_path is given, only
// its entries are tried; otherwise the entries of IREE_HIP_DYLIB_PATH (and
// gree's alias GREE_HIP_DYLIB_PATH), split on ';'; otherwise the system
// loader's search for libamdhip64.so, libamdhip64.so.7, libamdhip64.so.6
// and then /opt/rocm/lib/libamdhip64.so. An entry is a directory holding
// libamdhip64.so, an existing file, or "file:<path>" (loaded verbatim).
//
// Devices are numbered as in IREE: DeviceID is the hipDevice_t + 1, the
// path is "GPU-" and the hipDeviceGetUuid bytes in hex, the name is
// hipDeviceGetName's. A path may also be an ordinal; "" is the device at
// --hip_default_index. IREE turns a comma-separated path ("hip://0,1") into
// one logical device with a queue per GPU; gree does not build such devices
// yet and answers UNIMPLEMENTED, naming the separate URIs to use instead.
//
// DumpDeviceInfo writes the same --dump_devices text as IREE's hip_driver.c
// (REFERENCE §5 "HIP dump"): the loaded library's path, the gfx architecture
// name from hipDeviceProp_t.gcnArchName, and hipDeviceGetAttribute values.
package hip
