package vulkan

import "unsafe"

// Go mirrors of the vulkan_core.h structs the driver passes to and reads
// from the loader. Field order, types and therefore offsets follow the C
// declarations exactly on 64-bit targets (pointers and size_t are 8 bytes,
// uint64_t is 8-aligned); structs_test.go checks every size and the offsets
// that matter against the values a C compiler gives for vulkan_core.h.
// Pointer members are unsafe.Pointer so the garbage collector sees the Go
// memory they point at; callers pin that memory for the call (see cmem).

// Structure types (VkStructureType).
const (
	sTypeApplicationInfo                       = 0
	sTypeInstanceCreateInfo                    = 1
	sTypeDeviceQueueCreateInfo                 = 2
	sTypeDeviceCreateInfo                      = 3
	sTypePhysicalDeviceFeatures2               = 1000059000
	sTypePhysicalDeviceProperties2             = 1000059001
	sTypePhysicalDeviceIDProperties            = 1000071004
	sTypePhysicalDeviceSubgroupProperties      = 1000094000
	sTypePhysicalDeviceDriverProperties        = 1000196000
	sTypePhysicalDeviceBufferDeviceAddressFeat = 1000257000
)

// Sizes of the fixed arrays in the structs (VK_MAX_*).
const (
	maxPhysicalDeviceNameSize = 256
	maxExtensionNameSize      = 256
	maxDescriptionSize        = 256
	maxDriverNameSize         = 256
	maxDriverInfoSize         = 256
	uuidSize                  = 16
	luidSize                  = 8
	maxMemoryTypes            = 32
	maxMemoryHeaps            = 16
)

// VkApplicationInfo (48 bytes).
type applicationInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	pApplicationName   unsafe.Pointer
	applicationVersion uint32
	pEngineName        unsafe.Pointer
	engineVersion      uint32
	apiVersion         uint32
}

// VkInstanceCreateInfo (64 bytes).
type instanceCreateInfo struct {
	sType                   uint32
	pNext                   unsafe.Pointer
	flags                   uint32
	pApplicationInfo        unsafe.Pointer
	enabledLayerCount       uint32
	ppEnabledLayerNames     unsafe.Pointer
	enabledExtensionCount   uint32
	ppEnabledExtensionNames unsafe.Pointer
}

// VkLayerProperties (520 bytes).
type layerProperties struct {
	layerName             [maxExtensionNameSize]byte
	specVersion           uint32
	implementationVersion uint32
	description           [maxDescriptionSize]byte
}

// VkExtensionProperties (260 bytes).
type extensionProperties struct {
	extensionName [maxExtensionNameSize]byte
	specVersion   uint32
}

