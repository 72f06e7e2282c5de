package hal

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/status"
)

// Storage is the memory behind an allocation, provided by the allocator
// that made it.
type Storage interface {
	// Bytes returns the allocation's bytes as the host sees them, or nil
	// when the memory is not host-visible.
	Bytes() []byte
	// Free gives the memory back. It is called exactly once: when the last
	// buffer over the allocation is released, when the allocation is
	// deallocated on a queue, or, for an allocation nobody released, when
	// the garbage collector finds it unreachable.
	Free()
}

// allocation is the memory one allocator call made, shared by the buffer
// the allocator returned and every subspan of it.
type allocation struct {
	storage Storage
	size    int64
	typ     MemoryType
	access  MemoryAccess
	usage   BufferUsage
	// placement identifies the memory space (nil: host memory any local
	// device can use; a GPU driver sets its device).
	placement any
	// buffers counts the live (unreleased) buffers over the allocation.
	buffers atomic.Int64
	mu      sync.Mutex
	freed   bool
	why     string // why the memory is gone ("released", "deallocated")
	cleanup runtime.Cleanup
}

// Buffer is a range of an allocation with IREE's reference semantics: the
// creator holds one reference, Retain adds one, Release drops one, and the
// allocation's memory is freed when its last buffer's last reference goes.
// A Buffer nobody releases is freed when it becomes unreachable, so code
// that relies on the garbage collector (the VM) stays correct; explicit
// release makes the moment deterministic. Using a buffer after its last
// release is a FAILED_PRECONDITION error naming it, not a crash.
type Buffer struct {
	a      *allocation
	offset int64
	length int64
	refs   atomic.Int64
	parent *Buffer // the buffer a subspan retains
	lender *Buffer // the buffer a borrowed view lies in (see Borrow)
	lease  *lease  // for a lease (see NewLease): the root to give back
	tag    any
}

// SetTag records a value for the code that made the buffer (a cache
// recognizing its own buffers); Tag returns it.
func (b *Buffer) SetTag(v any) { b.tag = v }

// Tag returns the value SetTag recorded.
func (b *Buffer) Tag() any { return b.tag }

// NewBuffer makes a buffer over storage of size bytes with the given
// parameters; the caller holds its one reference. Allocators call it.
func NewBuffer(storage Storage, size int64, params BufferParams, placement any) *Buffer {
	access := params.Access
	if access == MemoryAccessNone {
		access = MemoryAccessAll
	}
	a := &allocation{storage: storage, size: size, typ: params.Type, access: access, usage: params.Usage, placement: placement}
	a.buffers.Store(1)
	a.cleanup = runtime.AddCleanup(a, func(s Storage) { s.Free() }, storage)
	b := &Buffer{a: a, length: size}
	b.refs.Store(1)
	return b
}

// String describes the buffer as IREE's Python repr does: "48 bytes (at
// offset 0 into 48), memory_type=…, allowed_access=…, allowed_usage=…".
func (b *Buffer) String() string {
	return fmt.Sprintf("%d bytes (at offset %d into %d), memory_type=%s, allowed_access=%s, allowed_usage=%s",
		b.length, b.offset, b.a.size, b.a.typ, b.a.access, b.a.usage)
}

// describe names the buffer in error messages.
func (b *Buffer) describe() string {
	return fmt.Sprintf("buffer of %d bytes (memory_type=%s, allowed_usage=%s)", b.length, b.a.typ, b.a.usage)
}

// MemoryType returns the memory type of the allocation.
func (b *Buffer) MemoryType() MemoryType { return b.a.typ }

// AllowedAccess returns how the buffer may be accessed.
func (b *Buffer) AllowedAccess() MemoryAccess { return b.a.access }

// AllowedUsage returns what the buffer may be used for.
func (b *Buffer) AllowedUsage() BufferUsage { return b.a.usage }

// ByteOffset returns the buffer's offset into its allocation.
func (b *Buffer) ByteOffset() int64 { return b.offset }

// ByteLength returns the buffer's length in bytes.
func (b *Buffer) ByteLength() int64 { return b.length }

// AllocationSize returns the size of the whole allocation.
func (b *Buffer) AllocationSize() int64 { return b.a.size }

// Placement returns the memory space of the allocation (nil: host memory).
func (b *Buffer) Placement() any { return b.a.placement }

// SameAllocation reports whether b and o share their allocation.
func (b *Buffer) SameAllocation(o *Buffer) bool { return o != nil && b.a == o.a }

