package hal

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// Allocator makes buffers for one device (IREE's iree_hal_allocator_t).
// Its methods are safe for concurrent use.
type Allocator interface {
	// QueryCompatibility returns what the allocator can do with buffers of
	// params and size, and the parameters an allocation would actually
	// get (an allocator may add bits: host memory is always mappable).
	QueryCompatibility(params BufferParams, size int64) (BufferCompatibility, BufferParams)
	// Allocate returns a new buffer of size bytes, zeroed, whose one
	// reference the caller owns.
	Allocate(params BufferParams, size int64) (*Buffer, error)
	// Import wraps host memory as a buffer without copying it; release,
	// when not nil, is called once the buffer's memory is freed. The
	// caller keeps data alive and unmoved until then.
	Import(params BufferParams, data []byte, release func()) (*Buffer, error)
	// Statistics returns the bytes allocated and freed so far.
	Statistics() AllocatorStatistics
	// Trim gives cached memory back to the system.
	Trim() error
}

// AllocatorStatistics counts an allocator's bytes, split as IREE splits
// them: host-local and device-local memory.
type AllocatorStatistics struct {
	HostBytesPeak, HostBytesAllocated, HostBytesFreed       int64
	DeviceBytesPeak, DeviceBytesAllocated, DeviceBytesFreed int64
}

// Format spells the statistics as iree_hal_allocator_statistics_format.
func (s AllocatorStatistics) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  HOST_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live\n",
		s.HostBytesPeak, s.HostBytesAllocated, s.HostBytesFreed, s.HostBytesAllocated-s.HostBytesFreed)
	fmt.Fprintf(&b, "DEVICE_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live\n",
		s.DeviceBytesPeak, s.DeviceBytesAllocated, s.DeviceBytesFreed, s.DeviceBytesAllocated-s.DeviceBytesFreed)
	return b.String()
}

// HeapAllocator allocates host memory from the Go heap, as IREE's heap
// allocator does for the local devices: every buffer is host-visible and
// mappable, and usable by every local device.
type HeapAllocator struct {
	mu    sync.Mutex
	stats AllocatorStatistics
}

var _ Allocator = (*HeapAllocator)(nil)

// NewHeapAllocator returns an allocator of host memory.
func NewHeapAllocator() *HeapAllocator { return &HeapAllocator{} }

// QueryCompatibility: host memory can be allocated, imported and exported
// whatever the parameters; the queue may use it for transfers and
// dispatches when it is device-visible (as IREE checks, so that buffers
// defined wrongly fail on the CPU too, not only on a GPU). Allocations are
// always host-visible and mappable.
func (h *HeapAllocator) QueryCompatibility(params BufferParams, size int64) (BufferCompatibility, BufferParams) {
	c := BufferCompatibilityAllocatable | BufferCompatibilityImportable | BufferCompatibilityExportable
	if params.Type&MemoryTypeDeviceVisible == MemoryTypeDeviceVisible {
		if params.Usage&BufferUsageTransfer != 0 {
			c |= BufferCompatibilityQueueTransfer
		}
		if params.Usage&BufferUsageDispatch != 0 {
			c |= BufferCompatibilityQueueDispatch
		}
	}
	params.Type = (params.Type | MemoryTypeHostVisible) &^ MemoryTypeOptimal
	params.Usage |= BufferUsageMappingScoped | BufferUsageMappingPersistent | BufferUsageMappingAccessRandom | BufferUsageTransfer
	if size > maxBufferBytes || size < 0 {
		c &^= BufferCompatibilityAllocatable
	}
	return c, params
}

// Allocate returns zeroed host memory (see AllocHost: a size the machine
// or the memory limit cannot satisfy is RESOURCE_EXHAUSTED, and large
// buffers are mappings unmapped when the buffer is released).
func (h *HeapAllocator) Allocate(params BufferParams, size int64) (*Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "cannot allocate %d bytes: the size is negative", size)
	}
	_, params = h.QueryCompatibility(params, size)
	device := params.Type&MemoryTypeDeviceLocal == MemoryTypeDeviceLocal
	s, err := newHostStorage(size, func() string {
		return fmt.Sprintf("a HAL buffer (memory_type=%s, allowed_usage=%s)", params.Type, params.Usage)
	}, func(n int64) {
		h.recordFree(device, n)
	})
	if err != nil {
		return nil, err
	}
	h.record(device, int64(cap(s.b)))
	return NewBuffer(s, size, params, nil), nil
}

// Import wraps host memory.
func (h *HeapAllocator) Import(params BufferParams, data []byte, release func()) (*Buffer, error) {
	_, params = h.QueryCompatibility(params, int64(len(data)))
	return h.wrap(params, data, release), nil
}

func (h *HeapAllocator) wrap(params BufferParams, data []byte, release func()) *Buffer {
	device := params.Type&MemoryTypeDeviceLocal == MemoryTypeDeviceLocal
	n := int64(cap(data))
	h.record(device, n)
	s := &hostStorage{b: data, freed: func(n int64) {
		h.recordFree(device, n)
		if release != nil {
			release()
		}
	}}
	return NewBuffer(s, int64(len(data)), params, nil)
}

func (h *HeapAllocator) record(device bool, n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &h.stats
	if device {
		s.DeviceBytesAllocated += n
		s.DeviceBytesPeak = max(s.DeviceBytesPeak, s.DeviceBytesAllocated-s.DeviceBytesFreed)
	} else {
		s.HostBytesAllocated += n
		s.HostBytesPeak = max(s.HostBytesPeak, s.HostBytesAllocated-s.HostBytesFreed)
	}
}

func (h *HeapAllocator) recordFree(device bool, n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if device {
		h.stats.DeviceBytesFreed += n
	} else {
		h.stats.HostBytesFreed += n
	}
}

// Statistics returns the bytes allocated and freed so far. Buffers nobody
// released count as freed once the garbage collector has reclaimed them.
func (h *HeapAllocator) Statistics() AllocatorStatistics {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

// Trim gives the Go heap's free memory back to the system: freed host
// buffers return to the Go heap, which keeps their pages until its
// scavenger releases them in the background; Trim collects garbage and
// releases them now (debug.FreeOSMemory).
func (h *HeapAllocator) Trim() error {
	debug.FreeOSMemory()
	return nil
}
