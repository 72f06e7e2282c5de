package hal

import (
	"sync/atomic"

	"github.com/gree-ml/gree/go/status"
)

// AllocatorReplacer is implemented by devices whose allocator can be
// replaced by one wrapping it (IREE's iree_hal_device_replace_allocator,
// which --device_allocator specs use: see the allocators package). The
// replacement must be made right after the device is created, before it
// allocates anything; the device's own queue allocations (QueueAllocator)
// keep using its pools.
type AllocatorReplacer interface {
	ReplaceAllocator(a Allocator) error
}

// AllocatorOverride is what a driver embeds in its device to implement
// AllocatorReplacer: Allocator returns Override(own) and Close calls
// CloseOverride before the device's memory goes.
type AllocatorOverride struct {
	a atomic.Pointer[Allocator]
}

// ReplaceAllocator makes a the device's allocator.
func (o *AllocatorOverride) ReplaceAllocator(a Allocator) error {
	if a == nil {
		return status.New(status.InvalidArgument, "the replacement allocator is nil")
	}
	o.a.Store(&a)
	return nil
}

// Override returns the replacement allocator, or own when there is none.
func (o *AllocatorOverride) Override(own Allocator) Allocator {
	if p := o.a.Load(); p != nil {
		return *p
	}
	return own
}

// CloseOverride closes the replacement allocator when it has a Close
// method (a cache gives back the memory it keeps); nothing otherwise.
func (o *AllocatorOverride) CloseOverride() error {
	if p := o.a.Load(); p != nil {
		if c, ok := (*p).(interface{ Close() error }); ok {
			return c.Close()
		}
	}
	return nil
}

// MemoryKeeper is implemented by allocators that keep the memory of
// released buffers for a while (a cache, a debugging quarantine): their
// statistics count that memory freed only once they give it back (Trim),
// and the buffers they return are leases (NewLease) of larger
// allocations.
type MemoryKeeper interface {
	KeepsReleasedMemory() bool
}

// KeepsReleasedMemory reports whether a is a MemoryKeeper that keeps
// released memory.
func KeepsReleasedMemory(a Allocator) bool {
	k, ok := a.(MemoryKeeper)
	return ok && k.KeepsReleasedMemory()
}