// Retain adds a reference. It fails on a released buffer. A reference
// to a borrowed buffer (see Borrow) is also one to its lender.
func (b *Buffer) Retain() error {
	if b.lender != nil {
		if err := b.Check(); err != nil {
			return err
		}
		if err := b.lender.Retain(); err != nil {
			return err
		}
	}
	for {
		n := b.refs.Load()
		if n <= 0 {
			if b.lender != nil {
				b.lender.Release() // the reference taken above
			}
			return b.released()
		}
		if b.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops a reference; the last one releases the buffer (and, with
// the allocation's last buffer, its memory). Releasing a released buffer
// is a FAILED_PRECONDITION error.
func (b *Buffer) Release() error {
	for {
		n := b.refs.Load()
		if n <= 0 {
			return status.Errorf(status.FailedPrecondition, "%s released twice", b.describe())
		}
		if b.refs.CompareAndSwap(n, n-1) {
			switch {
			case b.lender != nil && n > 1:
				// A reference Retain took on the lender too.
				return b.lender.Release()
			case b.lender != nil:
				// A borrowed buffer's first reference owns nothing.
			case n == 1:
				b.dropAllocation()
			}
			return nil
		}
	}
}

func (b *Buffer) dropAllocation() {
	if b.lease != nil {
		b.lease.end()
		return
	}
	if b.parent != nil {
		b.parent.Release()
		return
	}
	if b.a.buffers.Add(-1) == 0 {
		b.a.free("released")
	}
}

// free gives the allocation's memory back once.
func (a *allocation) free(why string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed {
		return false
	}
	a.freed, a.why = true, why
	a.cleanup.Stop()
	a.storage.Free()
	return true
}

// Deallocate frees the allocation's memory now, whatever references
// remain (a queue dealloca); later uses of any buffer over it fail.
// Deallocating twice is a FAILED_PRECONDITION error.
func (b *Buffer) Deallocate() error {
	if !b.a.free("deallocated") {
		return status.Errorf(status.FailedPrecondition, "%s was already %s", b.describe(), b.a.why)
	}
	return nil
}

// Released reports whether b can no longer be used.
func (b *Buffer) Released() bool {
	if b.refs.Load() <= 0 || (b.lender != nil && b.lender.Released()) {
		return true
	}
	b.a.mu.Lock()
	defer b.a.mu.Unlock()
	return b.a.freed
}

func (b *Buffer) released() error {
	why := "released"
	b.a.mu.Lock()
	if b.a.freed {
		why = b.a.why
	}
	b.a.mu.Unlock()
	return status.Errorf(status.FailedPrecondition, "%s used after it was %s", b.describe(), why)
}

// Check returns an error if b is nil or its memory is gone.
func (b *Buffer) Check() error {
	if b == nil {
		return status.New(status.InvalidArgument, "buffer is null")
	}
	if b.Released() {
		return b.released()
	}
	return nil
}

// Subspan returns a new buffer over [offset, offset+length) of b, which it
// retains until it is released itself.
func (b *Buffer) Subspan(offset, length int64) (*Buffer, error) {
	if err := b.CheckRange(offset, length); err != nil {
		return nil, err
	}
	if err := b.Retain(); err != nil {
		return nil, err
	}
	s := &Buffer{a: b.a, offset: b.offset + offset, length: length, parent: b}
	s.refs.Store(1)
	return s, nil
}

// Borrow returns a buffer over [offset, offset+length) of b that holds no
// reference to b: it may be used while b is, and is released with it (the
// VM's views of a concatenation's pieces, which kernels write in place
// inside the buffer the concatenation owns). Its first reference owns
// nothing, so that dropping it, or never dropping it, leaves b as it was;
// a reference Retain adds (a command buffer keeping its bindings alive)
// is one to b too, dropped by the matching Release.
func (b *Buffer) Borrow(offset, length int64) (*Buffer, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if err := b.CheckRange(offset, length); err != nil {
		return nil, err
	}
	s := &Buffer{a: b.a, offset: b.offset + offset, length: length, lender: b}
	s.refs.Store(1)
	return s, nil
}

// CheckRange verifies that [offset, offset+length) lies within b.
func (b *Buffer) CheckRange(offset, length int64) error {
	if offset < 0 || length < 0 || offset > b.length || length > b.length-offset {
		return status.Errorf(status.OutOfRange, "range [%d, %d) is out of bounds of a %s", offset, offset+length, b.describe())
	}
	return nil
}

// CheckUsage verifies that b allows every bit of usage.
func (b *Buffer) CheckUsage(usage BufferUsage, what string) error {
	if b.a.usage&usage != usage {
		return status.Errorf(status.PermissionDenied, "%s requires %s usage, which a %s does not allow", what, usage, b.describe())
	}
	return nil
}

// Map returns the host's view of [offset, offset+length) of the buffer.
// The buffer must be host-visible and allow mapping (MAPPING_SCOPED or
// MAPPING_PERSISTENT usage) and the access; a device-local buffer is
// PERMISSION_DENIED. Host memory in gree is coherent: the view stays valid
// while the buffer lives and needs no unmapping.
func (b *Buffer) Map(offset, length int64, access MemoryAccess) ([]byte, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if b.a.typ&MemoryTypeHostVisible == 0 {
		return nil, status.Errorf(status.PermissionDenied, "cannot map a %s: its memory is not host-visible; copy it to a host-visible buffer with a queue copy (or a transfer) first", b.describe())
	}
	if b.a.usage&(BufferUsageMappingScoped|BufferUsageMappingPersistent) == 0 {
		return nil, status.Errorf(status.PermissionDenied, "cannot map a %s: it was allocated without MAPPING usage", b.describe())
	}
	if want := access &^ (MemoryAccessMayAlias | MemoryAccessUnaligned | MemoryAccessAny); b.a.access&want != want {
		return nil, status.Errorf(status.PermissionDenied, "cannot map a %s for %s access: it allows %s", b.describe(), access, b.a.access)
	}
	if err := b.CheckRange(offset, length); err != nil {
		return nil, err
	}
	return b.bytes(offset, length), nil
}

// bytes returns the host bytes of a range already checked.
func (b *Buffer) bytes(offset, length int64) []byte {
	all := b.a.storage.Bytes()
	start := b.offset + offset
	return all[start : start+length : start+length]
}

// HostBytes returns the buffer's bytes for the drivers that execute on the
// host, without the mapping checks (a kernel's binding is not a mapping):
// nil when the memory is not host-visible or is gone.
func (b *Buffer) HostBytes() []byte {
	if b.a.storage.Bytes() == nil || b.Released() {
		return nil
	}
	return b.bytes(0, b.length)
}

// PinHost keeps host memory where it is until the allocation is freed, so
// that its address may be handed to C code (Go's collector moves nothing
// today, but the cgo rules ask for a pin). Storage that is not Go memory
// ignores it.
func (b *Buffer) PinHost() {
	if p, ok := b.a.storage.(interface{ Pin() }); ok {
		p.Pin()
	}
}

// ReadData copies len(dst) bytes at offset into dst through a mapping.
func (b *Buffer) ReadData(offset int64, dst []byte) error {
	m, err := b.Map(offset, int64(len(dst)), MemoryAccessRead)
	if err != nil {
		return err
	}
	copy(dst, m)
	return nil
}

// WriteData copies src to offset through a mapping.
func (b *Buffer) WriteData(offset int64, src []byte) error {
	m, err := b.Map(offset, int64(len(src)), MemoryAccessWrite)
	if err != nil {
		return err
	}
	copy(m, src)
	return nil
}

// BufferRef names a range of a buffer, or of a binding-table slot when
// Buffer is nil (resolved when a reusable command buffer is executed).
// Length < 0 means to the end of the buffer.
type BufferRef struct {
	Buffer *Buffer
	Slot   int
	Offset int64
	Length int64
}

// WholeBuffer refers to all of b.
func WholeBuffer(b *Buffer) BufferRef { return BufferRef{Buffer: b, Length: -1} }

// Resolve returns the buffer and range a reference names, looking up slot
// references in table and checking the range.
func (r BufferRef) Resolve(table []BufferRef) (*Buffer, int64, int64, error) {
	b, off, n := r.Buffer, r.Offset, r.Length
	if b == nil {
		if r.Slot < 0 || r.Slot >= len(table) {
			return nil, 0, 0, status.Errorf(status.OutOfRange, "binding table slot %d is out of range (the table has %d entries)", r.Slot, len(table))
		}
		t := table[r.Slot]
		if t.Buffer == nil {
			return nil, 0, 0, status.Errorf(status.InvalidArgument, "binding table slot %d has no buffer", r.Slot)
		}
		b, off = t.Buffer, t.Offset+r.Offset
		if n < 0 && t.Length >= 0 {
			n = t.Length - r.Offset
		}
	}
	if err := b.Check(); err != nil {
		return nil, 0, 0, err
	}
	if n < 0 {
		n = b.length - off
	}
	if err := b.CheckRange(off, n); err != nil {
		return nil, 0, 0, err
	}
	return b, off, n, nil
}
