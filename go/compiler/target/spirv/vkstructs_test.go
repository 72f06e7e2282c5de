package spirv_test

import (
	"reflect"
	"unsafe"
)

// Mirrors of vulkan_core.h's structs on 64-bit Linux (the runner's).

type vkBase struct {
	sType uint32
	pNext unsafe.Pointer
}

type vkApplicationInfo struct {
	vkBase
	appName    *byte
	appVersion uint32
	engine     *byte
	engVersion uint32
	apiVersion uint32
}

type vkInstanceCreateInfo struct {
	vkBase
	flags      uint32
	app        *vkApplicationInfo
	layerCount uint32
	layers     unsafe.Pointer
	extCount   uint32
	exts       unsafe.Pointer
}

type vkFeatures struct { // VkPhysicalDeviceFeatures2 and the 1.x feature structs, oversized
	vkBase
	bools [64]uint32
}

type vkQueueCreateInfo struct {
	vkBase
	flags      uint32
	family     uint32
	count      uint32
	priorities *float32
}

type vkDeviceCreateInfo struct {
	vkBase
	flags      uint32
	queueCount uint32
	queues     *vkQueueCreateInfo
	layerCount uint32
	layers     unsafe.Pointer
	extCount   uint32
	exts       unsafe.Pointer
	features   unsafe.Pointer
}

type vkQueueFamily struct {
	flags, count, timestampBits uint32
	granularity                 [3]uint32
}

type vkMemoryProperties struct {
	typeCount uint32
	types     [32][2]uint32
	heapCount uint32
	heaps     [16]struct {
		size  uint64
		flags uint32
	}
}

type vkBufferCreateInfo struct {
	vkBase
	flags    uint32
	size     uint64
	usage    uint32
	sharing  uint32
	qfiCount uint32
	qfi      unsafe.Pointer
}

type vkMemoryRequirements struct {
	size, alignment uint64
	typeBits        uint32
}

type vkMemoryAllocateInfo struct {
	vkBase
	size      uint64
	typeIndex uint32
}

type vkShaderModuleCreateInfo struct {
	vkBase
	flags    uint32
	codeSize uint64
	code     *byte
}

type vkStageCreateInfo struct {
	vkBase
	flags  uint32
	stage  uint32
	module uint64
	name   *byte
	spec   unsafe.Pointer
}

type vkComputePipelineCreateInfo struct {
	vkBase
	flags     uint32
	stage     vkStageCreateInfo
	layout    uint64
	base      uint64
	baseIndex int32
}

type vkSetLayoutBinding struct {
	binding, typ, count, stages uint32
	samplers                    unsafe.Pointer
}

type vkSetLayoutCreateInfo struct {
	vkBase
	flags    uint32
	count    uint32
	bindings *vkSetLayoutBinding
}

type vkPushRange struct{ stages, offset, size uint32 }

type vkPipelineLayoutCreateInfo struct {
	vkBase
	flags      uint32
	setCount   uint32
	sets       *uint64
	rangeCount uint32
	ranges     *vkPushRange
}

type vkPoolSize struct{ typ, count uint32 }

type vkPoolCreateInfo struct {
	vkBase
	flags     uint32
	maxSets   uint32
	sizeCount uint32
	sizes     *vkPoolSize
}

type vkSetAllocateInfo struct {
	vkBase
	pool    uint64
	count   uint32
	layouts *uint64
}

type vkBufferInfo struct{ buffer, offset, rng uint64 }

type vkWriteSet struct {
	vkBase
	set     uint64
	binding uint32
	element uint32
	count   uint32
	typ     uint32
	images  unsafe.Pointer
	buffers *vkBufferInfo
	texels  unsafe.Pointer
}

type vkCommandPoolCreateInfo struct {
	vkBase
	flags  uint32
	family uint32
}

type vkCommandBufferAllocateInfo struct {
	vkBase
	pool  uint64
	level uint32
	count uint32
}

type vkBeginInfo struct {
	vkBase
	flags   uint32
	inherit unsafe.Pointer
}

type vkSubmitInfo struct {
	vkBase
	waitCount   uint32
	waits       unsafe.Pointer
	waitStages  unsafe.Pointer
	cmdCount    uint32
	cmds        *uintptr
	signalCount uint32
	signals     unsafe.Pointer
}

// reflectFields maps the names of vkAPI's func fields to their addresses.
func reflectFields(api any) map[string]any {
	v := reflect.ValueOf(api).Elem()
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		out[v.Type().Field(i).Name] = v.Field(i).Addr().Interface()
	}
	return out
}
