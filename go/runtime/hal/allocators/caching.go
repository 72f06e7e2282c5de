package allocators

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// PoolConfig is one pool of a caching allocator (IREE's
// iree_hal_caching_allocator_pool_params_t): the allocations whose memory
// type has every bit of Type and whose usage has every bit of Usage are
// pooled by the first pool that matches.
type PoolConfig struct {
	Type  hal.MemoryType  // memory type bits a pooled allocation has (0: any)
	Usage hal.BufferUsage // usage bits a pooled allocation has (0: any)
	// MaxAllocationSize bounds the size (class) pooled; larger allocations
	// go to the wrapped allocator (0: no bound).
	MaxAllocationSize int64
	// MaxCapacity bounds the bytes of all allocations made through the
	// pool, handed out or free, beyond which released ones are given back
	// rather than kept (0: no bound).
	MaxCapacity int64
	// MaxFreeCount bounds the free allocations kept (0: DefaultFreeCount).
	MaxFreeCount int
}

// DefaultFreeCount is the free allocations a pool keeps unless configured,
// as IREE's default free-list capacity.
const DefaultFreeCount = 64

// minClass is the smallest size class: smaller allocations share it.
const minClass = 256

// SizeClass returns the size of the allocation that serves n bytes: 256
// for small sizes, else n rounded up to an eighth of the power of two
// below it (at most 12.5% more), so that sizes close to each other share
// allocations.
func SizeClass(n int64) int64 {
	if n <= minClass {
		return minClass
	}
	p := int64(1) << (bits.Len64(uint64(n-1)) - 1)
	step := p / 8
	return (n + step - 1) / step * step
}

// Caching keeps the allocations of released buffers for later allocations
// of the same size class and parameters (IREE's caching allocator). A
// buffer it returns is a lease of a pooled allocation (hal.NewLease), so
// drivers see their own memory; reused memory is zeroed as a fresh
// allocation is (on the host, or with a queue fill on the device for
// memory only the device sees).
type Caching struct {
	base   hal.Allocator
	dev    hal.Device
	pools  []*pool
	closed atomic.Bool
}

var _ hal.Allocator = (*Caching)(nil)

// key is what pooled allocations are matched by: the parameters asked for
// and the size class.
type key struct {
	typ    hal.MemoryType
	usage  hal.BufferUsage
	access hal.MemoryAccess
	size   int64
}

type freeRoot struct {
	k    key
	root *hal.Buffer
}

type pool struct {
	cfg PoolConfig
	mu  sync.Mutex
	// total is the bytes of the allocations made through the pool, handed
	// out or free; free lists the free ones, oldest first.
	total        int64
	free         []freeRoot
	freeBytes    int64
	hits, misses int64
}

// NewCaching wraps base with pools (none: one pool for every allocation,
// unbounded, as IREE's "caching" without configuration). dev, when not
// nil, zeroes reused memory the host cannot map; without it such memory
// is not pooled.
func NewCaching(dev hal.Device, base hal.Allocator, pools ...PoolConfig) *Caching {
	if len(pools) == 0 {
		pools = []PoolConfig{{}}
	}
	c := &Caching{base: base, dev: dev}
	for _, cfg := range pools {
		if cfg.MaxFreeCount <= 0 {
			cfg.MaxFreeCount = DefaultFreeCount
		}
		c.pools = append(c.pools, &pool{cfg: cfg})
	}
	return c
}

// QueryCompatibility is the wrapped allocator's.
func (c *Caching) QueryCompatibility(params hal.BufferParams, size int64) (hal.BufferCompatibility, hal.BufferParams) {
	return c.base.QueryCompatibility(params, size)
}

// Import is the wrapped allocator's (imported memory is never pooled).
func (c *Caching) Import(params hal.BufferParams, data []byte, release func()) (*hal.Buffer, error) {
	return c.base.Import(params, data, release)
}

// Statistics are the wrapped allocator's: pooled memory counts as
// allocated until it is trimmed.
func (c *Caching) Statistics() hal.AllocatorStatistics { return c.base.Statistics() }

// findPool returns the first pool for memory of type t and usage u.
func (c *Caching) findPool(t hal.MemoryType, u hal.BufferUsage) *pool {
	for _, p := range c.pools {
		if t&p.cfg.Type == p.cfg.Type && u&p.cfg.Usage == p.cfg.Usage {
			return p
		}
	}
	return nil
}

