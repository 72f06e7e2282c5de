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
// family that has VK_QUEUE_COMPUTE_BIT, enabling the optional features
// SPIR-V modules may need where the device has them (features.go:
// shaderInt64/Float64/Int16, shaderFloat16/Int8, 8- and 16-bit storage,
// int64 atomics, variable pointers, timelineSemaphore, subgroup size
// control, bufferDeviceAddress when --vulkan_buffer_device_addresses is
// set) and VK_KHR_push_descriptor and VK_EXT_external_memory_host when
// present; it records what it enabled and the limits it checks work
// against.
//
// The devices execute (hal.Device):
//
//   - Memory (memory.go): one VkBuffer (storage, transfer source and
//     target) and VkDeviceMemory per allocation. Device-only buffers get
//     device-local memory; where that memory is host-visible too (lavapipe,
//     integrated GPUs) the buffer is host-visible and mappable, elsewhere
//     (discrete GPUs) it is not, and the host reaches it through staging
//     copies on the queue. Host-visible memory is coherent and mapped for
//     the allocation's life. New memory is zeroed: by the host when mapped,
//     else by a fill the next submission records first. Host memory is
//     imported without a copy through VK_EXT_external_memory_host (the
//     pages around it). Memory is freed when hal frees the allocation and
//     no submission in flight uses it; the VkDevice lives until the device
//     is closed and its last allocation freed.
//   - Semaphores (semaphore.go): native timeline VkSemaphores that
//     submissions wait on and signal on the GPU, with a host mirror that
//     keeps the failure state and that the host waits on, raised once the
//     queue has checked the signaling work; host semaphores on devices
//     without timelines.
//   - The queue (queue.go, record.go, commands.go): QueueExecute checks and
//     resolves the command buffer against the binding table (request
//     errors are returned), holds it back on the host until its waits may
//     go to the GPU, records a VkCommandBuffer (fills, updates, copies,
//     dispatches, a full barrier between commands) and submits it with
//     its native waits and signals and a fence; a completer goroutine takes
//     submissions in order, reads the status words of dispatches that
//     report run-time errors, releases what the submission held, and
//     signals or fails its signal list. QueueHostCall runs on the host in
//     queue order.
//   - Executables (executable.go, program.go): vulkan-spirv-fb
//     (go/schemas/spirv), checked against the device's features and
//     limits when prepared, which also creates each entry point's
//     VkShaderModule and layouts; an entry point's compute pipeline is
//     created on its first dispatch (through the device's
//     VkPipelineCache), so entry points never dispatched cost none. The
//     device keeps these objects by a hash of the executable's bytes:
//     preparing the same bytes again (a new VM context) reuses them and
//     the pipelines built so far, while an executable uses them and then
//     among the last maxIdlePrograms unused ones, until the device closes.
//
// While a --trace_output timeline is recorded (package timeline), each
// submission writes timestamp queries around its commands, which become
// device-timed events (trace.go).
//
// Flags: --vulkan_validation_layers enables VK_LAYER_KHRONOS_validation
// when it is installed (a warning on stderr otherwise) and a
// VK_EXT_debug_utils messenger: messages at --vulkan_debug_verbosity are
// printed to stderr, and a validation error fails the operation (preparing
// an executable, a submission) during which it was reported;
// --vulkan_debug_verbosity, --vulkan_dispatch_abi and
// --vulkan_buffer_device_addresses are read when the driver is created.
// The structs exchanged with the loader are Go mirrors of vulkan_core.h
// (structs.go); memory that C reads through pointers inside them is pinned
// for the call.
package vulkan
