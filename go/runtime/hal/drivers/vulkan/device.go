package vulkan

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
	spirvschema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// device is a created Vulkan device: a VkDevice with one compute queue,
// the allocator, executables, semaphores and the queue that translates
// command buffers (queue.go, record.go).
type device struct {
	driver              *driver
	info                hal.DeviceInfo
	handle              uintptr
	queue               uintptr
	queueFamily         uint32
	bufferDeviceAddress bool
	vk                  deviceAPI
	features            features // what the device enabled
	limits              limits
	ts                  timestamps // timestamp queries for --trace_output (trace.go)
	memory              physicalDeviceMemoryProperties

	alloc         *allocator
	pipelineCache uint64
	q             queueState

	// mu guards the command pool and the VkQueue (both externally
	// synchronized) and the fences kept for reuse.
	mu          sync.Mutex
	commandPool uint64
	fences      []uint64
	blockMu     sync.Mutex
	blocks      []*hostBlock // staging blocks kept for reuse

	// objects that Close destroys: live semaphores, executables and the
	// programs of executables (program.go; each semaphore and program
	// holds a reference to the VkDevice until it is destroyed). The maps
	// are nil once the device is closed.
	objMu          sync.Mutex
	timelines      map[uint64]weak.Pointer[timeline]
	executables    map[uint64]execRecord
	nextExecutable uint64
	programs       map[programKey]*program
	idle           []*program   // programs no executable uses, oldest first
	pipelines      atomic.Int64 // compute pipelines created (tests count them)

	// The VkDevice lives while the device is open or memory, semaphores or
	// executables made from it are: refs counts them all.
	lifeMu    sync.Mutex
	refs      int
	closed    bool
	closeOnce sync.Once
	closeErr  error

	// AllocatorOverride wraps alloc (--device_allocator).
	hal.AllocatorOverride
}

var _ hal.Device = (*device)(nil)

// init creates what the device needs besides the VkDevice.
func (v *device) init() error {
	v.refs = 1
	v.alloc = newAllocator(v)
	v.timelines = map[uint64]weak.Pointer[timeline]{}
	v.executables = map[uint64]execRecord{}
	v.programs = map[programKey]*program{}
	var m cmem
	defer m.free()
	poolInfo := &commandPoolCreateInfo{sType: sTypeCommandPoolCreateInfo, flags: 0x1 /* TRANSIENT */, queueFamilyIndex: v.queueFamily}
	if err := check(v.vk.CreateCommandPool(v.handle, poolInfo, nil, &v.commandPool), "vkCreateCommandPool"); err != nil {
		return err
	}
	cacheInfo := &pipelineCacheCreateInfo{sType: sTypePipelineCacheCreateInfo}
	if err := check(v.vk.CreatePipelineCache(v.handle, cacheInfo, nil, &v.pipelineCache), "vkCreatePipelineCache"); err != nil {
		return err
	}
	v.q.init(v)
	return nil
}

// describe names the device in errors.
func (v *device) describe() string {
	return fmt.Sprintf("vulkan://%s (%s)", v.info.Path, v.info.Name)
}

// ref counts a new user of the VkDevice (an allocation); it fails once
// the device is closed.
func (v *device) ref() error {
	v.lifeMu.Lock()
	defer v.lifeMu.Unlock()
	if v.closed {
		return status.Errorf(status.FailedPrecondition, "%s is closed", v.describe())
	}
	v.refs++
	return nil
}

// unref drops a user; the last destroys the VkDevice.
func (v *device) unref() {
	v.lifeMu.Lock()
	v.refs--
	last := v.refs == 0
	v.lifeMu.Unlock()
	if last {
		v.destroy()
		v.driver.release()
	}
}

// destroy destroys the device's own objects and the VkDevice.
func (v *device) destroy() {
	v.trimBlocks()
	if v.pipelineCache != 0 {
		v.vk.DestroyPipelineCache(v.handle, v.pipelineCache, nil)
		v.pipelineCache = 0
	}
	for _, f := range v.fences {
		v.vk.DestroyFence(v.handle, f, nil)
	}
	v.fences = nil
	if v.commandPool != 0 {
		v.vk.DestroyCommandPool(v.handle, v.commandPool, nil)
		v.commandPool = 0
	}
	v.vk.DestroyDevice(v.handle, nil)
	v.handle, v.queue = 0, 0
}

