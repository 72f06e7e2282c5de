package vulkan

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gree-ml/gree/go/status"
)

// Vulkan's C types as the bindings spell them: dispatchable handles
// (VkInstance, VkPhysicalDevice, VkDevice, VkQueue) are pointers, held as
// uintptr since Go never dereferences them; VkResult is a C enum (int32);
// a NULL VkAllocationCallbacks* is a nil unsafe.Pointer; const char* names
// are Go strings, which purego copies to NUL-terminated C memory for the
// call.

// loaderAPI is what the driver binds from libvulkan with dylib.Bind: only
// vkGetInstanceProcAddr, through which everything else is resolved.
type loaderAPI struct {
	GetInstanceProcAddr func(instance uintptr, name string) uintptr `sym:"vkGetInstanceProcAddr"`
}

// globalAPI holds the global commands, resolved with
// vkGetInstanceProcAddr(NULL, name).
type globalAPI struct {
	EnumerateInstanceVersion             func(version *uint32) int32                                                   `proc:"vkEnumerateInstanceVersion,optional"`
	EnumerateInstanceLayerProperties     func(count *uint32, props *layerProperties) int32                             `proc:"vkEnumerateInstanceLayerProperties"`
	EnumerateInstanceExtensionProperties func(layer *byte, count *uint32, props *extensionProperties) int32            `proc:"vkEnumerateInstanceExtensionProperties"`
	CreateInstance                       func(info *instanceCreateInfo, alloc unsafe.Pointer, instance *uintptr) int32 `proc:"vkCreateInstance"`
}

// instanceAPI holds the instance-level commands, resolved with
// vkGetInstanceProcAddr(instance, name) once the instance exists (the
// Vulkan 1.1 ones are core in the instance's apiVersion, which is ≥ 1.1).
type instanceAPI struct {
	DestroyInstance                        func(instance uintptr, alloc unsafe.Pointer)                                          `proc:"vkDestroyInstance"`
	EnumeratePhysicalDevices               func(instance uintptr, count *uint32, devices *uintptr) int32                         `proc:"vkEnumeratePhysicalDevices"`
	GetPhysicalDeviceProperties            func(pd uintptr, props *physicalDeviceProperties)                                     `proc:"vkGetPhysicalDeviceProperties"`
	GetPhysicalDeviceProperties2           func(pd uintptr, props *physicalDeviceProperties2)                                    `proc:"vkGetPhysicalDeviceProperties2"`
	GetPhysicalDeviceFeatures2             func(pd uintptr, features *physicalDeviceFeatures2)                                   `proc:"vkGetPhysicalDeviceFeatures2"`
	GetPhysicalDeviceQueueFamilyProperties func(pd uintptr, count *uint32, props *queueFamilyProperties)                         `proc:"vkGetPhysicalDeviceQueueFamilyProperties"`
	GetPhysicalDeviceMemoryProperties      func(pd uintptr, props *physicalDeviceMemoryProperties)                               `proc:"vkGetPhysicalDeviceMemoryProperties"`
	EnumerateDeviceExtensionProperties     func(pd uintptr, layer *byte, count *uint32, props *extensionProperties) int32        `proc:"vkEnumerateDeviceExtensionProperties"`
	CreateDevice                           func(pd uintptr, info *deviceCreateInfo, alloc unsafe.Pointer, device *uintptr) int32 `proc:"vkCreateDevice"`
	GetDeviceProcAddr                      func(device uintptr, name string) uintptr                                             `proc:"vkGetDeviceProcAddr"`

	// VK_EXT_debug_utils, present when the instance enabled it.
	CreateDebugUtilsMessenger  func(instance uintptr, info *debugUtilsMessengerCreateInfo, alloc unsafe.Pointer, messenger *uint64) int32 `proc:"vkCreateDebugUtilsMessengerEXT,optional"`
	DestroyDebugUtilsMessenger func(instance uintptr, messenger uint64, alloc unsafe.Pointer)                                             `proc:"vkDestroyDebugUtilsMessengerEXT,optional"`
}

