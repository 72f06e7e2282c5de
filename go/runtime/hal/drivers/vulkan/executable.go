package vulkan

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	spirvschema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// Vulkan constants of pipelines and descriptors.
const (
	descriptorTypeStorageBuffer      = 7
	descriptorSetLayoutPushBit       = 0x1 // VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
	pipelineBindPointCompute         = 1
	shaderStageComputeBit            = 0x20
	pipelineShaderStageRequireFullSG = 0x2 // VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT
)

// entryPipeline is one entry point's Vulkan objects.
type entryPipeline struct {
	name            string
	bindings        int  // the kernel's bindings (the status buffer follows)
	push            int  // int64 push constants
	reports         bool // has a status buffer
	pushDescriptors bool // descriptors are pushed, not allocated
	module          uint64
	setLayout       uint64
	layout          uint64
	pipeline        uint64
}

// executable is a prepared vulkan-spirv executable: a compute pipeline
// per entry point. Its objects are destroyed on Close once no submission
// uses them (and when the device closes).
type executable struct {
	d       *device
	entries []entryPipeline

	mu        sync.Mutex
	inflight  int
	closed    bool
	destroyed bool
}

var _ hal.Executable = (*executable)(nil)

// PrepareExecutable checks a vulkan-spirv executable against the device
// (capabilities, push constants, workgroup size, shared memory, bindings,
// subgroup size) and builds its pipelines.
func (v *device) PrepareExecutable(format string, data []byte) (hal.Executable, error) {
	if err := v.q.open(); err != nil {
		return nil, err
	}
	if format != spirvschema.Format {
		return nil, status.Errorf(status.Unimplemented, "the vulkan device cannot run %q executables (it runs %q); compile with --iree-hal-target-backends=vulkan-spirv", format, spirvschema.Format)
	}
	x, err := spirvschema.Decode(data)
	if err != nil {
		return nil, err
	}
	for i := range x.Entries {
		if err := v.checkEntry(&x.Entries[i]); err != nil {
			return nil, err
		}
	}
	if err := v.ref(); err != nil {
		return nil, err
	}
	mark := v.driver.validationMark()
	e := &executable{d: v}
	for i := range x.Entries {
		p, err := v.buildPipeline(&x.Entries[i])
		if err != nil {
			e.destroy()
			return nil, fmt.Errorf("preparing entry point @%s on %s: %w", x.Entries[i].Name, v.describe(), err)
		}
		e.entries = append(e.entries, p)
	}
	if err := v.driver.validationSince(mark); err != nil {
		e.destroy()
		return nil, err
	}
	v.objMu.Lock()
	defer v.objMu.Unlock()
	if v.executables == nil {
		e.destroy()
		return nil, status.Errorf(status.FailedPrecondition, "%s is closed", v.describe())
	}
	v.executables[e] = struct{}{}
	return e, nil
}

