package halmodule

import (
	"sync"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// cache keeps buffers handed back with Release for reuse by allocations
// of the same size that a kernel will overwrite entirely, so those skip
// both the allocator's zeroing pass and fresh page faults. Only storage the
// device allocated itself is ever cached.
type cache struct {
	mu sync.Mutex
	// owned records storage this device allocated, by address, without
	// keeping it alive: a weak pointer tells whether the storage at that
	// address is still the one allocated here.
	owned map[uintptr]ownedBuf
	free  map[int][][]byte // size → released buffers
	bytes int
}

const (
	cacheMinBytes   = 1 << 16
	cacheMaxPerSize = 4
	cacheMaxBytes   = 1 << 30
)

type ownedBuf struct {
	ptr  weak.Pointer[byte]
	size int
}

func newCache() *cache {
	return &cache{owned: map[uintptr]ownedBuf{}, free: map[int][][]byte{}}
}

// purge drops records of storage the garbage collector has reclaimed.
func (c *cache) purge() {
	for k, o := range c.owned {
		if o.ptr.Value() == nil {
			delete(c.owned, k)
		}
	}
}

// alloc returns n bytes, zeroed unless uninitialized.
func (c *cache) alloc(n int, uninitialized bool) []byte {
	if n < cacheMinBytes {
		return make([]byte, n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var b []byte
	if l := c.free[n]; len(l) > 0 {
		b = l[len(l)-1]
		c.free[n] = l[:len(l)-1]
		c.bytes -= n
		if !uninitialized {
			clear(b)
		}
	} else {
		b = make([]byte, n)
	}
	p := unsafe.SliceData(b)
	if len(c.owned) >= 1024 {
		c.purge()
	}
	c.owned[uintptr(unsafe.Pointer(p))] = ownedBuf{weak.Make(p), n}
	return b
}

// release caches the storage of refs, except storage keep uses.
func (c *cache) release(refs, keep []any) {
	held := map[*byte]bool{}
	for _, k := range keep {
		if bv, ok := k.(*hal.BufferView); ok && len(bv.Data) > 0 {
			held[unsafe.SliceData(bv.Data)] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range refs {
		bv, ok := r.(*hal.BufferView)
		if !ok || len(bv.Data) == 0 {
			continue
		}
		p := unsafe.SliceData(bv.Data)
		key := uintptr(unsafe.Pointer(p))
		o, mine := c.owned[key]
		n := o.size
		if !mine || o.ptr.Value() != p || held[p] || len(bv.Data) != n {
			continue
		}
		delete(c.owned, key)
		if len(c.free[n]) >= cacheMaxPerSize || c.bytes+n > cacheMaxBytes {
			continue
		}
		c.free[n] = append(c.free[n], unsafe.Slice(p, n))
		c.bytes += n
		held[p] = true // a second view of the same storage is not cached twice
	}
}
