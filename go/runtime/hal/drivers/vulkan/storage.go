package vulkan

import (
	"runtime"
	"sync"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// storage is one allocation's Vulkan objects; it is the hal.Storage of
// the buffers over it. Its memory is freed when hal frees the allocation
// and no submission in flight uses it.
type storage struct {
	a       *allocator
	buffer  uint64 // VkBuffer
	memory  uint64 // VkDeviceMemory
	base    int64  // offset of the allocation's byte 0 in buffer
	size    int64
	host    []byte // the host's view (nil: not host-visible)
	mapped  bool
	device  bool // counted as device-local in the statistics
	release func()
	pin     runtime.Pinner
	root    weak.Pointer[hal.Buffer]

	mu        sync.Mutex
	inflight  int
	freed     bool
	destroyed bool
}

// Bytes returns the host's view of the allocation, nil when the host
// cannot see it.
func (s *storage) Bytes() []byte { return s.host }

// Free gives the memory back once no submission uses it.
func (s *storage) Free() {
	s.mu.Lock()
	if s.freed {
		s.mu.Unlock()
		return
	}
	s.freed = true
	now := s.inflight == 0
	s.mu.Unlock()
	s.a.untrack(s)
	if now {
		s.destroy()
	}
}

// acquire marks a use by a submission; it fails once the memory is gone.
func (s *storage) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.freed {
		return false
	}
	s.inflight++
	return true
}

// releaseUse ends a submission's use, freeing memory freed meanwhile.
func (s *storage) releaseUse() {
	s.mu.Lock()
	s.inflight--
	now := s.freed && s.inflight == 0
	s.mu.Unlock()
	if now {
		s.destroy()
	}
}

func (s *storage) destroy() {
	s.mu.Lock()
	if s.destroyed {
		s.mu.Unlock()
		return
	}
	s.destroyed = true
	s.mu.Unlock()
	d := s.a.d
	if s.mapped {
		d.vk.UnmapMemory(d.handle, s.memory)
	}
	d.vk.DestroyBuffer(d.handle, s.buffer, nil)
	d.vk.FreeMemory(d.handle, s.memory, nil)
	s.pin.Unpin()
	s.a.recordFree(s.device, s.size)
	if s.release != nil {
		s.release()
	}
	d.unref()
}

func (a *allocator) track(s *storage, zero bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bySize[s.size] = append(a.bySize[s.size], s)
	if zero {
		a.pendingZero = append(a.pendingZero, s)
	}
}

func (a *allocator) untrack(s *storage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.bySize[s.size]
	for i, o := range list {
		if o == s {
			list[i] = list[len(list)-1]
			list = list[:len(list)-1]
			break
		}
	}
	if len(list) == 0 {
		delete(a.bySize, s.size)
	} else {
		a.bySize[s.size] = list
	}
}

// takePendingZero returns the allocations still to be zeroed, acquired
// for the submission that zeroes them.
func (a *allocator) takePendingZero() []*storage {
	a.mu.Lock()
	list := a.pendingZero
	a.pendingZero = nil
	a.mu.Unlock()
	out := list[:0]
	for _, s := range list {
		if s.acquire() {
			out = append(out, s)
		}
	}
	return out
}

// restorePendingZero puts back allocations a failed recording did not
// zero.
func (a *allocator) restorePendingZero(list []*storage) {
	a.mu.Lock()
	a.pendingZero = append(a.pendingZero, list...)
	a.mu.Unlock()
	for _, s := range list {
		s.releaseUse()
	}
}

// lookup returns the storage of a buffer of this device, nil for a buffer
// of other memory.
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

func (a *allocator) record(device bool, n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := &a.stats
	if device {
		s.DeviceBytesAllocated += n
		s.DeviceBytesPeak = max(s.DeviceBytesPeak, s.DeviceBytesAllocated-s.DeviceBytesFreed)
	} else {
		s.HostBytesAllocated += n
		s.HostBytesPeak = max(s.HostBytesPeak, s.HostBytesAllocated-s.HostBytesFreed)
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

// Statistics returns the bytes allocated and freed so far.
func (a *allocator) Statistics() hal.AllocatorStatistics {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}

// Trim gives back the device's cached staging memory.
func (a *allocator) Trim() error {
	if a.d.ref() != nil {
		return nil // closed: the blocks went with the device
	}
	defer a.d.unref()
	a.d.trimBlocks()
	return nil
}
