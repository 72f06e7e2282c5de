package vulkan

import (
	"fmt"
	"sort"
	"strings"
	"unsafe"
)

// features are the optional device features the driver enables when the
// physical device has them (and records, so that executables are checked
// against them), plus the extensions it uses.
type features struct {
	shaderInt64, shaderFloat64, shaderInt16                                          bool
	shaderFloat16, shaderInt8                                                        bool
	storageBuffer8BitAccess, uniformAndStorageBuffer8BitAccess, storagePushConstant8 bool
	storageBuffer16BitAccess, uniformAndStorageBuffer16BitAccess                     bool
	storagePushConstant16                                                            bool
	shaderBufferInt64Atomics, shaderSharedInt64Atomics                               bool
	variablePointersStorageBuffer, variablePointers                                  bool
	timelineSemaphore                                                                bool
	subgroupSizeControl, computeFullSubgroups                                        bool
	bufferDeviceAddress                                                              bool
	pushDescriptor                                                                   bool // VK_KHR_push_descriptor
	externalMemoryHost                                                               bool // VK_EXT_external_memory_host
}

// limits are the device limits the driver checks work against.
type limits struct {
	maxComputeWorkGroupCount            [3]uint32
	maxComputeWorkGroupSize             [3]uint32
	maxComputeWorkGroupInvocations      uint32
	maxComputeSharedMemorySize          uint32
	maxPushConstantsSize                uint32
	maxStorageBufferRange               uint32
	maxPerStageDescriptorStorageBuffers uint32
	minStorageBufferOffsetAlignment     uint64
	subgroupSize                        uint32 // the default subgroup size
	subgroupStages, subgroupOperations  uint32
	minSubgroupSize, maxSubgroupSize    uint32
	requiredSubgroupSizeStages          uint32
	maxPushDescriptors                  uint32
	minImportedHostPointerAlignment     uint64
	maxMemoryAllocationSize             uint64
}

// featureQuery is the chain of feature and property structs of one
// physical device, built for the structs the device supports (core in
// its version, or its extension present).
type featureQuery struct {
	api                uint32 // min(device, instance) version
	f16                physicalDevice16BitStorageFeatures
	vp                 physicalDeviceVariablePointersFeatures
	f8                 physicalDevice8BitStorageFeatures
	f16i8              physicalDeviceShaderFloat16Int8Features
	timeline           physicalDeviceTimelineSemaphoreFeatures
	atomic64           physicalDeviceShaderAtomicInt64Features
	subgroupCtl        physicalDeviceSubgroupSizeControlFeatures
	bda                physicalDeviceBufferDeviceAddressFeatures
	has8, hasF16I8     bool
	hasTimeline        bool
	hasAtomic64        bool
	hasSubgroupControl bool
	hasBDA             bool
	features           physicalDeviceFeatures2
	extensions         []string // extensions the chain needs enabled
}

// newFeatureQuery decides which structs apply to pd.
func newFeatureQuery(pd *physicalDevice, instanceAPI uint32) *featureQuery {
	api := min(pd.props.apiVersion, instanceAPI)
	q := &featureQuery{api: api}
	ext := func(core uint32, name string) bool {
		if atLeast(api, core) {
			return true
		}
		if pd.extensions[name] {
			q.extensions = append(q.extensions, name)
			return true
		}
		return false
	}
	q.has8 = ext(apiVersion1_2, "VK_KHR_8bit_storage")
	q.hasF16I8 = ext(apiVersion1_2, "VK_KHR_shader_float16_int8")
	q.hasTimeline = ext(apiVersion1_2, "VK_KHR_timeline_semaphore")
	q.hasAtomic64 = ext(apiVersion1_2, "VK_KHR_shader_atomic_int64")
	q.hasSubgroupControl = ext(apiVersion1_3, "VK_EXT_subgroup_size_control")
	q.hasBDA = pd.bufferDeviceAddress && ext(apiVersion1_2, "VK_KHR_buffer_device_address")
	return q
}

