package vulkan

import (
	"fmt"
	"sync"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Vulkan constants of memory.
const (
	memoryPropertyDeviceLocal     = 0x1
	memoryPropertyHostVisible     = 0x2
	memoryPropertyHostCoherent    = 0x4
	memoryPropertyHostCached      = 0x8
	memoryPropertyLazilyAllocated = 0x10
	memoryPropertyProtected       = 0x20

	bufferUsageTransferSrc          = 0x1
	bufferUsageTransferDst          = 0x2
	bufferUsageStorageBuffer        = 0x20
	bufferUsageShaderDeviceAddress  = 0x20000
	memoryAllocateDeviceAddressBit  = 0x2
	externalMemoryHandleHostPointer = 0x80 // VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
	wholeSize                       = ^uint64(0)
)

// chooseMemoryType picks the memory type for a buffer whose requirements
// allow typeBits: host-visible and coherent when the host maps it
// (preferring device-local memory when device is set, else memory that
// is not device-local, which on a discrete GPU is the plentiful kind);
// otherwise device-local memory, preferring memory the host cannot see
// (keeping host-visible device memory, a small window on many GPUs, for
// the buffers that need it). Protected and lazily allocated types are
// never used. It returns false when no type fits.
func chooseMemoryType(mem *physicalDeviceMemoryProperties, typeBits uint32, hostVisible, device bool) (uint32, bool) {
	best, bestScore := uint32(0), -1
	for i := uint32(0); i < mem.memoryTypeCount && i < maxMemoryTypes; i++ {
		if typeBits&(1<<i) == 0 {
			continue
		}
		f := mem.memoryTypes[i].propertyFlags
		if f&(memoryPropertyProtected|memoryPropertyLazilyAllocated) != 0 {
			continue
		}
		isDevice := f&memoryPropertyDeviceLocal != 0
		isHost := f&memoryPropertyHostVisible != 0
		score := 0
		if hostVisible {
			if !isHost || f&memoryPropertyHostCoherent == 0 {
				continue
			}
			if isDevice == device {
				score += 4
			}
			if f&memoryPropertyHostCached != 0 {
				score++
			}
		} else {
			if isDevice {
				score += 4
			}
			if !isHost {
				score += 2
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best, bestScore >= 0
}

// allocator is a device's hal.Allocator: one VkBuffer and VkDeviceMemory
// per allocation, host-visible memory mapped for the allocation's life.
type allocator struct {
	d     *device
	mu    sync.Mutex
	stats hal.AllocatorStatistics
	// live storages by allocation size, to find a hal.Buffer's storage.
	bySize map[int64][]*storage
	// allocations whose memory the next recorded command buffer zeroes
	// (memory the host cannot map is zeroed on the device).
	pendingZero []*storage
}

var _ hal.Allocator = (*allocator)(nil)

func newAllocator(d *device) *allocator {
	return &allocator{d: d, bySize: map[int64][]*storage{}}
}

// maxAllocation is the largest allocation the device can make: its
// largest heap, within maxMemoryAllocationSize.
func (a *allocator) maxAllocation() int64 {
	var heap uint64
	for i := uint32(0); i < a.d.memory.memoryHeapCount && i < maxMemoryHeaps; i++ {
		heap = max(heap, a.d.memory.memoryHeaps[i].size)
	}
	if m := a.d.limits.maxMemoryAllocationSize; m != 0 {
		heap = min(heap, m)
	}
	return int64(min(heap, 1<<62))
}

// QueryCompatibility follows IREE's Vulkan allocator: every buffer can be
// allocated (up to the largest heap), host memory imported where
// VK_EXT_external_memory_host works, and device-visible buffers used by
// the queue for their usage. Mapping needs host-visible memory: it is
// added to the type (or, for MAPPING_OPTIONAL, the mapping is dropped
// unless device-local memory is host-visible too); host-visible buffers
// are coherent and mappable.
func (a *allocator) QueryCompatibility(params hal.BufferParams, size int64) (hal.BufferCompatibility, hal.BufferParams) {
	c := hal.BufferCompatibilityAllocatable
	if a.d.features.externalMemoryHost {
		c |= hal.BufferCompatibilityImportable
	}
	if params.Type&hal.MemoryTypeDeviceVisible == hal.MemoryTypeDeviceVisible {
		if params.Usage&hal.BufferUsageTransfer != 0 {
			c |= hal.BufferCompatibilityQueueTransfer
		}
		if params.Usage&hal.BufferUsageDispatch != 0 {
			c |= hal.BufferCompatibilityQueueDispatch
		}
	}
	params.Type &^= hal.MemoryTypeOptimal
	const mapping = hal.BufferUsageMappingScoped | hal.BufferUsageMappingPersistent
	if params.Usage&mapping != 0 && params.Type&hal.MemoryTypeHostVisible == 0 {
		if params.Usage&hal.BufferUsageMappingOptional == 0 || a.deviceMemoryIsHostVisible() {
			params.Type |= hal.MemoryTypeHostVisible
		} else {
			params.Usage &^= mapping | hal.BufferUsageMappingOptional
		}
	}
	if params.Type&hal.MemoryTypeHostVisible == 0 && a.deviceLocalMappable() {
		// Device memory the host sees anyway (lavapipe, integrated GPUs):
		// the buffer is host-visible and mappable.
		params.Type |= hal.MemoryTypeHostVisible
	}
	if params.Type&hal.MemoryTypeHostVisible != 0 {
		params.Type |= hal.MemoryTypeHostCoherent
		params.Usage |= mapping | hal.BufferUsageMappingAccessRandom
	}
	if size < 0 || size > a.maxAllocation() {
		c &^= hal.BufferCompatibilityAllocatable
	}
	return c, params
}

// deviceLocalMappable reports whether the memory type device-only
// buffers get is host-visible and coherent too, so that such buffers are
// mapped (lavapipe, integrated GPUs; not discrete GPUs, where it is not
// host-visible). The "hostVisibleDeviceMemory" test option turns it off,
// to run a discrete GPU's paths on lavapipe.
func (a *allocator) deviceLocalMappable() bool {
	if a.d.driver.opts.disabled["hostVisibleDeviceMemory"] {
		return false
	}
	i, ok := chooseMemoryType(&a.d.memory, ^uint32(0), false, true)
	const want = memoryPropertyHostVisible | memoryPropertyHostCoherent
	return ok && a.d.memory.memoryTypes[i].propertyFlags&want == want
}

// deviceMemoryIsHostVisible reports whether some device-local memory type
// is host-visible and coherent (integrated GPUs, ReBAR, lavapipe).
func (a *allocator) deviceMemoryIsHostVisible() bool {
	if a.d.driver.opts.disabled["hostVisibleDeviceMemory"] {
		return false
	}
	mem := &a.d.memory
	for i := uint32(0); i < mem.memoryTypeCount && i < maxMemoryTypes; i++ {
		f := mem.memoryTypes[i].propertyFlags
		if f&(memoryPropertyDeviceLocal|memoryPropertyHostVisible|memoryPropertyHostCoherent) == memoryPropertyDeviceLocal|memoryPropertyHostVisible|memoryPropertyHostCoherent {
			return true
		}
	}
	return false
}

// Allocate returns a zeroed buffer: host-visible memory is cleared by the
// host, other memory by a fill the next submission records first.
func (a *allocator) Allocate(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "cannot allocate %d bytes", size)
	}
	compat, params := a.QueryCompatibility(params, size)
	if compat&hal.BufferCompatibilityAllocatable == 0 {
		return nil, status.Errorf(status.ResourceExhausted, "cannot allocate %d bytes on %s: the largest allocation the device can make is %d bytes", size, a.d.describe(), a.maxAllocation())
	}
	hostVisible := params.Type&hal.MemoryTypeHostVisible != 0
	deviceLocal := params.Type&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal
	if err := a.d.ref(); err != nil {
		return nil, err
	}
	s := &storage{a: a, size: size, device: deviceLocal}
	if err := a.create(s, uint64(size), hostVisible, deviceLocal, nil); err != nil {
		a.d.unref()
		return nil, err
	}
	if hostVisible {
		clear(s.host)
	}
	a.track(s, !hostVisible && size > 0)
	a.record(deviceLocal, size)
	b := hal.NewBuffer(s, size, params, a.d)
	s.root = weak.Make(b)
	return b, nil
}

// create makes s's VkBuffer of at least n bytes (4 at least: Vulkan has
// no empty buffers) and its memory, mapped when hostVisible. With
// import set, the memory is that host range (already aligned).
func (a *allocator) create(s *storage, n uint64, hostVisible, device bool, imp *hostImport) error {
	d := a.d
	var m cmem
	defer m.free()
	usage := uint32(bufferUsageStorageBuffer | bufferUsageTransferSrc | bufferUsageTransferDst)
	if d.features.bufferDeviceAddress {
		usage |= bufferUsageShaderDeviceAddress
	}
	info := &bufferCreateInfo{sType: sTypeBufferCreateInfo, size: max((n+3)&^3, 4), usage: usage}
	if imp != nil {
		info.size = imp.size
		ext := &externalMemoryBufferCreateInfo{sType: sTypeExternalMemoryBufferCreateInfo, handleTypes: externalMemoryHandleHostPointer}
		info.pNext = m.pin(unsafe.Pointer(ext))
	}
	if err := check(d.vk.CreateBuffer(d.handle, (*bufferCreateInfo)(m.pin(unsafe.Pointer(info))), nil, &s.buffer), "vkCreateBuffer"); err != nil {
		return fmt.Errorf("allocating %d bytes on %s: %w", n, d.describe(), err)
	}
	var req memoryRequirements
	d.vk.GetBufferMemoryRequirements(d.handle, s.buffer, &req)
	typeBits := req.memoryTypeBits
	if imp != nil {
		typeBits &= imp.typeBits
	}
	index, ok := chooseMemoryType(&d.memory, typeBits, hostVisible, device)
	if !ok {
		d.vk.DestroyBuffer(d.handle, s.buffer, nil)
		return status.Errorf(status.ResourceExhausted, "allocating %d bytes on %s: no memory type fits (allowed types %#x, host-visible %v)", n, d.describe(), typeBits, hostVisible)
	}
	alloc := &memoryAllocateInfo{sType: sTypeMemoryAllocateInfo, allocationSize: req.size, memoryTypeIndex: index}
	next := &alloc.pNext
	if d.features.bufferDeviceAddress {
		flags := &memoryAllocateFlagsInfo{sType: sTypeMemoryAllocateFlagsInfo, flags: memoryAllocateDeviceAddressBit}
		*next, next = m.pin(unsafe.Pointer(flags)), &flags.pNext
	}
	if imp != nil {
		alloc.allocationSize = imp.size
		info := &importMemoryHostPointerInfo{sType: sTypeImportMemoryHostPointerInfo, handleType: externalMemoryHandleHostPointer, pHostPointer: imp.start}
		*next = m.pin(unsafe.Pointer(info))
	}
	if err := check(d.vk.AllocateMemory(d.handle, (*memoryAllocateInfo)(m.pin(unsafe.Pointer(alloc))), nil, &s.memory), "vkAllocateMemory"); err != nil {
		d.vk.DestroyBuffer(d.handle, s.buffer, nil)
		return fmt.Errorf("allocating %d bytes of memory type %d on %s: %w", req.size, index, d.describe(), err)
	}
	if err := check(d.vk.BindBufferMemory(d.handle, s.buffer, s.memory, 0), "vkBindBufferMemory"); err != nil {
		d.vk.DestroyBuffer(d.handle, s.buffer, nil)
		d.vk.FreeMemory(d.handle, s.memory, nil)
		return err
	}
	if hostVisible && imp == nil {
		var p unsafe.Pointer
		if err := check(d.vk.MapMemory(d.handle, s.memory, 0, wholeSize, 0, &p), "vkMapMemory"); err != nil {
			d.vk.DestroyBuffer(d.handle, s.buffer, nil)
			d.vk.FreeMemory(d.handle, s.memory, nil)
			return err
		}
		s.mapped = true
		s.host = unsafe.Slice((*byte)(p), int(n))
	}
	return nil
}
