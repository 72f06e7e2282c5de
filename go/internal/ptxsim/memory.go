package ptxsim

import (
	"encoding/binary"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

// Memory is byte-addressed global memory seen by a launch. size is 1, 2,
// 4 or 8 and addresses are naturally aligned (the simulator checks
// alignment before calling); values are little-endian in the low bits.
// Load and Store may be called concurrently from several goroutines (one
// per block being simulated); Atomic must be indivisible with respect to
// other Atomic calls.
type Memory interface {
	Load(addr uint64, size int) (uint64, error)
	Store(addr uint64, size int, val uint64) error
	// Atomic replaces the value v at addr with f(v) indivisibly and
	// returns v.
	Atomic(addr uint64, size int, f func(old uint64) uint64) (uint64, error)
}

// Arena is a Memory of separate allocations at fake device addresses.
// Accesses outside every allocation are errors naming the address. Every
// access is made with sync/atomic, so concurrently running blocks never
// race in Go's sense (a kernel's own races still give whichever value
// comes last).
type Arena struct {
	mu     sync.Mutex // guards allocs and next
	allocs []arenaAlloc
	next   uint64
}

type arenaAlloc struct {
	base  uint64
	size  uint64
	words []uint64 // the bytes, 8-byte aligned
}

// arenaBase is the first address an Arena hands out.
const arenaBase = 0x7f0000000000

// NewArena returns an empty Arena.
func NewArena() *Arena { return &Arena{next: arenaBase} }

// Alloc copies data into a new allocation and returns its address:
// nonzero, 256-aligned, with at least 256 unallocated bytes after it so
// that small overruns are caught. A zero-length allocation gets a unique
// address too (every access to it is out of bounds). Allocate before
// launching: Alloc and Free must not run during a Launch on the arena.
func (a *Arena) Alloc(data []byte) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	base := a.next
	al := arenaAlloc{base: base, size: uint64(len(data)), words: make([]uint64, (len(data)+7)/8)}
	copy(al.bytes(), data)
	a.allocs = append(a.allocs, al)
	a.next = (base + uint64(len(data)) + 256 + 255) &^ 255
	return base
}

func (al *arenaAlloc) bytes() []byte {
	if len(al.words) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&al.words[0])), al.size)
}

// Bytes returns the current bytes of the allocation containing addr,
// from addr to the allocation's end (nil if addr is in none). The slice
// aliases the arena's storage; read it after Launch returns.
func (a *Arena) Bytes(addr uint64) []byte {
	al := a.find(addr)
	if al == nil {
		return nil
	}
	return al.bytes()[addr-al.base:]
}

// Free releases the allocation at base (a no-op for unknown addresses).
func (a *Arena) Free(base uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, al := range a.allocs {
		if al.base == base {
			a.allocs = append(a.allocs[:i:i], a.allocs[i+1:]...)
			return
		}
	}
}

func (a *Arena) find(addr uint64) *arenaAlloc {
	allocs := a.allocs
	i := sort.Search(len(allocs), func(i int) bool { return allocs[i].base > addr }) - 1
	if i < 0 || addr >= allocs[i].base+allocs[i].size {
		return nil
	}
	return &allocs[i]
}

// ptr returns a pointer to the size bytes at addr.
func (a *Arena) ptr(addr uint64, size int) (unsafe.Pointer, error) {
	if addr%uint64(size) != 0 {
		return nil, status.Errorf(status.InvalidArgument, "misaligned %d-byte access at address %#x", size, addr)
	}
	al := a.find(addr)
	if al == nil || addr+uint64(size) > al.base+al.size {
		return nil, status.Errorf(status.OutOfRange, "access of %d bytes at address %#x is outside every allocation", size, addr)
	}
	return unsafe.Add(unsafe.Pointer(&al.words[0]), addr-al.base), nil
}

// Load implements Memory.
func (a *Arena) Load(addr uint64, size int) (uint64, error) {
	p, err := a.ptr(addr, size)
	if err != nil {
		return 0, err
	}
	return loadAt(p, size), nil
}

// Store implements Memory.
func (a *Arena) Store(addr uint64, size int, v uint64) error {
	p, err := a.ptr(addr, size)
	if err != nil {
		return err
	}
	storeAt(p, size, v)
	return nil
}