// chain links the applicable structs under q.features and pins them.
func (q *featureQuery) chain(m *cmem) *physicalDeviceFeatures2 {
	q.features.sType = sTypePhysicalDeviceFeatures2
	q.f16.sType = sTypePhysicalDevice16BitStorageFeatures
	q.vp.sType = sTypePhysicalDeviceVariablePointersFeatures
	q.f8.sType = sTypePhysicalDevice8BitStorageFeatures
	q.f16i8.sType = sTypePhysicalDeviceShaderFloat16Int8Features
	q.timeline.sType = sTypePhysicalDeviceTimelineSemaphoreFeatures
	q.atomic64.sType = sTypePhysicalDeviceShaderAtomicInt64Features
	q.subgroupCtl.sType = sTypePhysicalDeviceSubgroupSizeControlFeatures
	q.bda.sType = sTypePhysicalDeviceBufferDeviceAddressFeat
	next := &q.features.pNext
	link := func(p unsafe.Pointer, pnext *unsafe.Pointer) {
		*next = m.pin(p)
		*pnext = nil
		next = pnext
	}
	link(unsafe.Pointer(&q.f16), &q.f16.pNext)
	link(unsafe.Pointer(&q.vp), &q.vp.pNext)
	if q.has8 {
		link(unsafe.Pointer(&q.f8), &q.f8.pNext)
	}
	if q.hasF16I8 {
		link(unsafe.Pointer(&q.f16i8), &q.f16i8.pNext)
	}
	if q.hasTimeline {
		link(unsafe.Pointer(&q.timeline), &q.timeline.pNext)
	}
	if q.hasAtomic64 {
		link(unsafe.Pointer(&q.atomic64), &q.atomic64.pNext)
	}
	if q.hasSubgroupControl {
		link(unsafe.Pointer(&q.subgroupCtl), &q.subgroupCtl.pNext)
	}
	if q.hasBDA {
		link(unsafe.Pointer(&q.bda), &q.bda.pNext)
	}
	return (*physicalDeviceFeatures2)(m.pin(unsafe.Pointer(&q.features)))
}

// read returns the features the queried structs report, less disabled.
func (q *featureQuery) read(disabled map[string]bool) features {
	on := func(name string, v uint32) bool { return v != 0 && !disabled[name] }
	b := q.features.features[:]
	return features{
		shaderFloat64:                      on("shaderFloat64", b[featureShaderFloat64]),
		shaderInt64:                        on("shaderInt64", b[featureShaderInt64]),
		shaderInt16:                        on("shaderInt16", b[featureShaderInt16]),
		storageBuffer16BitAccess:           on("storageBuffer16BitAccess", q.f16.storageBuffer16BitAccess),
		uniformAndStorageBuffer16BitAccess: on("uniformAndStorageBuffer16BitAccess", q.f16.uniformAndStorageBuffer16BitAccess),
		storagePushConstant16:              on("storagePushConstant16", q.f16.storagePushConstant16),
		variablePointersStorageBuffer:      on("variablePointersStorageBuffer", q.vp.variablePointersStorageBuffer),
		variablePointers:                   on("variablePointers", q.vp.variablePointers) && q.vp.variablePointersStorageBuffer != 0,
		storageBuffer8BitAccess:            q.has8 && on("storageBuffer8BitAccess", q.f8.storageBuffer8BitAccess),
		uniformAndStorageBuffer8BitAccess:  q.has8 && on("uniformAndStorageBuffer8BitAccess", q.f8.uniformAndStorageBuffer8BitAccess),
		storagePushConstant8:               q.has8 && on("storagePushConstant8", q.f8.storagePushConstant8),
		shaderFloat16:                      q.hasF16I8 && on("shaderFloat16", q.f16i8.shaderFloat16),
		shaderInt8:                         q.hasF16I8 && on("shaderInt8", q.f16i8.shaderInt8),
		timelineSemaphore:                  q.hasTimeline && on("timelineSemaphore", q.timeline.timelineSemaphore),
		shaderBufferInt64Atomics:           q.hasAtomic64 && on("shaderBufferInt64Atomics", q.atomic64.shaderBufferInt64Atomics),
		shaderSharedInt64Atomics:           q.hasAtomic64 && on("shaderSharedInt64Atomics", q.atomic64.shaderSharedInt64Atomics),
		subgroupSizeControl:                q.hasSubgroupControl && on("subgroupSizeControl", q.subgroupCtl.subgroupSizeControl),
		computeFullSubgroups:               q.hasSubgroupControl && on("computeFullSubgroups", q.subgroupCtl.computeFullSubgroups),
		bufferDeviceAddress:                q.hasBDA && on("bufferDeviceAddress", q.bda.bufferDeviceAddress),
	}
}