// checkEntry checks what an entry point needs against the device.
func (v *device) checkEntry(e *spirvschema.Entry) error {
	pre := func(format string, args ...any) error {
		return status.Errorf(status.FailedPrecondition, "entry point @%s cannot run on %s: %s", e.Name, v.describe(), fmt.Sprintf(format, args...))
	}
	for _, c := range e.Capabilities {
		cap, ok := capabilities[c]
		if !ok {
			known := make([]string, 0, len(capabilities))
			for k := range capabilities {
				known = append(known, k)
			}
			sort.Strings(known)
			return pre("it declares the SPIR-V capability %s, which the vulkan driver does not know how to enable (it knows %s)", c, strings.Join(known, ", "))
		}
		if !cap.ok(&v.features, &v.limits) {
			return pre("it declares the SPIR-V capability %s, which needs the %s; the device does not have it enabled (enabled: %s)", c, cap.needs, v.features)
		}
	}
	l := &v.limits
	if n := 8 * e.NumPushConstants; n > int(l.maxPushConstantsSize) {
		return pre("its %d push constants take %d bytes; the device allows %d bytes of push constants (maxPushConstantsSize)", e.NumPushConstants, n, l.maxPushConstantsSize)
	}
	wg := e.WorkgroupSize
	for d, n := range wg {
		if n > int(l.maxComputeWorkGroupSize[d]) {
			return pre("its workgroup size (%d, %d, %d) exceeds the device's maxComputeWorkGroupSize (%d, %d, %d) in dimension %d", wg[0], wg[1], wg[2],
				l.maxComputeWorkGroupSize[0], l.maxComputeWorkGroupSize[1], l.maxComputeWorkGroupSize[2], d)
		}
	}
	if n := wg[0] * wg[1] * wg[2]; n > int(l.maxComputeWorkGroupInvocations) {
		return pre("its workgroup of %d invocations exceeds the device's maxComputeWorkGroupInvocations %d", n, l.maxComputeWorkGroupInvocations)
	}
	if e.SharedBytes > int(l.maxComputeSharedMemorySize) {
		return pre("it uses %d bytes of shared memory; the device has %d (maxComputeSharedMemorySize)", e.SharedBytes, l.maxComputeSharedMemorySize)
	}
	if n := descriptorCount(e); n > int(l.maxPerStageDescriptorStorageBuffers) {
		return pre("it binds %d storage buffers; the device allows %d per stage (maxPerStageDescriptorStorageBuffers)", n, l.maxPerStageDescriptorStorageBuffers)
	}
	if s := e.SubgroupSize; s != 0 && !v.canRequireSubgroupSize(s) && s != int(l.subgroupSize) {
		return pre("it needs subgroups of %d invocations; the device's subgroup size is %d and it cannot require another (subgroupSizeControl %v, sizes %d to %d)",
			s, l.subgroupSize, v.features.subgroupSizeControl, l.minSubgroupSize, l.maxSubgroupSize)
	}
	return nil
}

// descriptorCount is the number of storage buffers an entry binds.
func descriptorCount(e *spirvschema.Entry) int {
	if e.Reports() {
		return len(e.Bindings) + 1
	}
	return len(e.Bindings)
}

// canRequireSubgroupSize reports whether a compute pipeline may require
// subgroups of s invocations.
func (v *device) canRequireSubgroupSize(s int) bool {
	l := &v.limits
	return v.features.subgroupSizeControl && l.requiredSubgroupSizeStages&shaderStageComputeBit != 0 &&
		s >= int(l.minSubgroupSize) && s <= int(l.maxSubgroupSize) && s&(s-1) == 0
}

