package vulkan

import "unsafe"

// Go mirrors of the feature and property structs the driver chains into
// vkGetPhysicalDeviceFeatures2, vkGetPhysicalDeviceProperties2 and
// vkCreateDevice (see structs.go for the conventions; structs_test.go
// checks the layouts).

// Structure types of the feature and property structs.
const (
	sTypePhysicalDevice16BitStorageFeatures          = 1000083000
	sTypePhysicalDevice8BitStorageFeatures           = 1000177000
	sTypePhysicalDeviceShaderFloat16Int8Features     = 1000082000
	sTypePhysicalDeviceTimelineSemaphoreFeatures     = 1000207000
	sTypePhysicalDeviceSubgroupSizeControlFeatures   = 1000225002
	sTypePhysicalDeviceSubgroupSizeControlProperties = 1000225000
	sTypePhysicalDeviceShaderAtomicInt64Features     = 1000180000
	sTypePhysicalDeviceVariablePointersFeatures      = 1000120000
	sTypePhysicalDevicePushDescriptorProperties      = 1000080000
	sTypePhysicalDeviceExternalMemoryHostProperties  = 1000178002
	sTypePhysicalDeviceMaintenance3Properties        = 1000168000
)

// Indices of the VkPhysicalDeviceFeatures members the driver enables
// (VkBool32s in header order).
const (
	featureShaderFloat64 = 39
	featureShaderInt64   = 40
	featureShaderInt16   = 41
)

// VkPhysicalDevice16BitStorageFeatures (32 bytes), core in Vulkan 1.1.
type physicalDevice16BitStorageFeatures struct {
	sType                              uint32
	pNext                              unsafe.Pointer
	storageBuffer16BitAccess           uint32
	uniformAndStorageBuffer16BitAccess uint32
	storagePushConstant16              uint32
	storageInputOutput16               uint32
}

// VkPhysicalDevice8BitStorageFeatures (32 bytes), core in Vulkan 1.2 and
// VK_KHR_8bit_storage before it.
type physicalDevice8BitStorageFeatures struct {
	sType                             uint32
	pNext                             unsafe.Pointer
	storageBuffer8BitAccess           uint32
	uniformAndStorageBuffer8BitAccess uint32
	storagePushConstant8              uint32
}

// VkPhysicalDeviceShaderFloat16Int8Features (24 bytes), core in Vulkan 1.2
// and VK_KHR_shader_float16_int8 before it.
type physicalDeviceShaderFloat16Int8Features struct {
	sType         uint32
	pNext         unsafe.Pointer
	shaderFloat16 uint32
	shaderInt8    uint32
}

// VkPhysicalDeviceTimelineSemaphoreFeatures (24 bytes), core in Vulkan 1.2
// and VK_KHR_timeline_semaphore before it.
type physicalDeviceTimelineSemaphoreFeatures struct {
	sType             uint32
	pNext             unsafe.Pointer
	timelineSemaphore uint32
}

// VkPhysicalDeviceSubgroupSizeControlFeatures (24 bytes), core in Vulkan
// 1.3 and VK_EXT_subgroup_size_control before it.
type physicalDeviceSubgroupSizeControlFeatures struct {
	sType                uint32
	pNext                unsafe.Pointer
	subgroupSizeControl  uint32
	computeFullSubgroups uint32
}

// VkPhysicalDeviceSubgroupSizeControlProperties (32 bytes).
type physicalDeviceSubgroupSizeControlProperties struct {
	sType                        uint32
	pNext                        unsafe.Pointer
	minSubgroupSize              uint32
	maxSubgroupSize              uint32
	maxComputeWorkgroupSubgroups uint32
	requiredSubgroupSizeStages   uint32
}

// VkPhysicalDeviceShaderAtomicInt64Features (24 bytes), core in Vulkan 1.2
// and VK_KHR_shader_atomic_int64 before it.
type physicalDeviceShaderAtomicInt64Features struct {
	sType                    uint32
	pNext                    unsafe.Pointer
	shaderBufferInt64Atomics uint32
	shaderSharedInt64Atomics uint32
}

// VkPhysicalDeviceVariablePointersFeatures (24 bytes), core in Vulkan 1.1.
type physicalDeviceVariablePointersFeatures struct {
	sType                         uint32
	pNext                         unsafe.Pointer
	variablePointersStorageBuffer uint32
	variablePointers              uint32
}

// VkPhysicalDevicePushDescriptorPropertiesKHR (24 bytes).
type physicalDevicePushDescriptorProperties struct {
	sType              uint32
	pNext              unsafe.Pointer
	maxPushDescriptors uint32
}

// VkPhysicalDeviceExternalMemoryHostPropertiesEXT (24 bytes).
type physicalDeviceExternalMemoryHostProperties struct {
	sType                           uint32
	pNext                           unsafe.Pointer
	minImportedHostPointerAlignment uint64
}

// VkPhysicalDeviceMaintenance3Properties (32 bytes), core in Vulkan 1.1.
type physicalDeviceMaintenance3Properties struct {
	sType                   uint32
	pNext                   unsafe.Pointer
	maxPerSetDescriptors    uint32
	maxMemoryAllocationSize uint64
}
