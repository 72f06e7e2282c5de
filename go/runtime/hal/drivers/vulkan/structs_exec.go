package vulkan

import "unsafe"

// Go mirrors of the structs of memory, synchronization, command buffers,
// pipelines and descriptors (see structs.go for the conventions;
// structs_test.go checks the layouts). Non-dispatchable handles (VkBuffer,
// VkDeviceMemory, VkSemaphore, …) are uint64; VkCommandBuffer is a
// dispatchable handle (uintptr).

// Structure types.
const (
	sTypeSubmitInfo                          = 4
	sTypeMemoryAllocateInfo                  = 5
	sTypeFenceCreateInfo                     = 8
	sTypeSemaphoreCreateInfo                 = 9
	sTypeBufferCreateInfo                    = 12
	sTypeShaderModuleCreateInfo              = 16
	sTypePipelineCacheCreateInfo             = 17
	sTypePipelineShaderStageCreateInfo       = 18
	sTypeComputePipelineCreateInfo           = 29
	sTypePipelineLayoutCreateInfo            = 30
	sTypeDescriptorSetLayoutCreateInfo       = 32
	sTypeDescriptorPoolCreateInfo            = 33
	sTypeDescriptorSetAllocateInfo           = 34
	sTypeWriteDescriptorSet                  = 35
	sTypeCommandPoolCreateInfo               = 39
	sTypeCommandBufferAllocateInfo           = 40
	sTypeCommandBufferBeginInfo              = 42
	sTypeMemoryBarrier                       = 46
	sTypeMemoryAllocateFlagsInfo             = 1000060000
	sTypeExternalMemoryBufferCreateInfo      = 1000072000
	sTypeImportMemoryHostPointerInfo         = 1000178000
	sTypeMemoryHostPointerProperties         = 1000178001
	sTypeSemaphoreTypeCreateInfo             = 1000207002
	sTypeTimelineSemaphoreSubmitInfo         = 1000207003
	sTypeSemaphoreWaitInfo                   = 1000207004
	sTypeSemaphoreSignalInfo                 = 1000207005
	sTypeRequiredSubgroupSizeCreateInfo      = 1000225001
	sTypeDebugUtilsMessengerCreateInfo       = 1000128004
	sTypeDebugUtilsMessengerCallbackDataInfo = 1000128003
)

// VkBufferCreateInfo (56 bytes).
type bufferCreateInfo struct {
	sType                 uint32
	pNext                 unsafe.Pointer
	flags                 uint32
	size                  uint64
	usage                 uint32
	sharingMode           uint32
	queueFamilyIndexCount uint32
	pQueueFamilyIndices   unsafe.Pointer
}

// VkMemoryRequirements (24 bytes).
type memoryRequirements struct {
	size           uint64
	alignment      uint64
	memoryTypeBits uint32
}

// VkMemoryAllocateInfo (32 bytes).
type memoryAllocateInfo struct {
	sType           uint32
	pNext           unsafe.Pointer
	allocationSize  uint64
	memoryTypeIndex uint32
}

// VkMemoryAllocateFlagsInfo (24 bytes).
type memoryAllocateFlagsInfo struct {
	sType      uint32
	pNext      unsafe.Pointer
	flags      uint32
	deviceMask uint32
}

// VkExternalMemoryBufferCreateInfo (24 bytes).
type externalMemoryBufferCreateInfo struct {
	sType       uint32
	pNext       unsafe.Pointer
	handleTypes uint32
}

// VkImportMemoryHostPointerInfoEXT (32 bytes).
type importMemoryHostPointerInfo struct {
	sType        uint32
	pNext        unsafe.Pointer
	handleType   uint32
	pHostPointer uintptr // host memory, not a Go pointer: the range imported may start before a Go object
}

// VkMemoryHostPointerPropertiesEXT (24 bytes).
type memoryHostPointerProperties struct {
	sType          uint32
	pNext          unsafe.Pointer
	memoryTypeBits uint32
}

// VkSemaphoreCreateInfo and VkFenceCreateInfo (24 bytes each).
type semaphoreCreateInfo struct {
	sType uint32
	pNext unsafe.Pointer
	flags uint32
}

type fenceCreateInfo = semaphoreCreateInfo

// VkSemaphoreTypeCreateInfo (32 bytes).
type semaphoreTypeCreateInfo struct {
	sType         uint32
	pNext         unsafe.Pointer
	semaphoreType uint32
	initialValue  uint64
}

// VkSemaphoreSignalInfo (32 bytes).
type semaphoreSignalInfo struct {
	sType     uint32
	pNext     unsafe.Pointer
	semaphore uint64
	value     uint64
}

// VkSemaphoreWaitInfo (40 bytes).
type semaphoreWaitInfo struct {
	sType          uint32
	pNext          unsafe.Pointer
	flags          uint32
	semaphoreCount uint32
	pSemaphores    unsafe.Pointer
	pValues        unsafe.Pointer
}

// VkTimelineSemaphoreSubmitInfo (48 bytes).
type timelineSemaphoreSubmitInfo struct {
	sType                     uint32
	pNext                     unsafe.Pointer
	waitSemaphoreValueCount   uint32
	pWaitSemaphoreValues      unsafe.Pointer
	signalSemaphoreValueCount uint32
	pSignalSemaphoreValues    unsafe.Pointer
}