// ID returns "vulkan", IREE's device identifier.
func (v *device) ID() string { return Name }

// Info returns the device's DeviceInfo.
func (v *device) Info() hal.DeviceInfo { return v.info }

// Allocator returns the device's allocator.
func (v *device) Allocator() hal.Allocator { return v.Override(v.alloc) }

// Formats lists the executable format the device loads.
func (v *device) Formats() []string { return []string{spirvschema.Format} }

// Close refuses new work, cancels the work still waiting for semaphores
// (CANCELLED), waits for the work submitted, and destroys the semaphores
// and the executables' objects (pipelines, layouts, shader modules). The
// VkDevice itself is destroyed once the memory allocated from it is freed
// too (buffers may outlive their device; their host views stay valid).
// Later calls do nothing.
func (v *device) Close() error {
	v.closeOnce.Do(func() {
		v.CloseOverride()
		v.closeErr = v.q.close()
		v.objMu.Lock()
		timelines := v.timelines
		exes := v.executables
		progs := v.programs
		v.timelines, v.executables, v.programs, v.idle = nil, nil, nil, nil
		v.objMu.Unlock()
		for handle, wp := range timelines {
			if t := wp.Value(); t != nil {
				t.detach()
			}
			v.vk.DestroySemaphore(v.handle, handle, nil)
			v.unref()
		}
		for _, r := range exes {
			if e := r.exe.Value(); e != nil {
				e.markReleased()
			}
		}
		for _, p := range progs {
			v.destroyProgram(p)
			v.unref()
		}
		v.lifeMu.Lock()
		v.closed = true
		v.lifeMu.Unlock()
		v.unref()
	})
	return v.closeErr
}

// hostBlock is host-visible, coherent memory a submission stages data
// and status words in.
type hostBlock struct {
	s    storage
	size int64
}

// A device keeps up to maxCachedBlocks staging blocks of at most
// maxCachedBlock bytes for reuse (larger ones are freed at once).
const (
	maxCachedBlocks = 4
	maxCachedBlock  = 16 << 20
)

// getBlock returns a staging block of at least n bytes.
func (v *device) getBlock(n int64) (*hostBlock, error) {
	v.blockMu.Lock()
	for i, b := range v.blocks {
		if b.size >= n {
			v.blocks = append(v.blocks[:i], v.blocks[i+1:]...)
			v.blockMu.Unlock()
			return b, nil
		}
	}
	v.blockMu.Unlock()
	size := max(n, 64<<10)
	b := &hostBlock{size: size}
	b.s.a = v.alloc
	if err := v.alloc.create(&b.s, uint64(size), true, false, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// putBlock returns a block to the cache (or frees it).
func (v *device) putBlock(b *hostBlock) {
	v.blockMu.Lock()
	if len(v.blocks) < maxCachedBlocks && b.size <= maxCachedBlock {
		v.blocks = append(v.blocks, b)
		v.blockMu.Unlock()
		return
	}
	v.blockMu.Unlock()
	v.freeBlock(b)
}

func (v *device) freeBlock(b *hostBlock) {
	v.vk.UnmapMemory(v.handle, b.s.memory)
	v.vk.DestroyBuffer(v.handle, b.s.buffer, nil)
	v.vk.FreeMemory(v.handle, b.s.memory, nil)
}

// trimBlocks frees the cached staging blocks.
func (v *device) trimBlocks() {
	v.blockMu.Lock()
	blocks := v.blocks
	v.blocks = nil
	v.blockMu.Unlock()
	for _, b := range blocks {
		v.freeBlock(b)
	}
}

// pinned returns a pinned pointer to p's first element (nil when empty).
func pinned[T any](m *cmem, p []T) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return m.pin(unsafe.Pointer(&p[0]))
}
