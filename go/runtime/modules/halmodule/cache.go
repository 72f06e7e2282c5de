package halmodule

import (
	"os"
	"sync"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/internal/hugepage"
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
	// minBytes is the smallest size cached.
	minBytes int
	// poison fills released buffers and uninitialized allocations with
	// 0xff bytes (NaN for floats): a debugging mode in which a buffer
	// recycled while something still reads it, or an uninitialized
	// allocation a kernel does not write entirely, gives a visibly wrong
	// answer.
	poison bool
}

// DebugEnv names the environment variable that, set to 1, makes every
// device cache every buffer however small and poison released and
// uninitialized buffers (see cache.poison): run the e2e suites with it to
// check buffer reuse.
const DebugEnv = "GREE_DEBUG_BUFFER_CACHE"

const (
	cacheMinBytes   = 1 << 14
	cacheMaxPerSize = 16
	cacheMaxBytes   = 1 << 30
)

type ownedBuf struct {
	ptr  weak.Pointer[byte]
	size int
}

func newCache() *cache {
	c := &cache{owned: map[uintptr]ownedBuf{}, free: map[int][][]byte{}, minBytes: cacheMinBytes}
	if os.Getenv(DebugEnv) == "1" {
		c.minBytes, c.poison = 1, true
	}
	return c
}

// fill sets every byte of b to 0xff.
func fill(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
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
	if n < c.minBytes {
		b := make([]byte, n)
		if uninitialized && c.poison {
			fill(b)
		}
		return b
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
		b = hugepage.Alloc(n)
	}
	if uninitialized && c.poison {
		fill(b)
	}
	p := unsafe.SliceData(b)
	if len(c.owned) >= 1024 {
		c.purge()
	}
	c.owned[uintptr(unsafe.Pointer(p))] = ownedBuf{weak.Make(p), n}
	return b
}

// recyclable reports whether release could cache ref's storage: a buffer
// view of a whole buffer this cache allocated, of a size it keeps.
func (c *cache) recyclable(ref any) bool {
	bv, ok := ref.(*hal.BufferView)
	if !ok || len(bv.Data) < c.minBytes {
		return false
	}
	p := unsafe.SliceData(bv.Data)
	c.mu.Lock()
	o, mine := c.owned[uintptr(unsafe.Pointer(p))]
	c.mu.Unlock()
	return mine && o.size == len(bv.Data) && o.ptr.Value() == p
}

// candidate is released storage that may go back to the free lists.
type candidate struct {
	p    *byte
	n    int
	held bool
}

// release caches the storage of refs, except storage any view in keep
// overlaps (a reshape shares its source's storage; a narrower view of it
// would start inside it).
func (c *cache) release(refs, keep []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cands []candidate
	for _, r := range refs {
		bv, ok := r.(*hal.BufferView)
		if !ok || len(bv.Data) == 0 {
			continue
		}
		p := unsafe.SliceData(bv.Data)
		o, mine := c.owned[uintptr(unsafe.Pointer(p))]
		if !mine || o.ptr.Value() != p || len(bv.Data) != o.size {
			continue
		}
		dup := false
		for _, x := range cands {
			dup = dup || x.p == p
		}
		if !dup {
			cands = append(cands, candidate{p: p, n: o.size})
		}
	}
	if len(cands) == 0 {
		return
	}
	for _, k := range keep {
		bv, ok := k.(*hal.BufferView)
		if !ok || len(bv.Data) == 0 {
			continue
		}
		q := uintptr(unsafe.Pointer(unsafe.SliceData(bv.Data)))
		for i := range cands {
			start := uintptr(unsafe.Pointer(cands[i].p))
			if q >= start && q < start+uintptr(cands[i].n) {
				cands[i].held = true
			}
		}
	}
	for _, x := range cands {
		if x.held {
			continue
		}
		delete(c.owned, uintptr(unsafe.Pointer(x.p)))
		if c.poison {
			fill(unsafe.Slice(x.p, x.n))
		}
		if len(c.free[x.n]) >= cacheMaxPerSize || c.bytes+x.n > cacheMaxBytes {
			continue
		}
		c.free[x.n] = append(c.free[x.n], unsafe.Slice(x.p, x.n))
		c.bytes += x.n
	}
}