// Allocate returns a zeroed buffer of size bytes from a pooled allocation
// when one of its class and parameters is free, else from a new one of
// the wrapped allocator. Exported, immutable and replicated buffers, sizes
// over the pool's bound and memory neither the host nor the device queue
// can zero go to the wrapped allocator directly.
func (c *Caching) Allocate(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 || c.closed.Load() || params.Usage&(hal.BufferUsageSharingExport|hal.BufferUsageSharingImmutable|hal.BufferUsageSharingReplicate) != 0 {
		return c.base.Allocate(params, size)
	}
	compat, actual := c.base.QueryCompatibility(params, size)
	if compat&hal.BufferCompatibilityAllocatable == 0 {
		return c.base.Allocate(params, size)
	}
	p := c.findPool(actual.Type, actual.Usage)
	class := SizeClass(size)
	if p == nil || (p.cfg.MaxAllocationSize > 0 && class > p.cfg.MaxAllocationSize) {
		return c.base.Allocate(params, size)
	}
	access := params.Access
	if access == hal.MemoryAccessNone {
		access = hal.MemoryAccessAll
	}
	k := key{params.Type, params.Usage, access, class}
	if root := p.take(k); root != nil {
		if err := fill(c.dev, root, 0, size, 0); err != nil {
			c.drop(p, root)
			return nil, err
		}
		return c.lease(p, k, root, size)
	}
	p.trimTo(p.cfg.MaxCapacity - class)
	p.mu.Lock()
	p.total += class
	p.misses++
	p.mu.Unlock()
	root, err := c.base.Allocate(params, class)
	if err == nil && !hostOrDevice(c.dev, root) {
		// Memory nobody could zero on reuse: not pooled.
		root.Release()
		p.sub(class)
		return c.base.Allocate(params, size)
	}
	if err != nil {
		p.sub(class)
		return nil, err
	}
	return c.lease(p, k, root, size)
}

// lease hands out size bytes of root; its release gives root back.
func (c *Caching) lease(p *pool, k key, root *hal.Buffer, size int64) (*hal.Buffer, error) {
	b, err := hal.NewLease(root, 0, size, func(root *hal.Buffer) { c.giveBack(p, k, root) })
	if err != nil {
		c.drop(p, root)
		return nil, err
	}
	return b, nil
}

// giveBack returns a released lease's root to its pool, or to the wrapped
// allocator when the pool is full, closed, or the memory was deallocated.
func (c *Caching) giveBack(p *pool, k key, root *hal.Buffer) {
	if root.Released() || c.closed.Load() {
		c.drop(p, root)
		return
	}
	p.mu.Lock()
	fits := (p.cfg.MaxCapacity <= 0 || p.total <= p.cfg.MaxCapacity) && len(p.free) < p.cfg.MaxFreeCount
	if fits {
		p.free = append(p.free, freeRoot{k, root})
		p.freeBytes += k.size
	}
	p.mu.Unlock()
	if !fits {
		c.drop(p, root)
	}
}

// drop gives root's memory back to the wrapped allocator.
func (c *Caching) drop(p *pool, root *hal.Buffer) {
	n := root.AllocationSize()
	root.Release()
	p.sub(n)
}

func (p *pool) sub(n int64) {
	p.mu.Lock()
	p.total -= n
	p.mu.Unlock()
}

// take removes and returns the free root for k released last, or nil.
func (p *pool) take(k key) *hal.Buffer {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.free) - 1; i >= 0; i-- {
		if f := p.free[i]; f.k == k {
			p.free = append(p.free[:i], p.free[i+1:]...)
			p.freeBytes -= k.size
			p.hits++
			return f.root
		}
	}
	return nil
}

// trimTo gives free roots back, oldest first, until the pool's total is
// at most target (a target below 0 empties the free list when target is
// not unbounded: see MaxCapacity).
func (p *pool) trimTo(target int64) {
	if p.cfg.MaxCapacity <= 0 && target != trimAll {
		return
	}
	for {
		p.mu.Lock()
		if len(p.free) == 0 || (target != trimAll && p.total <= target) {
			p.mu.Unlock()
			return
		}
		f := p.free[0]
		p.free = p.free[1:]
		p.freeBytes -= f.k.size
		p.mu.Unlock()
		// Released without the lock: a device's free may be slow.
		f.root.Release()
		p.sub(f.k.size)
	}
}

// trimAll asks trimTo to empty the free list.
const trimAll = -1 << 62

// Trim gives every free pooled allocation back, then trims the wrapped
// allocator.
func (c *Caching) Trim() error {
	for _, p := range c.pools {
		p.trimTo(trimAll)
	}
	return c.base.Trim()
}

// Close gives the pooled memory back and makes later releases give their
// memory back at once (the device is closing).
func (c *Caching) Close() error {
	c.closed.Store(true)
	for _, p := range c.pools {
		p.trimTo(trimAll)
	}
	if cl, ok := c.base.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// CacheStats counts a caching allocator's pools together.
type CacheStats struct {
	// Hits and Misses count the allocations served from a free pooled
	// allocation and those that needed a new one.
	Hits, Misses int64
	// FreeCount and FreeBytes are the free pooled allocations now.
	FreeCount int
	FreeBytes int64
	// PooledBytes is the size of every pooled allocation, free or handed
	// out.
	PooledBytes int64
}

// CacheStatistics returns the pools' counters.
func (c *Caching) CacheStatistics() CacheStats {
	var s CacheStats
	for _, p := range c.pools {
		p.mu.Lock()
		s.Hits += p.hits
		s.Misses += p.misses
		s.FreeCount += len(p.free)
		s.FreeBytes += p.freeBytes
		s.PooledBytes += p.total
		p.mu.Unlock()
	}
	return s
}

// KeepsReleasedMemory reports true: released buffers' memory stays pooled
// (hal.MemoryKeeper).
func (c *Caching) KeepsReleasedMemory() bool { return true }