// VkPhysicalDeviceLimits (504 bytes), every member in header order.
type physicalDeviceLimits struct {
	maxImageDimension1D                             uint32
	maxImageDimension2D                             uint32
	maxImageDimension3D                             uint32
	maxImageDimensionCube                           uint32
	maxImageArrayLayers                             uint32
	maxTexelBufferElements                          uint32
	maxUniformBufferRange                           uint32
	maxStorageBufferRange                           uint32
	maxPushConstantsSize                            uint32
	maxMemoryAllocationCount                        uint32
	maxSamplerAllocationCount                       uint32
	bufferImageGranularity                          uint64
	sparseAddressSpaceSize                          uint64
	maxBoundDescriptorSets                          uint32
	maxPerStageDescriptorSamplers                   uint32
	maxPerStageDescriptorUniformBuffers             uint32
	maxPerStageDescriptorStorageBuffers             uint32
	maxPerStageDescriptorSampledImages              uint32
	maxPerStageDescriptorStorageImages              uint32
	maxPerStageDescriptorInputAttachments           uint32
	maxPerStageResources                            uint32
	maxDescriptorSetSamplers                        uint32
	maxDescriptorSetUniformBuffers                  uint32
	maxDescriptorSetUniformBuffersDynamic           uint32
	maxDescriptorSetStorageBuffers                  uint32
	maxDescriptorSetStorageBuffersDynamic           uint32
	maxDescriptorSetSampledImages                   uint32
	maxDescriptorSetStorageImages                   uint32
	maxDescriptorSetInputAttachments                uint32
	maxVertexInputAttributes                        uint32
	maxVertexInputBindings                          uint32
	maxVertexInputAttributeOffset                   uint32
	maxVertexInputBindingStride                     uint32
	maxVertexOutputComponents                       uint32
	maxTessellationGenerationLevel                  uint32
	maxTessellationPatchSize                        uint32
	maxTessellationControlPerVertexInputComponents  uint32
	maxTessellationControlPerVertexOutputComponents uint32
	maxTessellationControlPerPatchOutputComponents  uint32
	maxTessellationControlTotalOutputComponents     uint32
	maxTessellationEvaluationInputComponents        uint32
	maxTessellationEvaluationOutputComponents       uint32
	maxGeometryShaderInvocations                    uint32
	maxGeometryInputComponents                      uint32
	maxGeometryOutputComponents                     uint32
	maxGeometryOutputVertices                       uint32
	maxGeometryTotalOutputComponents                uint32
	maxFragmentInputComponents                      uint32
	maxFragmentOutputAttachments                    uint32
	maxFragmentDualSrcAttachments                   uint32
	maxFragmentCombinedOutputResources              uint32
	maxComputeSharedMemorySize                      uint32
	maxComputeWorkGroupCount                        [3]uint32
	maxComputeWorkGroupInvocations                  uint32
	maxComputeWorkGroupSize                         [3]uint32
	subPixelPrecisionBits                           uint32
	subTexelPrecisionBits                           uint32
	mipmapPrecisionBits                             uint32
	maxDrawIndexedIndexValue                        uint32
	maxDrawIndirectCount                            uint32
	maxSamplerLodBias                               float32
	maxSamplerAnisotropy                            float32
	maxViewports                                    uint32
	maxViewportDimensions                           [2]uint32
	viewportBoundsRange                             [2]float32
	viewportSubPixelBits                            uint32
	minMemoryMapAlignment                           uintptr // size_t
	minTexelBufferOffsetAlignment                   uint64
	minUniformBufferOffsetAlignment                 uint64
	minStorageBufferOffsetAlignment                 uint64
	minTexelOffset                                  int32
	maxTexelOffset                                  uint32
	minTexelGatherOffset                            int32
	maxTexelGatherOffset                            uint32
	minInterpolationOffset                          float32
	maxInterpolationOffset                          float32
	subPixelInterpolationOffsetBits                 uint32
	maxFramebufferWidth                             uint32
	maxFramebufferHeight                            uint32
	maxFramebufferLayers                            uint32
	framebufferColorSampleCounts                    uint32
	framebufferDepthSampleCounts                    uint32
	framebufferStencilSampleCounts                  uint32
	framebufferNoAttachmentsSampleCounts            uint32
	maxColorAttachments                             uint32
	sampledImageColorSampleCounts                   uint32
	sampledImageIntegerSampleCounts                 uint32
	sampledImageDepthSampleCounts                   uint32
	sampledImageStencilSampleCounts                 uint32
	storageImageSampleCounts                        uint32
	maxSampleMaskWords                              uint32
	timestampComputeAndGraphics                     uint32
	timestampPeriod                                 float32
	maxClipDistances                                uint32
	maxCullDistances                                uint32
	maxCombinedClipAndCullDistances                 uint32
	discreteQueuePriorities                         uint32
	pointSizeRange                                  [2]float32
	lineWidthRange                                  [2]float32
	pointSizeGranularity                            float32
	lineWidthGranularity                            float32
	strictLines                                     uint32
	standardSampleLocations                         uint32
	optimalBufferCopyOffsetAlignment                uint64
	optimalBufferCopyRowPitchAlignment              uint64
	nonCoherentAtomSize                             uint64
}

// VkPhysicalDeviceSparseProperties (20 bytes: five VkBool32).
type physicalDeviceSparseProperties struct {
	residencyStandard2DBlockShape            uint32
	residencyStandard2DMultisampleBlockShape uint32
	residencyStandard3DBlockShape            uint32
	residencyAlignedMipSize                  uint32
	residencyNonResidentStrict               uint32
}