// enable sets the structs to exactly f, for vkCreateDevice.
func (q *featureQuery) enable(f features) {
	b := func(v bool) uint32 {
		if v {
			return 1
		}
		return 0
	}
	q.features.features = [55]uint32{}
	q.features.features[featureShaderFloat64] = b(f.shaderFloat64)
	q.features.features[featureShaderInt64] = b(f.shaderInt64)
	q.features.features[featureShaderInt16] = b(f.shaderInt16)
	q.f16 = physicalDevice16BitStorageFeatures{storageBuffer16BitAccess: b(f.storageBuffer16BitAccess),
		uniformAndStorageBuffer16BitAccess: b(f.uniformAndStorageBuffer16BitAccess), storagePushConstant16: b(f.storagePushConstant16)}
	q.vp = physicalDeviceVariablePointersFeatures{variablePointersStorageBuffer: b(f.variablePointersStorageBuffer), variablePointers: b(f.variablePointers)}
	q.f8 = physicalDevice8BitStorageFeatures{storageBuffer8BitAccess: b(f.storageBuffer8BitAccess),
		uniformAndStorageBuffer8BitAccess: b(f.uniformAndStorageBuffer8BitAccess), storagePushConstant8: b(f.storagePushConstant8)}
	q.f16i8 = physicalDeviceShaderFloat16Int8Features{shaderFloat16: b(f.shaderFloat16), shaderInt8: b(f.shaderInt8)}
	q.timeline = physicalDeviceTimelineSemaphoreFeatures{timelineSemaphore: b(f.timelineSemaphore)}
	q.atomic64 = physicalDeviceShaderAtomicInt64Features{shaderBufferInt64Atomics: b(f.shaderBufferInt64Atomics), shaderSharedInt64Atomics: b(f.shaderSharedInt64Atomics)}
	q.subgroupCtl = physicalDeviceSubgroupSizeControlFeatures{subgroupSizeControl: b(f.subgroupSizeControl), computeFullSubgroups: b(f.computeFullSubgroups)}
	q.bda = physicalDeviceBufferDeviceAddressFeatures{bufferDeviceAddress: b(f.bufferDeviceAddress)}
}

