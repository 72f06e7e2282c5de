package vulkan

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"weak"

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

// executable is a prepared vulkan-spirv executable: a reference to the
// device's program of its bytes (program.go). Close lets go of it once no
// submission uses the executable; so does the garbage collector, when the
// executable becomes unreachable, and the device's Close.
type executable struct {
	d       *device
	id      uint64 // its key in d.executables
	prog    *program
	entries []*entryPipeline

	mu       sync.Mutex
	inflight int
	closed   bool
	released bool // it let go of its program
}

var _ hal.Executable = (*executable)(nil)

// PrepareExecutable checks a vulkan-spirv executable against the device
// (capabilities, push constants, workgroup size, shared memory, bindings,
// subgroup size) and creates its shader modules and layouts; each entry
// point's pipeline is created on its first dispatch. Bytes the device
// prepared before share the objects (and pipelines) made then.
func (v *device) PrepareExecutable(format string, data []byte) (hal.Executable, error) {
	if err := v.q.open(); err != nil {
		return nil, err
	}
	if format != spirvschema.Format {
		return nil, status.Errorf(status.Unimplemented, "the vulkan device cannot run %q executables (it runs %q); compile with --iree-hal-target-backends=vulkan-spirv", format, spirvschema.Format)
	}
	key := programKey(sha256.Sum256(data))
	e := &executable{d: v}
	v.objMu.Lock()
	if v.programs == nil {
		v.objMu.Unlock()
		return nil, v.closedError()
	}
	if p := v.takeProgramLocked(key); p != nil {
		v.registerLocked(e, p)
		v.objMu.Unlock()
		return e, nil
	}
	v.objMu.Unlock()

	x, err := spirvschema.Decode(data)
	if err != nil {
		return nil, err
	}
	for i := range x.Entries {
		if err := v.checkEntry(&x.Entries[i]); err != nil {
			return nil, err
		}
	}
	// A program holds the VkDevice.
	if err := v.ref(); err != nil {
		return nil, err
	}
	mark := v.driver.validationMark()
	p, err := v.buildProgram(key, x)
	if err == nil {
		if err = v.driver.validationSince(mark); err != nil {
			v.destroyProgram(p)
		}
	}
	if err != nil {
		v.unref()
		return nil, err
	}
	v.objMu.Lock()
	if v.programs == nil {
		v.objMu.Unlock()
		v.destroyProgram(p)
		v.unref()
		return nil, v.closedError()
	}
	if q := v.takeProgramLocked(key); q != nil {
		// Another prepare of the same bytes finished first.
		v.registerLocked(e, q)
		v.objMu.Unlock()
		v.destroyProgram(p)
		v.unref()
		return e, nil
	}
	p.refs = 1
	v.programs[key] = p
	v.registerLocked(e, p)
	v.objMu.Unlock()
	return e, nil
}

// registerLocked makes e an executable of p, which it holds a reference
// to, and has the garbage collector release it (v.objMu held).
func (v *device) registerLocked(e *executable, p *program) {
	v.nextExecutable++
	e.id, e.prog, e.entries = v.nextExecutable, p, p.entries
	v.executables[e.id] = execRecord{weak.Make(e), p}
	runtime.AddCleanup(e, func(id uint64) { v.dropExecutable(id) }, e.id)
}

// dropExecutable releases the program of executable id, once: after
// Close, after the last submission of a closed executable, or when an
// executable becomes unreachable.
func (v *device) dropExecutable(id uint64) {
	v.objMu.Lock()
	r, ok := v.executables[id]
	delete(v.executables, id)
	v.objMu.Unlock()
	if !ok {
		return
	}
	if e := r.exe.Value(); e != nil {
		e.markReleased()
	}
	v.releaseProgram(r.prog)
}

// execRecord is a live executable of a device and its program.
type execRecord struct {
	exe  weak.Pointer[executable]
	prog *program
}

// markReleased notes that e let go of its program: later dispatches fail.
func (e *executable) markReleased() {
	e.mu.Lock()
	e.released = true
	e.mu.Unlock()
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

// Close releases the executable once no submission uses it.
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
		e.d.dropExecutable(e.id)
	}
	return nil
}

// acquire marks a use by a submission.
func (e *executable) acquire() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.released {
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
		e.d.dropExecutable(e.id)
	}
}
