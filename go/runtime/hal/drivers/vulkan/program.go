package vulkan

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	spirvschema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// Programs. Preparing an executable creates, per entry point, its
// VkShaderModule, VkDescriptorSetLayout and VkPipelineLayout at once (so
// that a module the device rejects fails the prepare, and the validation
// layer checks the SPIR-V there), and its compute VkPipeline lazily, on
// the first dispatch of the entry point: an entry point never dispatched
// costs no pipeline (a driver such as lavapipe compiles each one with
// LLVM), and a pipeline the driver fails to create fails the
// QueueExecute of the first dispatch (and is tried again by the next
// one). These objects form a program, which a device keeps by the
// SHA-256 of the executable's bytes: preparing the same bytes again (a
// new VM context, the next test of a check module) shares the program and
// the pipelines it has built. A program lives while an executable uses
// it, then idle in a least-recently-used list of maxIdlePrograms, and at
// most until the device closes. Pipelines are created through the
// device's VkPipelineCache.

// maxIdlePrograms is the number of programs no executable uses that a
// device keeps for a later prepare of the same bytes.
const maxIdlePrograms = 16

// programKey identifies an executable's bytes.
type programKey [sha256.Size]byte

// program is the device objects of one executable's bytes.
type program struct {
	key     programKey
	entries []*entryPipeline
	refs    int // executables using it (device.objMu)
}

// entryPipeline is one entry point's Vulkan objects.
type entryPipeline struct {
	name            string
	bindings        int  // the kernel's bindings (the status buffer follows)
	push            int  // int64 push constants
	reports         bool // has a status buffer
	pushDescriptors bool // descriptors are pushed, not allocated
	subgroupSize    int  // the subgroup size the pipeline requires (0: any)
	fullSubgroups   bool // the pipeline requires full subgroups
	module          uint64
	setLayout       uint64
	layout          uint64

	// pipeline is created on first use, under mu; once set it does not
	// change until the program is destroyed.
	mu       sync.Mutex
	pipeline atomic.Uint64
}

// buildProgram creates the shader modules and layouts of a decoded and
// checked executable (the pipelines come later, see pipeline).
func (v *device) buildProgram(key programKey, x *spirvschema.Executable) (*program, error) {
	p := &program{key: key}
	for i := range x.Entries {
		e, err := v.buildEntry(&x.Entries[i])
		if err != nil {
			v.destroyProgram(p)
			return nil, fmt.Errorf("preparing entry point @%s on %s: %w", x.Entries[i].Name, v.describe(), err)
		}
		p.entries = append(p.entries, e)
	}
	return p, nil
}

// buildEntry creates an entry point's shader module and layouts.
func (v *device) buildEntry(e *spirvschema.Entry) (p *entryPipeline, err error) {
	p = &entryPipeline{name: e.Name, bindings: len(e.Bindings), push: e.NumPushConstants, reports: e.Reports()}
	if s := e.SubgroupSize; s != 0 && v.canRequireSubgroupSize(s) {
		p.subgroupSize = s
		p.fullSubgroups = v.features.computeFullSubgroups && e.WorkgroupSize[0]%s == 0
	}
	defer func() {
		if err != nil {
			v.destroyEntry(p)
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
	return p, nil
}

// pipeline returns the entry point's compute pipeline, creating it on
// first use. Concurrent callers wait for one creation; a failed creation
// is returned and tried again by the next call. The caller holds a use
// of an executable of the program (so the program is not destroyed).
func (v *device) pipeline(p *entryPipeline) (uint64, error) {
	if h := p.pipeline.Load(); h != 0 {
		return h, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.pipeline.Load(); h != 0 {
		return h, nil
	}
	mark := v.driver.validationMark()
	var m cmem
	defer m.free()
	info := &computePipelineCreateInfo{sType: sTypeComputePipelineCreateInfo, layout: p.layout, basePipelineIndex: -1}
	info.stage = pipelineShaderStageCreateInfo{sType: sTypePipelineShaderStageCreateInfo, stage: shaderStageComputeBit, module: p.module, pName: m.str("main")}
	if s := p.subgroupSize; s != 0 {
		req := &requiredSubgroupSizeCreateInfo{sType: sTypeRequiredSubgroupSizeCreateInfo, requiredSubgroupSize: uint32(s)}
		info.stage.pNext = m.pin(unsafe.Pointer(req))
		if p.fullSubgroups {
			info.stage.flags = pipelineShaderStageRequireFullSG
		}
	}
	m.pin(unsafe.Pointer(info))
	var h uint64
	if err := check(v.vk.CreateComputePipelines(v.handle, v.pipelineCache, 1, info, nil, &h), "vkCreateComputePipelines"); err != nil {
		return 0, fmt.Errorf("creating the pipeline of entry point @%s on %s: %w", p.name, v.describe(), err)
	}
	if err := v.driver.validationSince(mark); err != nil {
		v.vk.DestroyPipeline(v.handle, h, nil)
		return 0, fmt.Errorf("creating the pipeline of entry point @%s on %s: %w", p.name, v.describe(), err)
	}
	p.pipeline.Store(h)
	v.pipelines.Add(1)
	return h, nil
}

// destroyEntry destroys an entry point's objects.
func (v *device) destroyEntry(p *entryPipeline) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.pipeline.Swap(0); h != 0 {
		v.vk.DestroyPipeline(v.handle, h, nil)
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
	p.module, p.setLayout, p.layout = 0, 0, 0
}

// destroyProgram destroys a program's objects.
func (v *device) destroyProgram(p *program) {
	for _, e := range p.entries {
		v.destroyEntry(e)
	}
}

// takeProgramLocked returns the program of key with a new reference, or
// nil (v.objMu held, the device open).
func (v *device) takeProgramLocked(key programKey) *program {
	p := v.programs[key]
	if p == nil {
		return nil
	}
	if p.refs == 0 {
		for i, q := range v.idle {
			if q == p {
				v.idle = append(v.idle[:i], v.idle[i+1:]...)
				break
			}
		}
	}
	p.refs++
	return p
}

// releaseProgram drops a reference to p: a program no executable uses
// goes to the idle list, whose oldest program is destroyed when the list
// is full. After Close it does nothing (Close destroyed the programs).
func (v *device) releaseProgram(p *program) {
	v.objMu.Lock()
	if v.programs == nil || v.programs[p.key] != p {
		v.objMu.Unlock()
		return
	}
	p.refs--
	var evict *program
	if p.refs == 0 {
		v.idle = append(v.idle, p)
		if len(v.idle) > maxIdlePrograms {
			evict = v.idle[0]
			v.idle = append(v.idle[:0], v.idle[1:]...)
			delete(v.programs, evict.key)
		}
	}
	v.objMu.Unlock()
	if evict != nil {
		v.destroyProgram(evict)
		v.unref()
	}
}

// closedError is the error of a request to a closed device.
func (v *device) closedError() error {
	return status.Errorf(status.FailedPrecondition, "%s is closed", v.describe())
}