// VkSubmitInfo (72 bytes).
type submitInfo struct {
	sType                uint32
	pNext                unsafe.Pointer
	waitSemaphoreCount   uint32
	pWaitSemaphores      unsafe.Pointer
	pWaitDstStageMask    unsafe.Pointer
	commandBufferCount   uint32
	pCommandBuffers      unsafe.Pointer
	signalSemaphoreCount uint32
	pSignalSemaphores    unsafe.Pointer
}

// VkCommandPoolCreateInfo (24 bytes).
type commandPoolCreateInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
}

// VkCommandBufferAllocateInfo (32 bytes).
type commandBufferAllocateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	commandPool        uint64
	level              uint32
	commandBufferCount uint32
}

// VkCommandBufferBeginInfo (32 bytes).
type commandBufferBeginInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	pInheritanceInfo unsafe.Pointer
}

// VkMemoryBarrier (24 bytes).
type memoryBarrier struct {
	sType         uint32
	pNext         unsafe.Pointer
	srcAccessMask uint32
	dstAccessMask uint32
}

// VkBufferCopy (24 bytes).
type bufferCopy struct {
	srcOffset, dstOffset, size uint64
}

// VkShaderModuleCreateInfo (40 bytes).
type shaderModuleCreateInfo struct {
	sType    uint32
	pNext    unsafe.Pointer
	flags    uint32
	codeSize uintptr // size_t
	pCode    unsafe.Pointer
}

// VkPipelineCacheCreateInfo (40 bytes).
type pipelineCacheCreateInfo struct {
	sType           uint32
	pNext           unsafe.Pointer
	flags           uint32
	initialDataSize uintptr // size_t
	pInitialData    unsafe.Pointer
}

// VkDescriptorSetLayoutBinding (24 bytes).
type descriptorSetLayoutBinding struct {
	binding            uint32
	descriptorType     uint32
	descriptorCount    uint32
	stageFlags         uint32
	pImmutableSamplers unsafe.Pointer
}

// VkDescriptorSetLayoutCreateInfo (32 bytes).
type descriptorSetLayoutCreateInfo struct {
	sType        uint32
	pNext        unsafe.Pointer
	flags        uint32
	bindingCount uint32
	pBindings    unsafe.Pointer
}

// VkPushConstantRange (12 bytes).
type pushConstantRange struct {
	stageFlags, offset, size uint32
}

// VkPipelineLayoutCreateInfo (48 bytes).
type pipelineLayoutCreateInfo struct {
	sType                  uint32
	pNext                  unsafe.Pointer
	flags                  uint32
	setLayoutCount         uint32
	pSetLayouts            unsafe.Pointer
	pushConstantRangeCount uint32
	pPushConstantRanges    unsafe.Pointer
}

// VkPipelineShaderStageCreateInfo (48 bytes).
type pipelineShaderStageCreateInfo struct {
	sType               uint32
	pNext               unsafe.Pointer
	flags               uint32
	stage               uint32
	module              uint64
	pName               unsafe.Pointer
	pSpecializationInfo unsafe.Pointer
}

// VkComputePipelineCreateInfo (96 bytes).
type computePipelineCreateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	flags              uint32
	stage              pipelineShaderStageCreateInfo
	layout             uint64
	basePipelineHandle uint64
	basePipelineIndex  int32
}

// VkPipelineShaderStageRequiredSubgroupSizeCreateInfo (24 bytes).
type requiredSubgroupSizeCreateInfo struct {
	sType                uint32
	pNext                unsafe.Pointer
	requiredSubgroupSize uint32
}

// VkDescriptorPoolSize (8 bytes).
type descriptorPoolSize struct {
	typ             uint32
	descriptorCount uint32
}

// VkDescriptorPoolCreateInfo (40 bytes).
type descriptorPoolCreateInfo struct {
	sType         uint32
	pNext         unsafe.Pointer
	flags         uint32
	maxSets       uint32
	poolSizeCount uint32
	pPoolSizes    unsafe.Pointer
}

// VkDescriptorSetAllocateInfo (40 bytes).
type descriptorSetAllocateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	descriptorPool     uint64
	descriptorSetCount uint32
	pSetLayouts        unsafe.Pointer
}

// VkDescriptorBufferInfo (24 bytes).
type descriptorBufferInfo struct {
	buffer, offset, rng uint64
}

// VkWriteDescriptorSet (64 bytes).
type writeDescriptorSet struct {
	sType            uint32
	pNext            unsafe.Pointer
	dstSet           uint64
	dstBinding       uint32
	dstArrayElement  uint32
	descriptorCount  uint32
	descriptorType   uint32
	pImageInfo       unsafe.Pointer
	pBufferInfo      unsafe.Pointer
	pTexelBufferView unsafe.Pointer
}

// VkDebugUtilsMessengerCreateInfoEXT (48 bytes).
type debugUtilsMessengerCreateInfo struct {
	sType           uint32
	pNext           unsafe.Pointer
	flags           uint32
	messageSeverity uint32
	messageType     uint32
	pfnUserCallback uintptr
	pUserData       uintptr
}

// The head of VkDebugUtilsMessengerCallbackDataEXT: the driver reads the
// message id name, number and text (C memory owned by the caller).
type debugUtilsMessengerCallbackData struct {
	sType           uint32
	pNext           unsafe.Pointer
	flags           uint32
	pMessageIdName  *byte
	messageIdNumber int32
	pMessage        *byte
}
