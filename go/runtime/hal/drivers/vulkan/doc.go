// Package vulkan is the "vulkan" HAL driver: GPUs (and CPU implementations
// such as Mesa's lavapipe) through the Vulkan API, loaded at run time from
// the Vulkan loader libvulkan.so.1, as IREE's runtime/src/iree/hal/drivers/
// vulkan does. No Vulkan SDK or headers are needed to build or run it.
//
// Creating the driver binds vkGetInstanceProcAddr from the loader, resolves
// every other command through it (a NULL answer is an UNAVAILABLE error,
// never a call through a nil pointer), creates a VkInstance with apiVersion
// 1.3 (or the loader's version when it is older; the loader must implement
// Vulkan 1.1) and enumerates the physical devices once. A missing loader,
// or a loader without any driver (vkCreateInstance returning
// VK_ERROR_INCOMPATIBLE_DRIVER), is UNAVAILABLE with the fix in the message.
//
// Devices are numbered as in IREE: DeviceID is the physical device's
// ordinal + 1, the path is its deviceUUID as a bare UUID
// ("vulkan://6d657361-3232-2e33-2e36-000000000000"; a "GPU-" prefix also
// selects it) and the name is VkPhysicalDeviceProperties.deviceName. A URI
// path may also be an ordinal; the empty path is the first device. Devices
// below Vulkan 1.1 are not listed (they cannot report a UUID).
//
// DumpDeviceInfo prints one "key: value" per line: name, path, api, type,
// vendor and device ids, driver name and info, device and driver UUIDs,
// the bufferDeviceAddress feature, subgroup properties, the compute
// limits, then the queue families, memory heaps and memory types.
//
// Creating a device creates a VkDevice with one queue from the first queue
// family that has VK_QUEUE_COMPUTE_BIT (enabling bufferDeviceAddress when
// --vulkan_buffer_device_addresses is set and the device supports it);
// closing the device destroys it. The VkInstance lives until the driver and
// all its devices are closed.
//
// Flags: --vulkan_validation_layers enables VK_LAYER_KHRONOS_validation
// when it is installed (a warning on stderr otherwise);
// --vulkan_debug_verbosity, --vulkan_dispatch_abi and
// --vulkan_buffer_device_addresses are read when the driver is created.
// The structs exchanged with the loader are Go mirrors of vulkan_core.h
// (structs.go); memory that C reads through pointers inside them is pinned
// for the call.
package vulkan
