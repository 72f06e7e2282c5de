package vulkan

import (
	"testing"
	"unsafe"
)

// The sizes and offsets gcc reports for vulkan_core.h (Vulkan-Headers
// 1.3.239) on x86-64 and arm64, for the structs of device features,
// memory, synchronization, command buffers and pipelines.
func TestExecStructLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the struct mirrors are laid out for 64-bit targets")
	}
	for _, s := range []struct {
		name      string
		got, want uintptr
	}{
		{"VkPhysicalDevice16BitStorageFeatures", unsafe.Sizeof(physicalDevice16BitStorageFeatures{}), 32},
		{"VkPhysicalDevice8BitStorageFeatures", unsafe.Sizeof(physicalDevice8BitStorageFeatures{}), 32},
		{"VkPhysicalDeviceShaderFloat16Int8Features", unsafe.Sizeof(physicalDeviceShaderFloat16Int8Features{}), 24},
		{"VkPhysicalDeviceTimelineSemaphoreFeatures", unsafe.Sizeof(physicalDeviceTimelineSemaphoreFeatures{}), 24},
		{"VkPhysicalDeviceSubgroupSizeControlFeatures", unsafe.Sizeof(physicalDeviceSubgroupSizeControlFeatures{}), 24},
		{"VkPhysicalDeviceSubgroupSizeControlProperties", unsafe.Sizeof(physicalDeviceSubgroupSizeControlProperties{}), 32},
		{"VkPhysicalDeviceShaderAtomicInt64Features", unsafe.Sizeof(physicalDeviceShaderAtomicInt64Features{}), 24},
		{"VkPhysicalDeviceVariablePointersFeatures", unsafe.Sizeof(physicalDeviceVariablePointersFeatures{}), 24},
		{"VkPhysicalDevicePushDescriptorPropertiesKHR", unsafe.Sizeof(physicalDevicePushDescriptorProperties{}), 24},
		{"VkPhysicalDeviceExternalMemoryHostPropertiesEXT", unsafe.Sizeof(physicalDeviceExternalMemoryHostProperties{}), 24},
		{"VkPhysicalDeviceMaintenance3Properties", unsafe.Sizeof(physicalDeviceMaintenance3Properties{}), 32},
		{"VkBufferCreateInfo", unsafe.Sizeof(bufferCreateInfo{}), 56},
		{"VkMemoryRequirements", unsafe.Sizeof(memoryRequirements{}), 24},
		{"VkMemoryAllocateInfo", unsafe.Sizeof(memoryAllocateInfo{}), 32},
		{"VkMemoryAllocateFlagsInfo", unsafe.Sizeof(memoryAllocateFlagsInfo{}), 24},
		{"VkExternalMemoryBufferCreateInfo", unsafe.Sizeof(externalMemoryBufferCreateInfo{}), 24},
		{"VkImportMemoryHostPointerInfoEXT", unsafe.Sizeof(importMemoryHostPointerInfo{}), 32},
		{"VkMemoryHostPointerPropertiesEXT", unsafe.Sizeof(memoryHostPointerProperties{}), 24},
		{"VkSemaphoreCreateInfo", unsafe.Sizeof(semaphoreCreateInfo{}), 24},
		{"VkSemaphoreTypeCreateInfo", unsafe.Sizeof(semaphoreTypeCreateInfo{}), 32},
		{"VkSemaphoreSignalInfo", unsafe.Sizeof(semaphoreSignalInfo{}), 32},
		{"VkSemaphoreWaitInfo", unsafe.Sizeof(semaphoreWaitInfo{}), 40},
		{"VkTimelineSemaphoreSubmitInfo", unsafe.Sizeof(timelineSemaphoreSubmitInfo{}), 48},
		{"VkSubmitInfo", unsafe.Sizeof(submitInfo{}), 72},
		{"VkCommandPoolCreateInfo", unsafe.Sizeof(commandPoolCreateInfo{}), 24},
		{"VkCommandBufferAllocateInfo", unsafe.Sizeof(commandBufferAllocateInfo{}), 32},
		{"VkCommandBufferBeginInfo", unsafe.Sizeof(commandBufferBeginInfo{}), 32},
		{"VkMemoryBarrier", unsafe.Sizeof(memoryBarrier{}), 24},
		{"VkBufferCopy", unsafe.Sizeof(bufferCopy{}), 24},
		{"VkShaderModuleCreateInfo", unsafe.Sizeof(shaderModuleCreateInfo{}), 40},
		{"VkPipelineCacheCreateInfo", unsafe.Sizeof(pipelineCacheCreateInfo{}), 40},
		{"VkDescriptorSetLayoutBinding", unsafe.Sizeof(descriptorSetLayoutBinding{}), 24},
		{"VkDescriptorSetLayoutCreateInfo", unsafe.Sizeof(descriptorSetLayoutCreateInfo{}), 32},
		{"VkPushConstantRange", unsafe.Sizeof(pushConstantRange{}), 12},
		{"VkPipelineLayoutCreateInfo", unsafe.Sizeof(pipelineLayoutCreateInfo{}), 48},
		{"VkPipelineShaderStageCreateInfo", unsafe.Sizeof(pipelineShaderStageCreateInfo{}), 48},
		{"VkComputePipelineCreateInfo", unsafe.Sizeof(computePipelineCreateInfo{}), 96},
		{"VkPipelineShaderStageRequiredSubgroupSizeCreateInfo", unsafe.Sizeof(requiredSubgroupSizeCreateInfo{}), 24},
		{"VkDescriptorPoolSize", unsafe.Sizeof(descriptorPoolSize{}), 8},
		{"VkDescriptorPoolCreateInfo", unsafe.Sizeof(descriptorPoolCreateInfo{}), 40},
		{"VkDescriptorSetAllocateInfo", unsafe.Sizeof(descriptorSetAllocateInfo{}), 40},
		{"VkDescriptorBufferInfo", unsafe.Sizeof(descriptorBufferInfo{}), 24},
		{"VkWriteDescriptorSet", unsafe.Sizeof(writeDescriptorSet{}), 64},
		{"VkDebugUtilsMessengerCreateInfoEXT", unsafe.Sizeof(debugUtilsMessengerCreateInfo{}), 48},
	} {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, want %d", s.name, s.got, s.want)
		}
	}
	var (
		bci  bufferCreateInfo
		mai  memoryAllocateInfo
		imp  importMemoryHostPointerInfo
		sti  semaphoreTypeCreateInfo
		ssi  semaphoreSignalInfo
		swi  semaphoreWaitInfo
		tss  timelineSemaphoreSubmitInfo
		si   submitInfo
		cba  commandBufferAllocateInfo
		smc  shaderModuleCreateInfo
		plc  pipelineLayoutCreateInfo
		pss  pipelineShaderStageCreateInfo
		cpc  computePipelineCreateInfo
		dpc  descriptorPoolCreateInfo
		dsa  descriptorSetAllocateInfo
		wds  writeDescriptorSet
		dum  debugUtilsMessengerCreateInfo
		dcb  debugUtilsMessengerCallbackData
		m3   physicalDeviceMaintenance3Properties
		sgcp physicalDeviceSubgroupSizeControlProperties
	)
	for _, o := range []struct {
		name      string
		got, want uintptr
	}{
		{"VkBufferCreateInfo.size", unsafe.Offsetof(bci.size), 24},
		{"VkBufferCreateInfo.usage", unsafe.Offsetof(bci.usage), 32},
		{"VkBufferCreateInfo.pQueueFamilyIndices", unsafe.Offsetof(bci.pQueueFamilyIndices), 48},
		{"VkMemoryAllocateInfo.memoryTypeIndex", unsafe.Offsetof(mai.memoryTypeIndex), 24},
		{"VkImportMemoryHostPointerInfoEXT.pHostPointer", unsafe.Offsetof(imp.pHostPointer), 24},
		{"VkSemaphoreTypeCreateInfo.initialValue", unsafe.Offsetof(sti.initialValue), 24},
		{"VkSemaphoreSignalInfo.value", unsafe.Offsetof(ssi.value), 24},
		{"VkSemaphoreWaitInfo.pSemaphores", unsafe.Offsetof(swi.pSemaphores), 24},
		{"VkSemaphoreWaitInfo.pValues", unsafe.Offsetof(swi.pValues), 32},
		{"VkTimelineSemaphoreSubmitInfo.pSignalSemaphoreValues", unsafe.Offsetof(tss.pSignalSemaphoreValues), 40},
		{"VkSubmitInfo.pWaitDstStageMask", unsafe.Offsetof(si.pWaitDstStageMask), 32},
		{"VkSubmitInfo.pCommandBuffers", unsafe.Offsetof(si.pCommandBuffers), 48},
		{"VkSubmitInfo.pSignalSemaphores", unsafe.Offsetof(si.pSignalSemaphores), 64},
		{"VkCommandBufferAllocateInfo.level", unsafe.Offsetof(cba.level), 24},
		{"VkShaderModuleCreateInfo.pCode", unsafe.Offsetof(smc.pCode), 32},
		{"VkPipelineLayoutCreateInfo.pPushConstantRanges", unsafe.Offsetof(plc.pPushConstantRanges), 40},
		{"VkPipelineShaderStageCreateInfo.module", unsafe.Offsetof(pss.module), 24},
		{"VkPipelineShaderStageCreateInfo.pName", unsafe.Offsetof(pss.pName), 32},
		{"VkComputePipelineCreateInfo.stage", unsafe.Offsetof(cpc.stage), 24},
		{"VkComputePipelineCreateInfo.layout", unsafe.Offsetof(cpc.layout), 72},
		{"VkComputePipelineCreateInfo.basePipelineIndex", unsafe.Offsetof(cpc.basePipelineIndex), 88},
		{"VkDescriptorPoolCreateInfo.pPoolSizes", unsafe.Offsetof(dpc.pPoolSizes), 32},
		{"VkDescriptorSetAllocateInfo.pSetLayouts", unsafe.Offsetof(dsa.pSetLayouts), 32},
		{"VkWriteDescriptorSet.dstBinding", unsafe.Offsetof(wds.dstBinding), 24},
		{"VkWriteDescriptorSet.descriptorType", unsafe.Offsetof(wds.descriptorType), 36},
		{"VkWriteDescriptorSet.pBufferInfo", unsafe.Offsetof(wds.pBufferInfo), 48},
		{"VkDebugUtilsMessengerCreateInfoEXT.pfnUserCallback", unsafe.Offsetof(dum.pfnUserCallback), 32},
		{"VkDebugUtilsMessengerCallbackDataEXT.pMessageIdName", unsafe.Offsetof(dcb.pMessageIdName), 24},
		{"VkDebugUtilsMessengerCallbackDataEXT.messageIdNumber", unsafe.Offsetof(dcb.messageIdNumber), 32},
		{"VkDebugUtilsMessengerCallbackDataEXT.pMessage", unsafe.Offsetof(dcb.pMessage), 40},
		{"VkPhysicalDeviceMaintenance3Properties.maxMemoryAllocationSize", unsafe.Offsetof(m3.maxMemoryAllocationSize), 24},
		{"VkPhysicalDeviceSubgroupSizeControlProperties.requiredSubgroupSizeStages", unsafe.Offsetof(sgcp.requiredSubgroupSizeStages), 28},
		{"VkPhysicalDeviceFeatures.shaderFloat64", 4 * featureShaderFloat64, 156},
		{"VkPhysicalDeviceFeatures.shaderInt64", 4 * featureShaderInt64, 160},
		{"VkPhysicalDeviceFeatures.shaderInt16", 4 * featureShaderInt16, 164},
	} {
		if o.got != o.want {
			t.Errorf("offsetof(%s) = %d, want %d", o.name, o.got, o.want)
		}
	}
}
