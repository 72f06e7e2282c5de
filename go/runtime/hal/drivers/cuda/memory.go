package cuda

import (
	"fmt"
	"sync"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// allocator is a device's hal.Allocator. Device-local buffers are
// cuMemAlloc_v2 memory (cuMemAllocAsync on the stream for stream-ordered
// queue allocations): the host cannot map them and reaches them through
// staging copies on the queue, as on a discrete GPU under Vulkan.
// Host-visible buffers are pinned host memory (cuMemHostAlloc, portable
// and mapped), which kernels and copies address directly through unified
// addressing. New memory is zeroed: device memory by a cuMemsetD8Async
// enqueued on the device's stream before any later work, host memory by
// the host.
type allocator struct {
	d *device

	mu     sync.Mutex
	stats  hal.AllocatorStatistics
	bySize map[int64][]*storage // live allocations, for lookup
}

var _ hal.Allocator = (*allocator)(nil)

func newAllocator(d *device) *allocator {
	return &allocator{d: d, bySize: map[int64][]*storage{}}
}

// storage is one allocation's memory (hal.Storage).
type storage struct {
	a      *allocator
	size   int64
	pinned bool   // pinned host memory (else device memory)
	block  []byte // the pinned block (pool.go) holding pinned memory
	host   []byte // the host view of pinned (or mapped device) memory
	root   weak.Pointer[hal.Buffer]

	mu     sync.Mutex
	ptr    uint64 // device address; 0 while a queue allocation is pending
	async  bool   // from the stream-ordered allocator: freed on the stream
	failed error  // the queue allocation failed
	freed  bool
}

// Bytes returns the host view of pinned host memory, nil for device
// memory (unless the driver maps device memory, see driver.mapDevice).
func (s *storage) Bytes() []byte { return s.host }

// address returns the device address of the allocation, or why it has none.
func (s *storage) address() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.freed:
		return 0, status.New(status.FailedPrecondition, "a buffer's memory was used after it was freed")
	case s.failed != nil:
		return 0, fmt.Errorf("a buffer whose queue allocation failed was used: %w", s.failed)
	case s.ptr == 0:
		return 0, status.New(status.FailedPrecondition, "a buffer was used before its queue allocation was reached (wait for the alloca's signal first)")
	}
	return s.ptr, nil
}

// Free gives the memory back: device memory by cuMemFree_v2 on the
// device's worker (stream-ordered memory by cuMemFreeAsync on the stream,
// after the work enqueued before); pinned memory to the device's block
// cache (pool.go) or cuMemFreeHost.
func (s *storage) Free() {
	s.mu.Lock()
	if s.freed {
		s.mu.Unlock()
		return
	}
	s.freed = true
	ptr, async := s.ptr, s.async
	s.mu.Unlock()
	a, d := s.a, s.a.d
	a.forget(s)
	device := !s.pinned
	s.host = nil
	if !device {
		d.putHostBlock(s.block)
		s.block = nil
	} else if ptr != 0 {
		// hal.Storage.Free has no error to return: a failure here (a
		// context already broken by a kernel fault) leaves nothing to do.
		d.w.do(func() error {
			if async {
				return d.cu.check(d.cu.MemFreeAsync(ptr, d.stream), "cuMemFreeAsync")
			}
			return d.cu.check(d.cu.MemFree(ptr), "cuMemFree_v2")
		})
	}
	a.recordFree(device, s.size)
	d.unref()
}

// QueryCompatibility says how a buffer of params would be allocated:
// host-visible requests get pinned host memory (mappable, usable by
// transfers and dispatches), others device-local memory the host cannot
// map.
func (a *allocator) QueryCompatibility(params hal.BufferParams, size int64) (hal.BufferCompatibility, hal.BufferParams) {
	c := hal.BufferCompatibilityAllocatable | hal.BufferCompatibilityQueueTransfer | hal.BufferCompatibilityQueueDispatch
	if a.d.drv.mapDevice && params.Type&hal.MemoryTypeHostVisible == 0 {
		params.Type = (params.Type | hal.MemoryTypeDeviceLocal | hal.MemoryTypeHostVisible | hal.MemoryTypeHostCoherent) &^ hal.MemoryTypeOptimal
		params.Usage |= hal.BufferUsageMappingScoped | hal.BufferUsageMappingPersistent | hal.BufferUsageMappingAccessRandom | hal.BufferUsageTransfer
	} else if params.Type&hal.MemoryTypeHostVisible != 0 {
		params.Type = (params.Type | hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible) &^ hal.MemoryTypeOptimal
		params.Usage |= hal.BufferUsageMappingScoped | hal.BufferUsageMappingPersistent | hal.BufferUsageMappingAccessRandom | hal.BufferUsageTransfer
	} else {
		params.Type = (params.Type | hal.MemoryTypeDeviceLocal) &^ hal.MemoryTypeOptimal
		params.Usage &^= hal.BufferUsageMappingScoped | hal.BufferUsageMappingPersistent | hal.BufferUsageMappingAccessRandom | hal.BufferUsageMappingAccessSequentialWrite
		params.Usage |= hal.BufferUsageTransfer
	}
	if size < 0 || uint64(size) > a.d.total {
		c &^= hal.BufferCompatibilityAllocatable
	}
	return c, params
}

