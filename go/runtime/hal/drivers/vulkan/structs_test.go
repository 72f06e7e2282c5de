package vulkan

import (
	"testing"
	"unsafe"
)

// The expected sizes and offsets are what gcc reports for vulkan_core.h
// (Vulkan-Headers 1.3.239) on x86-64 and arm64 (offsetof/sizeof).
func TestStructLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the struct mirrors are laid out for 64-bit targets")
	}
	sizes := []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"VkApplicationInfo", unsafe.Sizeof(applicationInfo{}), 48},
		{"VkInstanceCreateInfo", unsafe.Sizeof(instanceCreateInfo{}), 64},
		{"VkLayerProperties", unsafe.Sizeof(layerProperties{}), 520},
		{"VkExtensionProperties", unsafe.Sizeof(extensionProperties{}), 260},
		{"VkPhysicalDeviceLimits", unsafe.Sizeof(physicalDeviceLimits{}), 504},
		{"VkPhysicalDeviceSparseProperties", unsafe.Sizeof(physicalDeviceSparseProperties{}), 20},
		{"VkPhysicalDeviceProperties", unsafe.Sizeof(physicalDeviceProperties{}), 824},
		{"VkPhysicalDeviceProperties2", unsafe.Sizeof(physicalDeviceProperties2{}), 840},
		{"VkPhysicalDeviceIDProperties", unsafe.Sizeof(physicalDeviceIDProperties{}), 64},
		{"VkPhysicalDeviceDriverProperties", unsafe.Sizeof(physicalDeviceDriverProperties{}), 536},
		{"VkPhysicalDeviceSubgroupProperties", unsafe.Sizeof(physicalDeviceSubgroupProperties{}), 32},
		{"VkPhysicalDeviceFeatures2", unsafe.Sizeof(physicalDeviceFeatures2{}), 240},
		{"VkPhysicalDeviceBufferDeviceAddressFeatures", unsafe.Sizeof(physicalDeviceBufferDeviceAddressFeatures{}), 32},
		{"VkQueueFamilyProperties", unsafe.Sizeof(queueFamilyProperties{}), 24},
		{"VkMemoryType", unsafe.Sizeof(memoryType{}), 8},
		{"VkMemoryHeap", unsafe.Sizeof(memoryHeap{}), 16},
		{"VkPhysicalDeviceMemoryProperties", unsafe.Sizeof(physicalDeviceMemoryProperties{}), 520},
		{"VkDeviceQueueCreateInfo", unsafe.Sizeof(deviceQueueCreateInfo{}), 40},
		{"VkDeviceCreateInfo", unsafe.Sizeof(deviceCreateInfo{}), 72},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, want %d", s.name, s.got, s.want)
		}
	}
	var app applicationInfo
	var ici instanceCreateInfo
	var lim physicalDeviceLimits
	var props physicalDeviceProperties
	var props2 physicalDeviceProperties2
	var id physicalDeviceIDProperties
	var drv physicalDeviceDriverProperties
	var sub physicalDeviceSubgroupProperties
	var qf queueFamilyProperties
	var mem physicalDeviceMemoryProperties
	var lp layerProperties
	var bda physicalDeviceBufferDeviceAddressFeatures
	var qci deviceQueueCreateInfo
	var dci deviceCreateInfo
	offsets := []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"VkApplicationInfo.apiVersion", unsafe.Offsetof(app.apiVersion), 44},
		{"VkInstanceCreateInfo.pApplicationInfo", unsafe.Offsetof(ici.pApplicationInfo), 24},
		{"VkInstanceCreateInfo.ppEnabledExtensionNames", unsafe.Offsetof(ici.ppEnabledExtensionNames), 56},
		{"VkLayerProperties.description", unsafe.Offsetof(lp.description), 264},
		{"VkPhysicalDeviceLimits.maxStorageBufferRange", unsafe.Offsetof(lim.maxStorageBufferRange), 28},
		{"VkPhysicalDeviceLimits.maxPushConstantsSize", unsafe.Offsetof(lim.maxPushConstantsSize), 32},
		{"VkPhysicalDeviceLimits.bufferImageGranularity", unsafe.Offsetof(lim.bufferImageGranularity), 48},
		{"VkPhysicalDeviceLimits.maxBoundDescriptorSets", unsafe.Offsetof(lim.maxBoundDescriptorSets), 64},
		{"VkPhysicalDeviceLimits.maxComputeSharedMemorySize", unsafe.Offsetof(lim.maxComputeSharedMemorySize), 216},
		{"VkPhysicalDeviceLimits.maxComputeWorkGroupCount", unsafe.Offsetof(lim.maxComputeWorkGroupCount), 220},
		{"VkPhysicalDeviceLimits.maxComputeWorkGroupInvocations", unsafe.Offsetof(lim.maxComputeWorkGroupInvocations), 232},
		{"VkPhysicalDeviceLimits.maxComputeWorkGroupSize", unsafe.Offsetof(lim.maxComputeWorkGroupSize), 236},
		{"VkPhysicalDeviceLimits.viewportSubPixelBits", unsafe.Offsetof(lim.viewportSubPixelBits), 296},
		{"VkPhysicalDeviceLimits.minMemoryMapAlignment", unsafe.Offsetof(lim.minMemoryMapAlignment), 304},
		{"VkPhysicalDeviceLimits.minTexelBufferOffsetAlignment", unsafe.Offsetof(lim.minTexelBufferOffsetAlignment), 312},
		{"VkPhysicalDeviceLimits.minStorageBufferOffsetAlignment", unsafe.Offsetof(lim.minStorageBufferOffsetAlignment), 328},
		{"VkPhysicalDeviceLimits.minTexelOffset", unsafe.Offsetof(lim.minTexelOffset), 336},
		{"VkPhysicalDeviceLimits.timestampPeriod", unsafe.Offsetof(lim.timestampPeriod), 424},
		{"VkPhysicalDeviceLimits.optimalBufferCopyOffsetAlignment", unsafe.Offsetof(lim.optimalBufferCopyOffsetAlignment), 480},
		{"VkPhysicalDeviceLimits.nonCoherentAtomSize", unsafe.Offsetof(lim.nonCoherentAtomSize), 496},
		{"VkPhysicalDeviceProperties.deviceType", unsafe.Offsetof(props.deviceType), 16},
		{"VkPhysicalDeviceProperties.deviceName", unsafe.Offsetof(props.deviceName), 20},
		{"VkPhysicalDeviceProperties.pipelineCacheUUID", unsafe.Offsetof(props.pipelineCacheUUID), 276},
		{"VkPhysicalDeviceProperties.limits", unsafe.Offsetof(props.limits), 296},
		{"VkPhysicalDeviceProperties.sparseProperties", unsafe.Offsetof(props.sparseProperties), 800},
		{"VkPhysicalDeviceProperties2.properties", unsafe.Offsetof(props2.properties), 16},
		{"VkPhysicalDeviceIDProperties.deviceUUID", unsafe.Offsetof(id.deviceUUID), 16},
		{"VkPhysicalDeviceIDProperties.driverUUID", unsafe.Offsetof(id.driverUUID), 32},
		{"VkPhysicalDeviceIDProperties.deviceLUID", unsafe.Offsetof(id.deviceLUID), 48},
		{"VkPhysicalDeviceIDProperties.deviceNodeMask", unsafe.Offsetof(id.deviceNodeMask), 56},
		{"VkPhysicalDeviceIDProperties.deviceLUIDValid", unsafe.Offsetof(id.deviceLUIDValid), 60},
		{"VkPhysicalDeviceDriverProperties.driverID", unsafe.Offsetof(drv.driverID), 16},
		{"VkPhysicalDeviceDriverProperties.driverName", unsafe.Offsetof(drv.driverName), 20},
		{"VkPhysicalDeviceDriverProperties.driverInfo", unsafe.Offsetof(drv.driverInfo), 276},
		{"VkPhysicalDeviceDriverProperties.conformanceVersion", unsafe.Offsetof(drv.conformanceVersion), 532},
		{"VkPhysicalDeviceSubgroupProperties.subgroupSize", unsafe.Offsetof(sub.subgroupSize), 16},
		{"VkPhysicalDeviceSubgroupProperties.supportedStages", unsafe.Offsetof(sub.supportedStages), 20},
		{"VkPhysicalDeviceSubgroupProperties.supportedOperations", unsafe.Offsetof(sub.supportedOperations), 24},
		{"VkPhysicalDeviceSubgroupProperties.quadOperationsInAllStages", unsafe.Offsetof(sub.quadOperationsInAllStages), 28},
		{"VkPhysicalDeviceBufferDeviceAddressFeatures.bufferDeviceAddress", unsafe.Offsetof(bda.bufferDeviceAddress), 16},
		{"VkQueueFamilyProperties.timestampValidBits", unsafe.Offsetof(qf.timestampValidBits), 8},
		{"VkQueueFamilyProperties.minImageTransferGranularity", unsafe.Offsetof(qf.minImageTransferGranularity), 12},
		{"VkPhysicalDeviceMemoryProperties.memoryTypes", unsafe.Offsetof(mem.memoryTypes), 4},
		{"VkPhysicalDeviceMemoryProperties.memoryHeapCount", unsafe.Offsetof(mem.memoryHeapCount), 260},
		{"VkPhysicalDeviceMemoryProperties.memoryHeaps", unsafe.Offsetof(mem.memoryHeaps), 264},
		{"VkDeviceQueueCreateInfo.queueFamilyIndex", unsafe.Offsetof(qci.queueFamilyIndex), 20},
		{"VkDeviceQueueCreateInfo.pQueuePriorities", unsafe.Offsetof(qci.pQueuePriorities), 32},
		{"VkDeviceCreateInfo.pQueueCreateInfos", unsafe.Offsetof(dci.pQueueCreateInfos), 24},
		{"VkDeviceCreateInfo.enabledLayerCount", unsafe.Offsetof(dci.enabledLayerCount), 32},
		{"VkDeviceCreateInfo.ppEnabledLayerNames", unsafe.Offsetof(dci.ppEnabledLayerNames), 40},
		{"VkDeviceCreateInfo.enabledExtensionCount", unsafe.Offsetof(dci.enabledExtensionCount), 48},
		{"VkDeviceCreateInfo.ppEnabledExtensionNames", unsafe.Offsetof(dci.ppEnabledExtensionNames), 56},
		{"VkDeviceCreateInfo.pEnabledFeatures", unsafe.Offsetof(dci.pEnabledFeatures), 64},
	}
	for _, o := range offsets {
		if o.got != o.want {
			t.Errorf("offsetof(%s) = %d, want %d", o.name, o.got, o.want)
		}
	}
}