// deviceAPI holds the device-level commands of one VkDevice, resolved with
// vkGetDeviceProcAddr(device, name). Commands that came from extensions
// are tagged with the core name first and the extension's after '|'.
type deviceAPI struct {
	DestroyDevice  func(device uintptr, alloc unsafe.Pointer)                                `proc:"vkDestroyDevice"`
	GetDeviceQueue func(device uintptr, queueFamilyIndex, queueIndex uint32, queue *uintptr) `proc:"vkGetDeviceQueue"`
	DeviceWaitIdle func(device uintptr) int32                                                `proc:"vkDeviceWaitIdle"`

	// Memory.
	CreateBuffer                      func(device uintptr, info *bufferCreateInfo, alloc unsafe.Pointer, buffer *uint64) int32       `proc:"vkCreateBuffer"`
	DestroyBuffer                     func(device uintptr, buffer uint64, alloc unsafe.Pointer)                                      `proc:"vkDestroyBuffer"`
	GetBufferMemoryRequirements       func(device uintptr, buffer uint64, req *memoryRequirements)                                   `proc:"vkGetBufferMemoryRequirements"`
	AllocateMemory                    func(device uintptr, info *memoryAllocateInfo, alloc unsafe.Pointer, memory *uint64) int32     `proc:"vkAllocateMemory"`
	FreeMemory                        func(device uintptr, memory uint64, alloc unsafe.Pointer)                                      `proc:"vkFreeMemory"`
	BindBufferMemory                  func(device uintptr, buffer, memory, offset uint64) int32                                      `proc:"vkBindBufferMemory"`
	MapMemory                         func(device uintptr, memory, offset, size uint64, flags uint32, data *unsafe.Pointer) int32    `proc:"vkMapMemory"`
	UnmapMemory                       func(device uintptr, memory uint64)                                                            `proc:"vkUnmapMemory"`
	GetMemoryHostPointerPropertiesEXT func(device uintptr, handleType uint32, ptr uintptr, props *memoryHostPointerProperties) int32 `proc:"vkGetMemoryHostPointerPropertiesEXT,optional"`

	// Synchronization.
	CreateSemaphore          func(device uintptr, info *semaphoreCreateInfo, alloc unsafe.Pointer, semaphore *uint64) int32 `proc:"vkCreateSemaphore"`
	DestroySemaphore         func(device uintptr, semaphore uint64, alloc unsafe.Pointer)                                   `proc:"vkDestroySemaphore"`
	GetSemaphoreCounterValue func(device uintptr, semaphore uint64, value *uint64) int32                                    `proc:"vkGetSemaphoreCounterValue|vkGetSemaphoreCounterValueKHR,optional"`
	SignalSemaphore          func(device uintptr, info *semaphoreSignalInfo) int32                                          `proc:"vkSignalSemaphore|vkSignalSemaphoreKHR,optional"`
	WaitSemaphores           func(device uintptr, info *semaphoreWaitInfo, timeout uint64) int32                            `proc:"vkWaitSemaphores|vkWaitSemaphoresKHR,optional"`
	CreateFence              func(device uintptr, info *fenceCreateInfo, alloc unsafe.Pointer, fence *uint64) int32         `proc:"vkCreateFence"`
	DestroyFence             func(device uintptr, fence uint64, alloc unsafe.Pointer)                                       `proc:"vkDestroyFence"`
	WaitForFences            func(device uintptr, count uint32, fences *uint64, waitAll uint32, timeout uint64) int32       `proc:"vkWaitForFences"`
	ResetFences              func(device uintptr, count uint32, fences *uint64) int32                                       `proc:"vkResetFences"`

	// Command buffers and the queue.
	CreateCommandPool      func(device uintptr, info *commandPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32 `proc:"vkCreateCommandPool"`
	DestroyCommandPool     func(device uintptr, pool uint64, alloc unsafe.Pointer)                                     `proc:"vkDestroyCommandPool"`
	AllocateCommandBuffers func(device uintptr, info *commandBufferAllocateInfo, cbs *uintptr) int32                   `proc:"vkAllocateCommandBuffers"`
	FreeCommandBuffers     func(device uintptr, pool uint64, count uint32, cbs *uintptr)                               `proc:"vkFreeCommandBuffers"`
	BeginCommandBuffer     func(cb uintptr, info *commandBufferBeginInfo) int32                                        `proc:"vkBeginCommandBuffer"`
	EndCommandBuffer       func(cb uintptr) int32                                                                      `proc:"vkEndCommandBuffer"`
	QueueSubmit            func(queue uintptr, count uint32, submits *submitInfo, fence uint64) int32                  `proc:"vkQueueSubmit"`
	QueueWaitIdle          func(queue uintptr) int32                                                                   `proc:"vkQueueWaitIdle"`

	CmdPipelineBarrier      func(cb uintptr, srcStage, dstStage, dependency, memoryCount uint32, memory *memoryBarrier, bufferCount uint32, buffers unsafe.Pointer, imageCount uint32, images unsafe.Pointer) `proc:"vkCmdPipelineBarrier"`
	CmdFillBuffer           func(cb uintptr, buffer, offset, size uint64, data uint32)                                                                                                                        `proc:"vkCmdFillBuffer"`
	CmdUpdateBuffer         func(cb uintptr, buffer, offset, size uint64, data unsafe.Pointer)                                                                                                                `proc:"vkCmdUpdateBuffer"`
	CmdCopyBuffer           func(cb uintptr, src, dst uint64, count uint32, regions *bufferCopy)                                                                                                              `proc:"vkCmdCopyBuffer"`
	CmdBindPipeline         func(cb uintptr, bindPoint uint32, pipeline uint64)                                                                                                                               `proc:"vkCmdBindPipeline"`
	CmdBindDescriptorSets   func(cb uintptr, bindPoint uint32, layout uint64, firstSet, count uint32, sets *uint64, dynamicCount uint32, dynamic unsafe.Pointer)                                              `proc:"vkCmdBindDescriptorSets"`
	CmdPushConstants        func(cb uintptr, layout uint64, stages, offset, size uint32, values unsafe.Pointer)                                                                                               `proc:"vkCmdPushConstants"`
	CmdDispatch             func(cb uintptr, x, y, z uint32)                                                                                                                                                  `proc:"vkCmdDispatch"`
	CmdPushDescriptorSetKHR func(cb uintptr, bindPoint uint32, layout uint64, set, count uint32, writes *writeDescriptorSet)                                                                                  `proc:"vkCmdPushDescriptorSetKHR,optional"`

	// Timestamp queries (the --trace_output timeline, trace.go).
	CreateQueryPool     func(device uintptr, info *queryPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32                                    `proc:"vkCreateQueryPool,optional"`
	DestroyQueryPool    func(device uintptr, pool uint64, alloc unsafe.Pointer)                                                                      `proc:"vkDestroyQueryPool,optional"`
	CmdResetQueryPool   func(cb uintptr, pool uint64, first, count uint32)                                                                           `proc:"vkCmdResetQueryPool,optional"`
	CmdWriteTimestamp   func(cb uintptr, stage uint32, pool uint64, query uint32)                                                                    `proc:"vkCmdWriteTimestamp,optional"`
	GetQueryPoolResults func(device uintptr, pool uint64, first, count uint32, size uintptr, data unsafe.Pointer, stride uint64, flags uint32) int32 `proc:"vkGetQueryPoolResults,optional"`

	// Pipelines and descriptors.
	CreateShaderModule         func(device uintptr, info *shaderModuleCreateInfo, alloc unsafe.Pointer, module *uint64) int32                                    `proc:"vkCreateShaderModule"`
	DestroyShaderModule        func(device uintptr, module uint64, alloc unsafe.Pointer)                                                                         `proc:"vkDestroyShaderModule"`
	CreateDescriptorSetLayout  func(device uintptr, info *descriptorSetLayoutCreateInfo, alloc unsafe.Pointer, layout *uint64) int32                             `proc:"vkCreateDescriptorSetLayout"`
	DestroyDescriptorSetLayout func(device uintptr, layout uint64, alloc unsafe.Pointer)                                                                         `proc:"vkDestroyDescriptorSetLayout"`
	CreatePipelineLayout       func(device uintptr, info *pipelineLayoutCreateInfo, alloc unsafe.Pointer, layout *uint64) int32                                  `proc:"vkCreatePipelineLayout"`
	DestroyPipelineLayout      func(device uintptr, layout uint64, alloc unsafe.Pointer)                                                                         `proc:"vkDestroyPipelineLayout"`
	CreatePipelineCache        func(device uintptr, info *pipelineCacheCreateInfo, alloc unsafe.Pointer, cache *uint64) int32                                    `proc:"vkCreatePipelineCache"`
	DestroyPipelineCache       func(device uintptr, cache uint64, alloc unsafe.Pointer)                                                                          `proc:"vkDestroyPipelineCache"`
	CreateComputePipelines     func(device uintptr, cache uint64, count uint32, infos *computePipelineCreateInfo, alloc unsafe.Pointer, pipelines *uint64) int32 `proc:"vkCreateComputePipelines"`
	DestroyPipeline            func(device uintptr, pipeline uint64, alloc unsafe.Pointer)                                                                       `proc:"vkDestroyPipeline"`
	CreateDescriptorPool       func(device uintptr, info *descriptorPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32                                    `proc:"vkCreateDescriptorPool"`
	DestroyDescriptorPool      func(device uintptr, pool uint64, alloc unsafe.Pointer)                                                                           `proc:"vkDestroyDescriptorPool"`
	AllocateDescriptorSets     func(device uintptr, info *descriptorSetAllocateInfo, sets *uint64) int32                                                         `proc:"vkAllocateDescriptorSets"`
	UpdateDescriptorSets       func(device uintptr, writeCount uint32, writes *writeDescriptorSet, copyCount uint32, copies unsafe.Pointer)                      `proc:"vkUpdateDescriptorSets"`
}

// bindProcs fills table, a pointer to a struct whose func fields carry a
// `proc:"vkName"` tag (",optional" leaves a missing command nil), with the
// addresses lookup returns. A zero address for a required command is an
// UNAVAILABLE error naming every missing command, and then no field is
// set: the driver never calls through a nil pointer.
func bindProcs(table any, lookup func(name string) uintptr, what string) error {
	v := reflect.ValueOf(table)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return status.Errorf(status.Internal, "vulkan: bindProcs wants a pointer to a struct, got %T", table)
	}
	s := v.Elem()
	type binding struct {
		field int
		addr  uintptr
	}
	var bindings []binding
	var missing []string
	for i := 0; i < s.NumField(); i++ {
		f := s.Type().Field(i)
		tag, ok := f.Tag.Lookup("proc")
		if !ok {
			continue
		}
		if f.Type.Kind() != reflect.Func {
			return status.Errorf(status.Internal, "vulkan: field %s tagged proc is not a func", f.Name)
		}
		names, opt, _ := strings.Cut(tag, ",")
		name, _, _ := strings.Cut(names, "|")
		var addr uintptr
		for _, n := range strings.Split(names, "|") {
			if addr = lookup(n); addr != 0 {
				break
			}
		}
		if addr == 0 {
			if opt != "optional" {
				missing = append(missing, name)
			}
			continue
		}
		bindings = append(bindings, binding{i, addr})
	}
	if len(missing) > 0 {
		return status.Errorf(status.Unavailable, "%s returned NULL for %s; the Vulkan loader or driver is older than gree needs (Vulkan 1.1)", what, strings.Join(missing, ", "))
	}
	for _, b := range bindings {
		purego.RegisterFunc(s.Field(b.field).Addr().Interface(), b.addr)
	}
	return nil
}

// cmem holds Go memory that C reads during a call: every object whose
// address is stored inside a struct passed to Vulkan is pinned, as the cgo
// pointer rules require, until free.
type cmem struct {
	pinner runtime.Pinner
}

// pin pins the object p points at and returns p.
func (c *cmem) pin(p unsafe.Pointer) unsafe.Pointer {
	if p != nil {
		c.pinner.Pin(p)
	}
	return p
}

// str returns a pinned NUL-terminated copy of s.
func (c *cmem) str(s string) unsafe.Pointer {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return c.pin(unsafe.Pointer(&b[0]))
}

// strs returns a pinned array of pinned C strings (a const char* const*)
// and its length; nil for an empty list.
func (c *cmem) strs(list []string) (unsafe.Pointer, uint32) {
	if len(list) == 0 {
		return nil, 0
	}
	ptrs := make([]unsafe.Pointer, len(list))
	for i, s := range list {
		ptrs[i] = c.str(s)
	}
	return c.pin(unsafe.Pointer(&ptrs[0])), uint32(len(list))
}

// free unpins everything.
func (c *cmem) free() { c.pinner.Unpin() }

// VkResult values the driver names or treats specially.
const (
	vkSuccess                  = 0
	vkNotReady                 = 1
	vkTimeout                  = 2
	vkEventSet                 = 3
	vkEventReset               = 4
	vkIncomplete               = 5
	vkErrorOutOfHostMemory     = -1
	vkErrorOutOfDeviceMemory   = -2
	vkErrorInitializationFail  = -3
	vkErrorDeviceLost          = -4
	vkErrorMemoryMapFailed     = -5
	vkErrorLayerNotPresent     = -6
	vkErrorExtensionNotPresent = -7
	vkErrorFeatureNotPresent   = -8
	vkErrorIncompatibleDriver  = -9
	vkErrorTooManyObjects      = -10
	vkErrorFormatNotSupported  = -11
	vkErrorFragmentedPool      = -12
	vkErrorUnknown             = -13
)

// resultNames are the VkResult enumerants of vulkan_core.h (1.3.239).
var resultNames = map[int32]string{
	vkSuccess:                  "VK_SUCCESS",
	vkNotReady:                 "VK_NOT_READY",
	vkTimeout:                  "VK_TIMEOUT",
	vkEventSet:                 "VK_EVENT_SET",
	vkEventReset:               "VK_EVENT_RESET",
	vkIncomplete:               "VK_INCOMPLETE",
	vkErrorOutOfHostMemory:     "VK_ERROR_OUT_OF_HOST_MEMORY",
	vkErrorOutOfDeviceMemory:   "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	vkErrorInitializationFail:  "VK_ERROR_INITIALIZATION_FAILED",
	vkErrorDeviceLost:          "VK_ERROR_DEVICE_LOST",
	vkErrorMemoryMapFailed:     "VK_ERROR_MEMORY_MAP_FAILED",
	vkErrorLayerNotPresent:     "VK_ERROR_LAYER_NOT_PRESENT",
	vkErrorExtensionNotPresent: "VK_ERROR_EXTENSION_NOT_PRESENT",
	vkErrorFeatureNotPresent:   "VK_ERROR_FEATURE_NOT_PRESENT",
	vkErrorIncompatibleDriver:  "VK_ERROR_INCOMPATIBLE_DRIVER",
	vkErrorTooManyObjects:      "VK_ERROR_TOO_MANY_OBJECTS",
	vkErrorFormatNotSupported:  "VK_ERROR_FORMAT_NOT_SUPPORTED",
	vkErrorFragmentedPool:      "VK_ERROR_FRAGMENTED_POOL",
	vkErrorUnknown:             "VK_ERROR_UNKNOWN",
	-1000069000:                "VK_ERROR_OUT_OF_POOL_MEMORY",
	-1000072003:                "VK_ERROR_INVALID_EXTERNAL_HANDLE",
	-1000161000:                "VK_ERROR_FRAGMENTATION",
	-1000257000:                "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS",
	1000297000:                 "VK_PIPELINE_COMPILE_REQUIRED",
	-1000000000:                "VK_ERROR_SURFACE_LOST_KHR",
	-1000000001:                "VK_ERROR_NATIVE_WINDOW_IN_USE_KHR",
	1000001003:                 "VK_SUBOPTIMAL_KHR",
	-1000001004:                "VK_ERROR_OUT_OF_DATE_KHR",
	-1000003001:                "VK_ERROR_INCOMPATIBLE_DISPLAY_KHR",
	-1000011001:                "VK_ERROR_VALIDATION_FAILED_EXT",
	-1000012000:                "VK_ERROR_INVALID_SHADER_NV",
	-1000023000:                "VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR",
	-1000023001:                "VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR",
	-1000023002:                "VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR",
	-1000023003:                "VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR",
	-1000023004:                "VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR",
	-1000023005:                "VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR",
	-1000158000:                "VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT",
	-1000174001:                "VK_ERROR_NOT_PERMITTED_KHR",
	-1000255000:                "VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT",
	1000268000:                 "VK_THREAD_IDLE_KHR",
	1000268001:                 "VK_THREAD_DONE_KHR",
	1000268002:                 "VK_OPERATION_DEFERRED_KHR",
	1000268003:                 "VK_OPERATION_NOT_DEFERRED_KHR",
	-1000338000:                "VK_ERROR_COMPRESSION_EXHAUSTED_EXT",
}

// resultName returns the VkResult's enumerant name, or "VkResult(n)" for
// values this table does not know.
func resultName(r int32) string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("VkResult(%d)", r)
}

// resultCode maps a failed VkResult to a status code, following IREE's
// iree_hal_vulkan_result_to_status for the common cases.
func resultCode(r int32) status.Code {
	switch r {
	case vkErrorOutOfHostMemory, vkErrorOutOfDeviceMemory, vkErrorTooManyObjects, vkErrorFragmentedPool, -1000069000, -1000161000:
		return status.ResourceExhausted
	case vkTimeout, vkNotReady:
		return status.DeadlineExceeded
	case vkErrorLayerNotPresent, vkErrorExtensionNotPresent, vkErrorFeatureNotPresent, vkErrorFormatNotSupported:
		return status.Unimplemented
	case vkErrorIncompatibleDriver, vkErrorInitializationFail:
		return status.Unavailable
	case vkErrorDeviceLost:
		return status.Internal
	}
	return status.Internal
}

// check turns a failed call into an error naming the call and the VkResult
// ("vkCreateDevice failed: VK_ERROR_DEVICE_LOST (-4)"). Non-negative
// results other than the ones a caller handles are success codes.
func check(r int32, call string) error {
	if r >= 0 {
		return nil
	}
	return status.Errorf(resultCode(r), "%s failed: %s (%d)", call, resultName(r), r)
}

// instanceError is the UNAVAILABLE error for a failed vkCreateInstance: it
// names the VkResult and says how to fix the usual causes.
func instanceError(r int32, layers []string) error {
	var fix string
	switch r {
	case vkErrorIncompatibleDriver:
		fix = "the Vulkan loader found no driver (ICD) for this machine; install one: mesa-vulkan-drivers provides lavapipe (CPU) and RADV/ANV, NVIDIA's driver ships nvidia_icd.json; check the ICD manifests in /usr/share/vulkan/icd.d and VK_DRIVER_FILES / VK_ICD_FILENAMES"
	case vkErrorLayerNotPresent:
		fix = fmt.Sprintf("a requested layer is not installed (%s); install vulkan-validationlayers or drop --vulkan_validation_layers", strings.Join(layers, ", "))
	case vkErrorExtensionNotPresent:
		fix = "the Vulkan loader lacks a requested instance extension; update the loader (libvulkan1)"
	case vkErrorOutOfHostMemory, vkErrorOutOfDeviceMemory:
		fix = "the system is out of memory"
	default:
		fix = "install or update a Vulkan driver: mesa-vulkan-drivers for lavapipe/RADV, or NVIDIA's driver (nvidia_icd.json); `vulkaninfo --summary` shows what the loader sees"
	}
	return status.Errorf(status.Unavailable, "vkCreateInstance failed: %s (%d); %s", resultName(r), r, fix)
}

// Version macros (VK_API_VERSION_*).
func apiVersionVariant(v uint32) uint32 { return v >> 29 }
func apiVersionMajor(v uint32) uint32   { return (v >> 22) & 0x7f }
func apiVersionMinor(v uint32) uint32   { return (v >> 12) & 0x3ff }
func apiVersionPatch(v uint32) uint32   { return v & 0xfff }

// makeAPIVersion is VK_MAKE_API_VERSION(variant, major, minor, patch).
func makeAPIVersion(variant, major, minor, patch uint32) uint32 {
	return variant<<29 | major<<22 | minor<<12 | patch
}

// formatVersion formats a packed API version as "major.minor.patch", with
// a "variant N " prefix for the rare non-zero variant.
func formatVersion(v uint32) string {
	s := fmt.Sprintf("%d.%d.%d", apiVersionMajor(v), apiVersionMinor(v), apiVersionPatch(v))
	if variant := apiVersionVariant(v); variant != 0 {
		s = fmt.Sprintf("variant %d %s", variant, s)
	}
	return s
}

// Versions the driver asks for.
var (
	apiVersion1_0 = makeAPIVersion(0, 1, 0, 0)
	apiVersion1_1 = makeAPIVersion(0, 1, 1, 0)
	apiVersion1_2 = makeAPIVersion(0, 1, 2, 0)
	apiVersion1_3 = makeAPIVersion(0, 1, 3, 0)
)

// instanceAPIVersion is the apiVersion the driver creates its instance
// with: 1.3 when the loader supports it, else the loader's own version
// (without the patch number).
func instanceAPIVersion(loader uint32) uint32 {
	if apiVersionMajor(loader) > 1 || (apiVersionMajor(loader) == 1 && apiVersionMinor(loader) >= 3) {
		return apiVersion1_3
	}
	return makeAPIVersion(0, apiVersionMajor(loader), apiVersionMinor(loader), 0)
}

// atLeast reports whether packed version v is at least want's
// major.minor (patch and variant are ignored).
func atLeast(v, want uint32) bool {
	mm := func(x uint32) uint32 { return apiVersionMajor(x)<<10 | apiVersionMinor(x) }
	return mm(v) >= mm(want)
}

// flagName is one named bit of a Vulkan flags word.
type flagName struct {
	bit  uint32
	name string
}

// formatFlags names the bits set in v ("graphics|compute"), appending any
// bits it has no name for in hex; 0 is "none".
func formatFlags(v uint32, names []flagName) string {
	if v == 0 {
		return "none"
	}
	var parts []string
	rest := v
	for _, n := range names {
		if v&n.bit != 0 {
			parts = append(parts, n.name)
			rest &^= n.bit
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", rest))
	}
	return strings.Join(parts, "|")
}

// VkQueueFlagBits.
const (
	queueGraphicsBit = 0x1
	queueComputeBit  = 0x2
	queueTransferBit = 0x4
)

var queueFlagNames = []flagName{
	{queueGraphicsBit, "graphics"},
	{queueComputeBit, "compute"},
	{queueTransferBit, "transfer"},
	{0x8, "sparse"},
	{0x10, "protected"},
	{0x20, "video-decode"},
	{0x40, "video-encode"},
	{0x100, "optical-flow"},
}

// formatQueueFlags names a VkQueueFlags value.
func formatQueueFlags(v uint32) string { return formatFlags(v, queueFlagNames) }

// VkMemoryPropertyFlagBits.
var memoryPropertyNames = []flagName{
	{0x1, "device-local"},
	{0x2, "host-visible"},
	{0x4, "host-coherent"},
	{0x8, "host-cached"},
	{0x10, "lazily-allocated"},
	{0x20, "protected"},
	{0x40, "device-coherent-amd"},
	{0x80, "device-uncached-amd"},
	{0x100, "rdma-capable-nv"},
}

// formatMemoryProperties names a VkMemoryPropertyFlags value.
func formatMemoryProperties(v uint32) string { return formatFlags(v, memoryPropertyNames) }

// VkPhysicalDeviceType names, as the dump prints them.
var deviceTypeNames = []string{"other", "integrated-gpu", "discrete-gpu", "virtual-gpu", "cpu"}

// formatDeviceType names a VkPhysicalDeviceType.
func formatDeviceType(t uint32) string {
	if int(t) < len(deviceTypeNames) {
		return deviceTypeNames[t]
	}
	return fmt.Sprintf("unknown(%d)", t)
}