// queryLimits reads the limits and the properties of the extensions the
// driver uses.
func (d *driver) queryLimits(pd *physicalDevice, q *featureQuery, f *features) limits {
	l := &pd.props.limits
	out := limits{
		maxComputeWorkGroupCount:            l.maxComputeWorkGroupCount,
		maxComputeWorkGroupSize:             l.maxComputeWorkGroupSize,
		maxComputeWorkGroupInvocations:      l.maxComputeWorkGroupInvocations,
		maxComputeSharedMemorySize:          l.maxComputeSharedMemorySize,
		maxPushConstantsSize:                l.maxPushConstantsSize,
		maxStorageBufferRange:               l.maxStorageBufferRange,
		maxPerStageDescriptorStorageBuffers: l.maxPerStageDescriptorStorageBuffers,
		minStorageBufferOffsetAlignment:     max(l.minStorageBufferOffsetAlignment, 1),
		subgroupSize:                        pd.subgroup.subgroupSize,
		subgroupStages:                      pd.subgroup.supportedStages,
		subgroupOperations:                  pd.subgroup.supportedOperations,
	}
	var m cmem
	defer m.free()
	m3 := &physicalDeviceMaintenance3Properties{sType: sTypePhysicalDeviceMaintenance3Properties}
	sc := &physicalDeviceSubgroupSizeControlProperties{sType: sTypePhysicalDeviceSubgroupSizeControlProperties}
	pdp := &physicalDevicePushDescriptorProperties{sType: sTypePhysicalDevicePushDescriptorProperties}
	emh := &physicalDeviceExternalMemoryHostProperties{sType: sTypePhysicalDeviceExternalMemoryHostProperties}
	props := &physicalDeviceProperties2{sType: sTypePhysicalDeviceProperties2, pNext: m.pin(unsafe.Pointer(m3))}
	next := &m3.pNext
	if q.hasSubgroupControl {
		*next, next = m.pin(unsafe.Pointer(sc)), &sc.pNext
	}
	if f.pushDescriptor {
		*next, next = m.pin(unsafe.Pointer(pdp)), &pdp.pNext
	}
	if f.externalMemoryHost {
		*next = m.pin(unsafe.Pointer(emh))
	}
	d.vk.GetPhysicalDeviceProperties2(pd.handle, (*physicalDeviceProperties2)(m.pin(unsafe.Pointer(props))))
	out.maxMemoryAllocationSize = m3.maxMemoryAllocationSize
	if q.hasSubgroupControl {
		out.minSubgroupSize, out.maxSubgroupSize = sc.minSubgroupSize, sc.maxSubgroupSize
		out.requiredSubgroupSizeStages = sc.requiredSubgroupSizeStages
	}
	out.maxPushDescriptors = pdp.maxPushDescriptors
	if f.pushDescriptor && out.maxPushDescriptors < 2 {
		f.pushDescriptor = false
	}
	out.minImportedHostPointerAlignment = emh.minImportedHostPointerAlignment
	if f.externalMemoryHost && (out.minImportedHostPointerAlignment == 0 || out.minImportedHostPointerAlignment&(out.minImportedHostPointerAlignment-1) != 0) {
		f.externalMemoryHost = false
	}
	return out
}

// String lists the enabled features, for errors and the tests' logs.
func (f features) String() string {
	var on []string
	for name, v := range f.byName() {
		if v {
			on = append(on, name)
		}
	}
	sort.Strings(on)
	return strings.Join(on, ",")
}

func (f features) byName() map[string]bool {
	return map[string]bool{
		"shaderInt64": f.shaderInt64, "shaderFloat64": f.shaderFloat64, "shaderInt16": f.shaderInt16,
		"shaderFloat16": f.shaderFloat16, "shaderInt8": f.shaderInt8,
		"storageBuffer8BitAccess": f.storageBuffer8BitAccess, "uniformAndStorageBuffer8BitAccess": f.uniformAndStorageBuffer8BitAccess,
		"storagePushConstant8": f.storagePushConstant8, "storageBuffer16BitAccess": f.storageBuffer16BitAccess,
		"uniformAndStorageBuffer16BitAccess": f.uniformAndStorageBuffer16BitAccess, "storagePushConstant16": f.storagePushConstant16,
		"shaderBufferInt64Atomics": f.shaderBufferInt64Atomics, "shaderSharedInt64Atomics": f.shaderSharedInt64Atomics,
		"variablePointersStorageBuffer": f.variablePointersStorageBuffer, "variablePointers": f.variablePointers,
		"timelineSemaphore": f.timelineSemaphore, "subgroupSizeControl": f.subgroupSizeControl,
		"computeFullSubgroups": f.computeFullSubgroups, "bufferDeviceAddress": f.bufferDeviceAddress,
		"pushDescriptor": f.pushDescriptor, "externalMemoryHost": f.externalMemoryHost,
	}
}

// Subgroup operation bits (VkSubgroupFeatureFlagBits) and the compute
// stage bit.
const (
	subgroupBasic           = 0x1
	subgroupVote            = 0x2
	subgroupArithmetic      = 0x4
	subgroupBallot          = 0x8
	subgroupShuffle         = 0x10
	subgroupShuffleRelative = 0x20
	subgroupClustered       = 0x40
	subgroupQuad            = 0x80
	shaderStageCompute      = 0x20
)

