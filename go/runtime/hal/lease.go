package hal

import (
	"runtime"
	"sync/atomic"
)

// Leases let an allocator that wraps another (a cache, a debugging
// allocator: see the allocators package) hand out part of an allocation
// it keeps: the lease is a buffer over the allocation of a root buffer the
// wrapper holds, so drivers recognize its memory as theirs (the same
// allocation and placement), and when the lease's last reference goes the
// root is given back to the wrapper instead of being released.

// lease ties a leased buffer to the root it was cut from.
type lease struct {
	root    *Buffer
	give    func(root *Buffer)
	ended   atomic.Bool
	cleanup runtime.Cleanup
}

// end gives the root back, once.
func (l *lease) end() {
	if l.ended.CompareAndSwap(false, true) {
		l.cleanup.Stop()
		l.give(l.root)
	}
}

// NewLease returns a buffer over [offset, offset+length) of root (a
// buffer an allocator returned, itself possibly a lease of a wrapped
// allocator), sharing its allocation, whose one reference the caller owns. root stays the
// caller's (the lease does not retain it); when the lease's last reference
// is released (or, for a lease nobody releases, when it becomes
// unreachable), give is called once with root, from the goroutine that
// released it. Using the lease afterwards is a FAILED_PRECONDITION error
// even if root's memory is leased again.
func NewLease(root *Buffer, offset, length int64, give func(root *Buffer)) (*Buffer, error) {
	if err := root.Check(); err != nil {
		return nil, err
	}
	if err := root.CheckRange(offset, length); err != nil {
		return nil, err
	}
	l := &lease{root: root, give: give}
	b := &Buffer{a: root.a, offset: root.offset + offset, length: length, lease: l}
	b.refs.Store(1)
	l.cleanup = runtime.AddCleanup(b, func(l *lease) { l.end() }, l)
	return b, nil
}

// LeaseRoot returns the root a lease was cut from (nil for a buffer that
// is not a lease).
func (b *Buffer) LeaseRoot() *Buffer {
	if b.lease == nil {
		return nil
	}
	return b.lease.root
}