// Allocate allocates zeroed memory; running out of it is
// RESOURCE_EXHAUSTED.
func (a *allocator) Allocate(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	d := a.d
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "cannot allocate %d bytes", size)
	}
	_, params = a.QueryCompatibility(params, size)
	host := params.Type&hal.MemoryTypeHostVisible != 0 && params.Type&hal.MemoryTypeDeviceLocal != hal.MemoryTypeDeviceLocal
	if !host && uint64(size) > d.total {
		return nil, status.Errorf(status.ResourceExhausted, "cannot allocate %d bytes on %s: the device has %d bytes of memory", size, d.describe(), d.total)
	}
	if err := d.ref(); err != nil {
		return nil, err
	}
	s := &storage{a: a, size: size, pinned: host}
	n := uintptr(max(size, 1))
	err := d.w.do(func() error {
		if host {
			b, err := d.hostBlock(int64(n))
			if err != nil {
				return err
			}
			s.block, s.host = b, b[:size:size]
			clear(s.host)
			s.ptr = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
			return nil
		}
		if r := d.cu.MemAlloc(&s.ptr, n); r != cudaSuccess {
			return d.allocError(r, "cuMemAlloc_v2")
		}
		if err := d.cu.check(d.cu.MemsetD8Async(s.ptr, 0, n, d.stream), "cuMemsetD8Async"); err != nil {
			d.cu.MemFree(s.ptr)
			return err
		}
		if d.drv.mapDevice {
			s.host = unsafe.Slice((*byte)(hostPointer(s.ptr)), n)[:size:size]
		}
		return nil
	})
	if err != nil {
		d.unref()
		return nil, fmt.Errorf("allocating %d bytes on %s: %w", size, d.describe(), err)
	}
	return a.wrap(s, params, !host), nil
}

// allocError is the error of a failed allocation call; running out of
// memory says how much the device has free (on the worker).
func (v *device) allocError(r int32, call string) error {
	err := v.cu.check(r, call)
	var free, total uintptr
	if r == cudaErrorOutOfMemory && v.cu.MemGetInfo(&free, &total) == cudaSuccess {
		err = fmt.Errorf("%w (%d of the device's %d bytes are free)", err, free, total)
	}
	return err
}

// wrap makes the hal buffer of s and records the allocation.
func (a *allocator) wrap(s *storage, params hal.BufferParams, device bool) *hal.Buffer {
	b := hal.NewBuffer(s, s.size, params, a.d)
	s.root = weak.Make(b)
	a.mu.Lock()
	a.bySize[s.size] = append(a.bySize[s.size], s)
	st := &a.stats
	if device {
		st.DeviceBytesAllocated += s.size
		st.DeviceBytesPeak = max(st.DeviceBytesPeak, st.DeviceBytesAllocated-st.DeviceBytesFreed)
	} else {
		st.HostBytesAllocated += s.size
		st.HostBytesPeak = max(st.HostBytesPeak, st.HostBytesAllocated-st.HostBytesFreed)
	}
	a.mu.Unlock()
	return b
}

// forget drops s from the lookup table.
func (a *allocator) forget(s *storage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.bySize[s.size]
	for i, o := range list {
		if o == s {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(a.bySize, s.size)
	} else {
		a.bySize[s.size] = list
	}
}

func (a *allocator) recordFree(device bool, n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if device {
		a.stats.DeviceBytesFreed += n
	} else {
		a.stats.HostBytesFreed += n
	}
}

// lookup returns the storage of a buffer of this device, nil for a
// buffer of other memory.
func (a *allocator) lookup(b *hal.Buffer) *storage {
	if b.Placement() != any(a.d) {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.bySize[b.AllocationSize()] {
		if r := s.root.Value(); r != nil && r.SameAllocation(b) {
			return s
		}
	}
	return nil
}

// hostPointer converts an address of host memory that libcuda handed out
// (pinned memory, whose device address is its host address under unified
// addressing) back to a pointer.
func hostPointer(addr uint64) unsafe.Pointer {
	p := uintptr(addr)
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// Import is UNIMPLEMENTED: the device does not register foreign host
// memory (cuMemHostRegister) yet; QueryCompatibility never offers it.
func (a *allocator) Import(params hal.BufferParams, data []byte, release func()) (*hal.Buffer, error) {
	return nil, status.Errorf(status.Unimplemented, "%s cannot import host memory yet: allocate a host-visible buffer and copy into it", a.d.describe())
}

// Statistics returns the bytes allocated and freed so far.
func (a *allocator) Statistics() hal.AllocatorStatistics {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}

// Trim frees the device's cached staging and status blocks.
func (a *allocator) Trim() error {
	if a.d.ref() != nil {
		return nil // closed: the blocks went with the device
	}
	defer a.d.unref()
	return a.d.trimPool()
}