// capability says what a SPIR-V capability needs of the device.
type capability struct {
	needs string // the feature(s), for the error
	ok    func(f *features, l *limits) bool
}

func feature(name string, get func(f *features) bool) capability {
	return capability{name + " feature", func(f *features, _ *limits) bool { return get(f) }}
}

func subgroupOp(name string, bit uint32) capability {
	return capability{fmt.Sprintf("subgroup operation %s in compute shaders", name), func(_ *features, l *limits) bool {
		return l.subgroupStages&shaderStageCompute != 0 && l.subgroupOperations&bit == bit
	}}
}

// capabilities maps the SPIR-V capabilities a vulkan-spirv module may
// declare to what the device must have enabled.
var capabilities = map[string]capability{
	"Shader":                             {"nothing", func(*features, *limits) bool { return true }},
	"Matrix":                             {"nothing", func(*features, *limits) bool { return true }},
	"Int64":                              feature("shaderInt64", func(f *features) bool { return f.shaderInt64 }),
	"Float64":                            feature("shaderFloat64", func(f *features) bool { return f.shaderFloat64 }),
	"Int16":                              feature("shaderInt16", func(f *features) bool { return f.shaderInt16 }),
	"Float16":                            feature("shaderFloat16", func(f *features) bool { return f.shaderFloat16 }),
	"Int8":                               feature("shaderInt8", func(f *features) bool { return f.shaderInt8 }),
	"StorageBuffer8BitAccess":            feature("storageBuffer8BitAccess", func(f *features) bool { return f.storageBuffer8BitAccess }),
	"UniformAndStorageBuffer8BitAccess":  feature("uniformAndStorageBuffer8BitAccess", func(f *features) bool { return f.uniformAndStorageBuffer8BitAccess }),
	"StoragePushConstant8":               feature("storagePushConstant8", func(f *features) bool { return f.storagePushConstant8 }),
	"StorageBuffer16BitAccess":           feature("storageBuffer16BitAccess", func(f *features) bool { return f.storageBuffer16BitAccess }),
	"StorageUniformBufferBlock16":        feature("storageBuffer16BitAccess", func(f *features) bool { return f.storageBuffer16BitAccess }),
	"UniformAndStorageBuffer16BitAccess": feature("uniformAndStorageBuffer16BitAccess", func(f *features) bool { return f.uniformAndStorageBuffer16BitAccess }),
	"StorageUniform16":                   feature("uniformAndStorageBuffer16BitAccess", func(f *features) bool { return f.uniformAndStorageBuffer16BitAccess }),
	"StoragePushConstant16":              feature("storagePushConstant16", func(f *features) bool { return f.storagePushConstant16 }),
	"Int64Atomics":                       feature("shaderBufferInt64Atomics", func(f *features) bool { return f.shaderBufferInt64Atomics }),
	"VariablePointersStorageBuffer":      feature("variablePointersStorageBuffer", func(f *features) bool { return f.variablePointersStorageBuffer }),
	"VariablePointers":                   feature("variablePointers", func(f *features) bool { return f.variablePointers }),
	"PhysicalStorageBufferAddresses":     feature("bufferDeviceAddress", func(f *features) bool { return f.bufferDeviceAddress }),
	"GroupNonUniform":                    subgroupOp("basic", subgroupBasic),
	"GroupNonUniformVote":                subgroupOp("vote", subgroupVote),
	"GroupNonUniformArithmetic":          subgroupOp("arithmetic", subgroupArithmetic),
	"GroupNonUniformBallot":              subgroupOp("ballot", subgroupBallot),
	"GroupNonUniformShuffle":             subgroupOp("shuffle", subgroupShuffle),
	"GroupNonUniformShuffleRelative":     subgroupOp("shuffle-relative", subgroupShuffleRelative),
	"GroupNonUniformClustered":           subgroupOp("clustered", subgroupClustered),
	"GroupNonUniformQuad":                subgroupOp("quad", subgroupQuad),
}
