package halmodule

import (
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// cache keeps the allocations of buffers a host program discarded (or a
// caller released) for later allocations, so those skip both the
// allocator's zeroing and fresh page faults. An allocation of n bytes
// takes, of the released allocations whose size is n to fitRatio·n, the
// one released last: its lines are the likeliest to be in cache still, so
// a kernel writing its output there does not fetch them from memory first
// (MobileNetV2 on llvm-cpu, two threads: 3% faster in all than reusing
// only buffers of the same size, the 1×1 convolutions at 112×112 10-20%;
// its activations take 10.6 MB instead of 17.8). Only allocations the
// cache made itself are ever recycled.
//
// Reuse is safe in queue order: a buffer is recycled while commands that
// read it may still be pending, and whatever the next allocation does to
// its bytes (a zero fill, a kernel's writes) is recorded after them on the
// same queue; host writes (Store) wait for pending work first. Calls
// running at once record on queues of their own (recorders), so a buffer
// released on one queue keeps the timepoint at which that queue's work
// so far completes (entry.after), and another queue takes it only once
// that timepoint is reached.
type cache struct {
	mu    sync.Mutex
	alloc func(n int64) (*hal.Buffer, error)
	// def is the queue of operations that name none (get, release).
	def   orderer
	free  map[int64][]freeBuf // allocation size → released entries, oldest first
	seq   uint64              // releases so far
	bytes int64
	// minBytes is the smallest size cached.
	minBytes int64
	// poison fills released buffers and uninitialized allocations with
	// 0xff bytes (NaN for floats): a debugging mode in which a buffer
	// recycled while something still reads it, or an uninitialized
	// allocation a kernel does not write entirely, gives a visibly wrong
	// answer.
	poison bool

	// Slot homes (see invocations): during a lone invocation that
	// recycles by homes, slot is the index its next allocation gets (-1
	// otherwise), and the allocation of slot k takes homed[k], the
	// allocation the same allocation of earlier invocations used, instead
	// of the most recent fit.
	active int
	began  uint64 // invocations begun
	slot   int
	homed  map[int]*entry // slot → its released home
	policy policyChooser
	closed bool // see close
}

// entry is one allocation the cache made: the root buffer over all of it
// (the cache's reference) and, while it is handed out, the buffer given:
// a lease of the root (hal.NewLease) holding a reference to it, whose
// last release calls returned.
type entry struct {
	c    *cache
	root *hal.Buffer
	size int64
	home int         // the slot whose home this allocation is, or -1
	out  *hal.Buffer // handed out, or nil when released
	// gen counts hand-outs and give-backs: a lease's last release
	// recycles the allocation only while gen is still the hand-out's
	// (see returned).
	gen atomic.Uint64
	// disowned: the handed-out buffer belongs to its holders (a caller's
	// results, see disown); their last release gives it back.
	disowned bool
	// after, when not nil, is the semaphore of the queue that released
	// the allocation, and afterValue the value at which that queue's work
	// recorded until then is complete: another queue may reuse the
	// allocation only from then on (see readyFor).
	after      hal.Semaphore
	afterValue uint64
}

// orderer is the queue a cache operation's work follows (a recorder).
type orderer interface {
	// fill records a fill of b with a byte pattern in queue order.
	fill(b *hal.Buffer, pattern byte)
	// position returns the timepoint at which the work recorded so far
	// completes (nil when it all has).
	position() (hal.Semaphore, uint64)
	// own returns the semaphore the queue's submissions signal in order
	// (nil before its first).
	own() hal.Semaphore
}

// fillFunc is an orderer without a queue: its fills apply at once.
type fillFunc func(b *hal.Buffer, pattern byte)

func (f fillFunc) fill(b *hal.Buffer, pattern byte) { f(b, pattern) }
func (fillFunc) position() (hal.Semaphore, uint64)  { return nil, 0 }
func (fillFunc) own() hal.Semaphore                 { return nil }

// readyFor reports whether a queue whose own semaphore is own may reuse
// e's allocation now: it was released on that queue (queue order keeps
// the reuse after its earlier readers), or the releasing queue's work of
// the time has completed (or failed: none of it runs any more). Called
// with the cache's mu held.
func (e *entry) readyFor(own hal.Semaphore) bool {
	if e.after == nil || e.after == own {
		return true
	}
	if v, err := e.after.Query(); err == nil && v < e.afterValue {
		return false
	}
	e.after, e.afterValue = nil, 0
	return true
}

// DebugEnv names the environment variable that, set to 1, makes every
// device cache every buffer however small and poison released and
// uninitialized buffers (see cache.poison): run the e2e suites with it to
// check buffer reuse.
const DebugEnv = "GREE_DEBUG_BUFFER_CACHE"

const (
	cacheMinBytes   = 1 << 8
	cacheMaxPerSize = 16
	cacheMaxBytes   = 1 << 30
)

// fitRatio bounds the size of an allocation reused for n bytes to
// fitRatio·n: the bytes beyond n are not touched, but a large allocation
// spent on a small tensor is missing when its own size comes back.
const fitRatio = 4

// freeBuf is a released entry and when it was released.
type freeBuf struct {
	e   *entry
	seq uint64
}

// newCache returns a cache that allocates with alloc (zeroed memory) and
// follows the queue def where an operation names none.
func newCache(alloc func(n int64) (*hal.Buffer, error), def orderer) *cache {
	c := &cache{alloc: alloc, def: def, free: map[int64][]freeBuf{}, minBytes: cacheMinBytes, slot: -1, homed: map[int]*entry{}}
	if os.Getenv(DebugEnv) == "1" {
		c.minBytes, c.poison = 1, true
	}
	return c
}

// get returns a buffer of n bytes, zeroed unless uninitialized, for work
// on the default queue.
func (c *cache) get(n int64, uninitialized bool) (*hal.Buffer, error) {
	return c.getBy(c.def, n, uninitialized)
}

// getBy returns a buffer of n bytes, zeroed unless uninitialized, for work
// on queue q (whose fills it records).
func (c *cache) getBy(q orderer, n int64, uninitialized bool) (*hal.Buffer, error) {
	if n < c.minBytes {
		b, err := c.alloc(n)
		if err == nil && uninitialized && c.poison {
			q.fill(b, 0xff)
		}
		return b, err
	}
	own := q.own()
	c.mu.Lock()
	defer c.mu.Unlock()
	home := -1
	if c.slot >= 0 {
		home = c.slot
		c.slot++
	}
	e, homed := c.homed[home]
	if homed && !e.readyFor(own) {
		// Another queue's work may still use the slot's home: this
		// allocation takes another and the home stays for a later one.
		e, homed = nil, false
	} else if homed {
		delete(c.homed, home)
		c.bytes -= e.size
		if e.size < n || e.size > fitRatio*n {
			// The slot's allocation changed size: its home goes to the
			// free lists, and this allocation becomes the slot's home.
			c.addFree(e)
			e, homed = nil, false
		}
	}
	recycled := true
	if !homed {
		if k, i := c.fit(n, own); k > 0 {
			// No home (none yet, or held): a released allocation that
			// is nobody's home.
			e = c.free[k][i].e
			c.free[k] = slices.Delete(c.free[k], i, i+1)
			c.bytes -= k
		} else {
			root, err := c.alloc(n)
			if err != nil {
				return nil, err
			}
			e, recycled = &entry{c: c, root: root, size: n}, false
		}
	}
	e.home = home
	// The lease holds a reference to the root until its last release,
	// so that the memory stays while anything (a pending command buffer)
	// uses it, whatever the cache does with its own reference.
	if err := e.root.Retain(); err != nil {
		return nil, err
	}
	gen := e.gen.Add(1)
	b, err := hal.NewLease(e.root, 0, n, func(root *hal.Buffer) {
		c.returned(e, gen)
		root.Release()
	})
	if err != nil {
		e.root.Release()
		return nil, err
	}
	b.SetTag(e)
	e.out = b
	switch {
	case uninitialized && c.poison:
		q.fill(b, 0xff)
	case recycled && !uninitialized:
		q.fill(b, 0)
	}
	return b, nil
}

// fit returns the size of the free list and the index of the entry
// get(n) takes for the queue whose own semaphore is own (the last
// released of size n to fitRatio·n that the queue may reuse now: see
// readyFor), or 0 if none.
func (c *cache) fit(n int64, own hal.Semaphore) (int64, int) {
	k, idx, last := int64(0), 0, uint64(0)
	for size, l := range c.free {
		if size < n || size > fitRatio*n {
			continue
		}
		for i := len(l) - 1; i >= 0 && l[i].seq >= last; i-- {
			if l[i].e.readyFor(own) {
				k, idx, last = size, i, l[i].seq
				break
			}
		}
	}
	return k, idx
}

// entryOf returns the entry of a buffer this cache handed out and has not
// had back, or nil.
func (c *cache) entryOf(ref any) *entry {
	bv, ok := ref.(*hal.BufferView)
	if !ok || bv.Buffer == nil {
		return nil
	}
	e, ok := bv.Buffer.Tag().(*entry)
	if !ok || e.c != c || e.out != bv.Buffer {
		return nil
	}
	return e
}

// recyclable reports whether release could recycle ref's allocation.
func (c *cache) recyclable(ref any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entryOf(ref) != nil
}

// exclusive reports whether ref's allocation is one the cache handed out
// and has not had back, used by no view in live.
func (c *cache) exclusive(ref any, live []any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entryOf(ref)
	return e != nil && !usedBy(e, live)
}

// release recycles the allocations of refs, except those any view in keep
// uses (a reshape shares its source's buffer), released on the default
// queue.
func (c *cache) release(refs, keep []any) { c.releaseBy(c.def, refs, keep) }

// releaseBy is release on queue q: another queue reuses the allocations
// only once q's work recorded so far has completed.
func (c *cache) releaseBy(q orderer, refs, keep []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cands []*entry
	for _, r := range refs {
		e := c.entryOf(r)
		if e == nil {
			continue
		}
		dup := false
		for _, x := range cands {
			dup = dup || x == e
		}
		if !dup {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		return
	}
	for _, k := range keep {
		bv, ok := k.(*hal.BufferView)
		if !ok || bv.Buffer == nil {
			continue
		}
		for i, e := range cands {
			if e != nil && e.root.SameAllocation(bv.Buffer) {
				cands[i] = nil
			}
		}
	}
	var after hal.Semaphore
	var afterValue uint64
	located := false
	for _, e := range cands {
		if e == nil {
			continue
		}
		if c.poison {
			q.fill(e.out, 0xff)
		}
		if !located {
			// After the fill: the position covers it too.
			after, afterValue = q.position()
			located = true
		}
		e.gen.Add(1) // the lease's last release is not a give-back now
		e.out.Release()
		e.out = nil
		e.after, e.afterValue = after, afterValue
		if c.bytes+e.size > cacheMaxBytes {
			e.root.Release()
			continue
		}
		if _, taken := c.homed[e.home]; e.home >= 0 && !taken && !c.closed {
			c.homed[e.home] = e
			c.bytes += e.size
			continue
		}
		c.addFree(e)
	}
}

// disown hands the allocations of refs (except those a view in keep uses)
// to whoever holds references to them besides the cache's caller (a C
// caller's result list): the cache drops the reference it handed out, and
// when those holders release theirs the allocation comes back to the
// cache (returned), so that a caller's next results take it instead of
// fresh memory the allocator zeroes and the garbage collector later
// reclaims (a TransformerEncoder's 128 KB result cost a Python call
// 80 us that way).
func (c *cache) disown(refs, keep []any) {
	c.mu.Lock()
	var outs []*hal.Buffer
	for _, r := range refs {
		e := c.entryOf(r)
		if e == nil || e.disowned || usedBy(e, keep) {
			continue
		}
		e.disowned = true
		outs = append(outs, e.out)
		e.out = nil
	}
	c.mu.Unlock()
	// Outside mu: a last release gives the allocation back at once.
	for _, out := range outs {
		out.Release()
	}
}

// returned is called when the last reference to the buffer handed out
// as hand-out gen goes. A disowned allocation comes back to the cache
// (nothing uses it any more: its holders and any command buffer have let
// it go). One the program still held was released by someone else (a
// buffer handed to C and released there without a disown): its memory
// goes now. Otherwise (gen has moved on: the program gave it back) there
// is nothing to do.
func (c *cache) returned(e *entry, gen uint64) {
	if e.gen.Load() != gen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gen.Load() != gen {
		return
	}
	e.gen.Add(1)
	if !e.disowned {
		e.out = nil
		e.root.Release()
		return
	}
	e.disowned = false
	e.after, e.afterValue = nil, 0
	if c.bytes+e.size > cacheMaxBytes {
		e.root.Release()
		return
	}
	c.addFree(e)
}

// usedBy reports whether a view in keep uses e's allocation.
func usedBy(e *entry, keep []any) bool {
	for _, k := range keep {
		if bv, ok := k.(*hal.BufferView); ok && bv.Buffer != nil && e.root.SameAllocation(bv.Buffer) {
			return true
		}
	}
	return false
}

// close releases the allocations the cache keeps for reuse; buffers
// handed out keep theirs until they are released. The cache allocates
// anew afterwards, keeping nothing.
func (c *cache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.free {
		for _, f := range l {
			f.e.root.Release()
		}
	}
	for _, e := range c.homed {
		e.root.Release()
	}
	c.free, c.homed, c.bytes = map[int64][]freeBuf{}, map[int]*entry{}, 0
	c.closed = true
}

// addFree puts a released entry on its free list, unless that list is
// full (the allocation is then released).
func (c *cache) addFree(e *entry) {
	if c.closed || len(c.free[e.size]) >= cacheMaxPerSize {
		e.root.Release()
		return
	}
	c.seq++
	c.free[e.size] = append(c.free[e.size], freeBuf{e, c.seq})
	c.bytes += e.size
}