// Atomic implements Memory.
func (a *Arena) Atomic(addr uint64, size int, f func(uint64) uint64) (uint64, error) {
	p, err := a.ptr(addr, size)
	if err != nil {
		return 0, err
	}
	return rmwAt(p, size, f)
}

// The accessors below operate on naturally aligned pointers with
// sync/atomic; 1- and 2-byte accesses go through their aligned 32-bit
// word (little-endian).

func word(p unsafe.Pointer) (*uint32, uint) {
	off := uintptr(p) & 3
	return (*uint32)(unsafe.Add(p, -int(off))), uint(off) * 8
}

func loadAt(p unsafe.Pointer, size int) uint64 {
	switch size {
	case 8:
		return atomic.LoadUint64((*uint64)(p))
	case 4:
		return uint64(atomic.LoadUint32((*uint32)(p)))
	}
	w, sh := word(p)
	return uint64(atomic.LoadUint32(w)>>sh) & (1<<(8*uint(size)) - 1)
}

func storeAt(p unsafe.Pointer, size int, v uint64) {
	switch size {
	case 8:
		atomic.StoreUint64((*uint64)(p), v)
		return
	case 4:
		atomic.StoreUint32((*uint32)(p), uint32(v))
		return
	}
	w, sh := word(p)
	m := uint32(1<<(8*uint(size))-1) << sh
	for {
		old := atomic.LoadUint32(w)
		if atomic.CompareAndSwapUint32(w, old, old&^m|uint32(v)<<sh&m) {
			return
		}
	}
}

func rmwAt(p unsafe.Pointer, size int, f func(uint64) uint64) (uint64, error) {
	switch size {
	case 4:
		u := (*uint32)(p)
		for {
			old := atomic.LoadUint32(u)
			if atomic.CompareAndSwapUint32(u, old, uint32(f(uint64(old)))) {
				return uint64(old), nil
			}
		}
	case 8:
		u := (*uint64)(p)
		for {
			old := atomic.LoadUint64(u)
			if atomic.CompareAndSwapUint64(u, old, f(old)) {
				return old, nil
			}
		}
	}
	return 0, status.Errorf(status.InvalidArgument, "atomic access of %d bytes is not supported", size)
}

// getLE and putLE access little-endian values in shared memory.
func getLE(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func putLE(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// hostMemory is a Memory over the process's own memory: addresses are
// host pointers.
type hostMemory struct{}

// NewHostMemory returns a Memory whose addresses are host pointers, for a
// fake driver whose allocations are real process memory. It cannot detect
// out-of-bounds accesses into mapped memory: addresses below 4096 are
// errors, and a fault on an unmapped address becomes an error of the
// launch (Launch runs blocks with runtime/debug.SetPanicOnFault).
// Accesses use sync/atomic as Arena's do; 1- and 2-byte accesses read and
// compare-and-swap their aligned 32-bit word, which must therefore be
// addressable memory.
func NewHostMemory() Memory { return hostMemory{} }

func hostPtr(addr uint64, size int) (unsafe.Pointer, error) {
	if addr < 4096 || addr+uint64(size) < addr {
		return nil, status.Errorf(status.OutOfRange, "access of %d bytes at invalid address %#x", size, addr)
	}
	if addr%uint64(size) != 0 {
		return nil, status.Errorf(status.InvalidArgument, "misaligned %d-byte access at address %#x", size, addr)
	}
	a := uintptr(addr)
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)), nil
}

func (hostMemory) Load(addr uint64, size int) (uint64, error) {
	p, err := hostPtr(addr, size)
	if err != nil {
		return 0, err
	}
	return loadAt(p, size), nil
}

func (hostMemory) Store(addr uint64, size int, v uint64) error {
	p, err := hostPtr(addr, size)
	if err != nil {
		return err
	}
	storeAt(p, size, v)
	return nil
}

func (hostMemory) Atomic(addr uint64, size int, f func(uint64) uint64) (uint64, error) {
	p, err := hostPtr(addr, size)
	if err != nil {
		return 0, err
	}
	return rmwAt(p, size, f)
}
