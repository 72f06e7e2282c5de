package halmodule

import (
	"os"
	"sync"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/internal/hugepage"
	"github.com/gree-ml/gree/go/runtime/hal"
)

// cache keeps buffers handed back with Release for reuse by later
// allocations, so those skip both the allocator's zeroing pass and fresh
// page faults. An allocation of n bytes takes, of the released buffers
// whose capacity is n to fitRatio·n, the one released last: its lines are
// the likeliest to be in cache still, so a kernel writing its output
// there does not fetch them from memory first (MobileNetV2 on llvm-cpu,
// two threads: 3% faster in all than reusing only buffers of the same
// size, the 1×1 convolutions at 112×112 10-20%; its activations take
// 10.6 MB instead of 17.8). Only storage the device allocated itself is
// ever cached.
type cache struct {
	mu sync.Mutex
	// owned records storage this device allocated, by address, without
	// keeping it alive: a weak pointer tells whether the storage at that
	// address is still the one allocated here.
	owned map[uintptr]ownedBuf
	free  map[int][]freeBuf // capacity → released buffers, oldest first
	seq   uint64            // releases so far
	bytes int
	// minBytes is the smallest size cached.
	minBytes int
	// poison fills released buffers and uninitialized allocations with
	// 0xff bytes (NaN for floats): a debugging mode in which a buffer
	// recycled while something still reads it, or an uninitialized
	// allocation a kernel does not write entirely, gives a visibly wrong
	// answer.
	poison bool

	// Slot homes (see invocations): during a lone invocation that
	// recycles by homes, slot is the index its next allocation gets (-1
	// otherwise), and the allocation of slot k takes homed[k], the
	// buffer the same allocation of earlier invocations used, instead of
	// the most recent fit.
	active int
	began  uint64 // invocations begun
	slot   int
	homed  map[int][]byte // slot → its released home buffer
	policy policyChooser
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

// fitRatio bounds the capacity of a buffer reused for n bytes to
// fitRatio·n: the capacity beyond n is not touched, but a large buffer
// spent on a small tensor is missing when its own size comes back.
const fitRatio = 4

// ownedBuf records storage the cache handed out: size bytes were asked
// for, of storage of capacity cap.
type ownedBuf struct {
	ptr  weak.Pointer[byte]
	size int
	cap  int
	home int // the slot whose home this storage is, or -1
}

// freeBuf is released storage and when it was released.
type freeBuf struct {
	b   []byte
	seq uint64
}

func newCache() *cache {
	c := &cache{owned: map[uintptr]ownedBuf{}, free: map[int][]freeBuf{}, minBytes: cacheMinBytes, slot: -1, homed: map[int][]byte{}}
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
	capacity, home, recycled := n, -1, true
	if c.slot >= 0 {
		home = c.slot
		c.slot++
	}
	hb, homed := c.homed[home]
	if homed {
		delete(c.homed, home)
		c.bytes -= cap(hb)
		if cap(hb) < n || cap(hb) > fitRatio*n {
			// The slot's allocation changed size: its home goes to
			// the free lists, and this allocation's storage becomes
			// the slot's home.
			c.addFree(hb)
			homed = false
		}
	}
	if homed {
		b, capacity = hb[:n:n], cap(hb)
	} else if k := c.fit(n); k > 0 {
		// No home (none yet, or held): a released buffer that is
		// nobody's home, or a new one.
		l := c.free[k]
		b = l[len(l)-1].b[:n:n]
		c.free[k] = l[:len(l)-1]
		c.bytes -= k
		capacity = k
	} else {
		b, recycled = hugepage.Alloc(n), false
	}
	if recycled && !uninitialized {
		clear(b)
	}
	if uninitialized && c.poison {
		fill(b)
	}
	p := unsafe.SliceData(b)
	if len(c.owned) >= 1024 {
		c.purge()
	}
	c.owned[uintptr(unsafe.Pointer(p))] = ownedBuf{weak.Make(p), n, capacity, home}
	return b
}

// fit returns the capacity of the free list whose last buffer alloc(n)
// takes (the last released of capacity n to fitRatio·n), or 0 if none.
func (c *cache) fit(n int) int {
	k, last := 0, uint64(0)
	for size, l := range c.free {
		if len(l) > 0 && size >= n && size <= fitRatio*n && l[len(l)-1].seq >= last {
			k, last = size, l[len(l)-1].seq
		}
	}
	return k
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
	home int
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
			cands = append(cands, candidate{p: p, n: o.cap, home: o.home})
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
		if c.bytes+x.n > cacheMaxBytes {
			continue
		}
		if _, taken := c.homed[x.home]; x.home >= 0 && !taken {
			c.homed[x.home] = unsafe.Slice(x.p, x.n)
			c.bytes += x.n
			continue
		}
		c.addFree(unsafe.Slice(x.p, x.n))
	}
}

// addFree puts released storage b (its whole capacity) on its free list,
// unless that list is full.
func (c *cache) addFree(b []byte) {
	if len(c.free[len(b)]) >= cacheMaxPerSize {
		return
	}
	c.seq++
	c.free[len(b)] = append(c.free[len(b)], freeBuf{b, c.seq})
	c.bytes += len(b)
}