// VkPhysicalDeviceProperties (824 bytes; limits at 296).
type physicalDeviceProperties struct {
	apiVersion        uint32
	driverVersion     uint32
	vendorID          uint32
	deviceID          uint32
	deviceType        uint32
	deviceName        [maxPhysicalDeviceNameSize]byte
	pipelineCacheUUID [uuidSize]byte
	limits            physicalDeviceLimits
	sparseProperties  physicalDeviceSparseProperties
}

// VkPhysicalDeviceProperties2 (840 bytes).
type physicalDeviceProperties2 struct {
	sType      uint32
	pNext      unsafe.Pointer
	properties physicalDeviceProperties
}

// VkPhysicalDeviceIDProperties (64 bytes), core in Vulkan 1.1.
type physicalDeviceIDProperties struct {
	sType           uint32
	pNext           unsafe.Pointer
	deviceUUID      [uuidSize]byte
	driverUUID      [uuidSize]byte
	deviceLUID      [luidSize]byte
	deviceNodeMask  uint32
	deviceLUIDValid uint32
}

// VkPhysicalDeviceDriverProperties (536 bytes), core in Vulkan 1.2 and
// VK_KHR_driver_properties before it.
type physicalDeviceDriverProperties struct {
	sType              uint32
	pNext              unsafe.Pointer
	driverID           uint32
	driverName         [maxDriverNameSize]byte
	driverInfo         [maxDriverInfoSize]byte
	conformanceVersion [4]uint8 // VkConformanceVersion: major, minor, subminor, patch
}

// VkPhysicalDeviceSubgroupProperties (32 bytes), core in Vulkan 1.1.
type physicalDeviceSubgroupProperties struct {
	sType                     uint32
	pNext                     unsafe.Pointer
	subgroupSize              uint32
	supportedStages           uint32
	supportedOperations       uint32
	quadOperationsInAllStages uint32
}

// VkPhysicalDeviceFeatures2 (240 bytes). The VkPhysicalDeviceFeatures
// member is 55 VkBool32s; the driver reads none of them, so it is an array.
type physicalDeviceFeatures2 struct {
	sType    uint32
	pNext    unsafe.Pointer
	features [55]uint32
}

// VkPhysicalDeviceBufferDeviceAddressFeatures (32 bytes), core in Vulkan
// 1.2 and VK_KHR_buffer_device_address before it.
type physicalDeviceBufferDeviceAddressFeatures struct {
	sType                            uint32
	pNext                            unsafe.Pointer
	bufferDeviceAddress              uint32
	bufferDeviceAddressCaptureReplay uint32
	bufferDeviceAddressMultiDevice   uint32
}

// VkExtent3D (12 bytes).
type extent3D struct {
	width, height, depth uint32
}

// VkQueueFamilyProperties (24 bytes).
type queueFamilyProperties struct {
	queueFlags                  uint32
	queueCount                  uint32
	timestampValidBits          uint32
	minImageTransferGranularity extent3D
}

// VkMemoryType (8 bytes).
type memoryType struct {
	propertyFlags uint32
	heapIndex     uint32
}

// VkMemoryHeap (16 bytes).
type memoryHeap struct {
	size  uint64
	flags uint32
}

// VkPhysicalDeviceMemoryProperties (520 bytes; heaps at 264).
type physicalDeviceMemoryProperties struct {
	memoryTypeCount uint32
	memoryTypes     [maxMemoryTypes]memoryType
	memoryHeapCount uint32
	memoryHeaps     [maxMemoryHeaps]memoryHeap
}

// VkDeviceQueueCreateInfo (40 bytes).
type deviceQueueCreateInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
	queueCount       uint32
	pQueuePriorities unsafe.Pointer // const float*
}

// VkDeviceCreateInfo (72 bytes).
type deviceCreateInfo struct {
	sType                   uint32
	pNext                   unsafe.Pointer
	flags                   uint32
	queueCreateInfoCount    uint32
	pQueueCreateInfos       unsafe.Pointer
	enabledLayerCount       uint32
	ppEnabledLayerNames     unsafe.Pointer
	enabledExtensionCount   uint32
	ppEnabledExtensionNames unsafe.Pointer
	pEnabledFeatures        unsafe.Pointer
}