// buildPipeline creates an entry point's shader module, layouts and
// compute pipeline.
func (v *device) buildPipeline(e *spirvschema.Entry) (p entryPipeline, err error) {
	p = entryPipeline{name: e.Name, bindings: len(e.Bindings), push: e.NumPushConstants, reports: e.Reports()}
	defer func() {
		if err != nil {
			v.destroyPipeline(&p)
		}
	}()
	var m cmem
	defer m.free()
	// The module's words, 4-byte aligned as Vulkan reads them.
	words := make([]uint32, len(e.SPIRV)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(e.SPIRV[4*i:])
	}
	modInfo := &shaderModuleCreateInfo{sType: sTypeShaderModuleCreateInfo, codeSize: uintptr(len(e.SPIRV)), pCode: pinned(&m, words)}
	if err := check(v.vk.CreateShaderModule(v.handle, modInfo, nil, &p.module), "vkCreateShaderModule"); err != nil {
		return p, err
	}
	n := descriptorCount(e)
	p.pushDescriptors = v.features.pushDescriptor && n <= int(v.limits.maxPushDescriptors)
	bindings := make([]descriptorSetLayoutBinding, n)
	for i := range bindings {
		bindings[i] = descriptorSetLayoutBinding{binding: uint32(i), descriptorType: descriptorTypeStorageBuffer, descriptorCount: 1, stageFlags: shaderStageComputeBit}
	}
	setInfo := &descriptorSetLayoutCreateInfo{sType: sTypeDescriptorSetLayoutCreateInfo, bindingCount: uint32(n), pBindings: pinned(&m, bindings)}
	if p.pushDescriptors {
		setInfo.flags = descriptorSetLayoutPushBit
	}
	if err := check(v.vk.CreateDescriptorSetLayout(v.handle, setInfo, nil, &p.setLayout), "vkCreateDescriptorSetLayout"); err != nil {
		return p, err
	}
	layouts := []uint64{p.setLayout}
	layoutInfo := &pipelineLayoutCreateInfo{sType: sTypePipelineLayoutCreateInfo, setLayoutCount: 1, pSetLayouts: pinned(&m, layouts)}
	if p.push > 0 {
		ranges := []pushConstantRange{{stageFlags: shaderStageComputeBit, size: uint32(8 * p.push)}}
		layoutInfo.pushConstantRangeCount, layoutInfo.pPushConstantRanges = 1, pinned(&m, ranges)
	}
	if err := check(v.vk.CreatePipelineLayout(v.handle, layoutInfo, nil, &p.layout), "vkCreatePipelineLayout"); err != nil {
		return p, err
	}
	info := &computePipelineCreateInfo{sType: sTypeComputePipelineCreateInfo, layout: p.layout, basePipelineIndex: -1}
	info.stage = pipelineShaderStageCreateInfo{sType: sTypePipelineShaderStageCreateInfo, stage: shaderStageComputeBit, module: p.module, pName: m.str("main")}
	if s := e.SubgroupSize; s != 0 && v.canRequireSubgroupSize(s) {
		req := &requiredSubgroupSizeCreateInfo{sType: sTypeRequiredSubgroupSizeCreateInfo, requiredSubgroupSize: uint32(s)}
		info.stage.pNext = m.pin(unsafe.Pointer(req))
		if v.features.computeFullSubgroups && e.WorkgroupSize[0]%s == 0 {
			info.stage.flags = pipelineShaderStageRequireFullSG
		}
	}
	m.pin(unsafe.Pointer(info))
	if err := check(v.vk.CreateComputePipelines(v.handle, v.pipelineCache, 1, info, nil, &p.pipeline), "vkCreateComputePipelines"); err != nil {
		return p, err
	}
	return p, nil
}

func (v *device) destroyPipeline(p *entryPipeline) {
	if p.pipeline != 0 {
		v.vk.DestroyPipeline(v.handle, p.pipeline, nil)
	}
	if p.layout != 0 {
		v.vk.DestroyPipelineLayout(v.handle, p.layout, nil)
	}
	if p.setLayout != 0 {
		v.vk.DestroyDescriptorSetLayout(v.handle, p.setLayout, nil)
	}
	if p.module != 0 {
		v.vk.DestroyShaderModule(v.handle, p.module, nil)
	}
	*p = entryPipeline{name: p.name}
}

// NumEntries returns the number of entry points.
func (e *executable) NumEntries() int { return len(e.entries) }

// EntryName returns the name of entry point i ("" when out of range).
func (e *executable) EntryName(i int) string {
	if i < 0 || i >= len(e.entries) {
		return ""
	}
	return e.entries[i].name
}

// entryName names entry point i in errors.
func (e *executable) entryName(i int) string {
	if n := e.EntryName(i); n != "" {
		return "@" + n
	}
	return fmt.Sprintf("entry point %d", i)
}

// Close destroys the pipelines once no submission uses them.
func (e *executable) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	now := e.inflight == 0
	e.mu.Unlock()
	if now {
		e.destroy()
	}
	return nil
}

// acquire marks a use by a submission.
func (e *executable) acquire() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.destroyed {
		return status.New(status.FailedPrecondition, "dispatch of an executable that was closed")
	}
	e.inflight++
	return nil
}

func (e *executable) releaseUse() {
	e.mu.Lock()
	e.inflight--
	now := e.closed && e.inflight == 0
	e.mu.Unlock()
	if now {
		e.destroy()
	}
}

// destroy destroys the pipelines once.
func (e *executable) destroy() {
	e.mu.Lock()
	if e.destroyed {
		e.mu.Unlock()
		return
	}
	e.destroyed = true
	e.mu.Unlock()
	for i := range e.entries {
		e.d.destroyPipeline(&e.entries[i])
	}
	e.d.objMu.Lock()
	if e.d.executables != nil {
		delete(e.d.executables, e)
	}
	e.d.objMu.Unlock()
	e.d.unref()
}
