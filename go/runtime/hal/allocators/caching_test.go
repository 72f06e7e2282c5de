package allocators

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

var devParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}

func mustAlloc(t *testing.T, a hal.Allocator, params hal.BufferParams, n int64) *hal.Buffer {
	t.Helper()
	b, err := a.Allocate(params, n)
	if err != nil {
		t.Fatalf("allocate %d: %v", n, err)
	}
	return b
}

func TestSizeClass(t *testing.T) {
	for n, want := range map[int64]int64{0: 256, 1: 256, 256: 256, 257: 288, 300: 320, 512: 512, 513: 576, 1000: 1024, 1025: 1152, 1 << 20: 1 << 20, 1<<20 + 1: 1<<20 + 1<<17} {
		if got := SizeClass(n); got != want {
			t.Errorf("SizeClass(%d) = %d, want %d", n, got, want)
		}
	}
	for n := int64(257); n < 1<<16; n += 97 {
		if c := SizeClass(n); c < n || c > n+n/8 {
			t.Fatalf("SizeClass(%d) = %d: not within 12.5%% above", n, c)
		}
	}
}

func TestCachingReusesBySizeClass(t *testing.T) {
	base := hal.NewHeapAllocator()
	c := NewCaching(nil, base)
	b1 := mustAlloc(t, c, devParams, 1000)
	root := b1.LeaseRoot()
	if root == nil || root.AllocationSize() != 1024 || b1.ByteLength() != 1000 {
		t.Fatalf("first buffer: root %v, %s", root, b1)
	}
	copy(b1.HostBytes(), bytes.Repeat([]byte{7}, 1000))
	allocated := base.Statistics().DeviceBytesAllocated
	b1.Release()
	if s := c.CacheStatistics(); s.FreeCount != 1 || s.FreeBytes != 1024 || s.Misses != 1 {
		t.Fatalf("after release: %+v", s)
	}
	// Another size of the same class, same parameters: the same memory,
	// zeroed again.
	b2 := mustAlloc(t, c, devParams, 1010)
	if b2.LeaseRoot() != root || !b2.SameAllocation(root) {
		t.Fatal("a released allocation of the class was not reused")
	}
	if !bytes.Equal(b2.HostBytes(), make([]byte, 1010)) {
		t.Fatal("reused memory is not zeroed")
	}
	if got := base.Statistics().DeviceBytesAllocated; got != allocated {
		t.Errorf("the wrapped allocator allocated again: %d → %d bytes", allocated, got)
	}
	// The released buffer stays released although its memory is reused.
	if _, err := b1.Map(0, 4, hal.MemoryAccessRead); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("using a released buffer whose memory was reused: %v", err)
	}
	// Another class, or other parameters: new allocations.
	b3 := mustAlloc(t, c, devParams, 5000)
	b4 := mustAlloc(t, c, hal.BufferParams{Type: hal.MemoryTypeHostLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}, 1000)
	if b3.SameAllocation(root) || b4.SameAllocation(root) {
		t.Error("a buffer of another class or parameters shares the pooled allocation")
	}
	if s := c.CacheStatistics(); s.Hits != 1 || s.Misses != 3 {
		t.Errorf("hits/misses %+v, want 1/3", s)
	}
	for _, b := range []*hal.Buffer{b2, b3, b4} {
		b.Release()
	}
	// Trim gives everything back to the wrapped allocator.
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	s := base.Statistics()
	if s.DeviceBytesAllocated != s.DeviceBytesFreed || s.HostBytesAllocated != s.HostBytesFreed {
		t.Errorf("memory still held after Trim: %+v", s)
	}
	if cs := c.CacheStatistics(); cs.FreeCount != 0 || cs.PooledBytes != 0 {
		t.Errorf("pool after Trim: %+v", cs)
	}
}

func TestCachingSubspanKeepsTheLease(t *testing.T) {
	c := NewCaching(nil, hal.NewHeapAllocator())
	b := mustAlloc(t, c, devParams, 600)
	sub, err := b.Subspan(100, 50)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if s := c.CacheStatistics(); s.FreeCount != 0 {
		t.Fatal("pooled while a subspan still uses the buffer")
	}
	sub.Release()
	if s := c.CacheStatistics(); s.FreeCount != 1 {
		t.Fatal("not pooled once the subspan was released")
	}
}

func TestCachingLimits(t *testing.T) {
	base := hal.NewHeapAllocator()
	c := NewCaching(nil, base, PoolConfig{MaxAllocationSize: 4096, MaxFreeCount: 1})
	big := mustAlloc(t, c, devParams, 8192)
	if big.LeaseRoot() != nil {
		t.Error("a buffer over the pool's max allocation size was pooled")
	}
	a, b := mustAlloc(t, c, devParams, 100), mustAlloc(t, c, devParams, 100)
	a.Release()
	b.Release()
	if s := c.CacheStatistics(); s.FreeCount != 1 || s.PooledBytes != 256 {
		t.Errorf("free count bound 1: %+v", s)
	}
	// A capacity bound gives the oldest free allocations back first.
	c2 := NewCaching(nil, base, PoolConfig{MaxCapacity: 1024})
	var bufs []*hal.Buffer
	for range 4 {
		bufs = append(bufs, mustAlloc(t, c2, devParams, 256))
	}
	for _, b := range bufs {
		b.Release()
	}
	mustAlloc(t, c2, devParams, 1024).Release() // another class: room is made
	if s := c2.CacheStatistics(); s.PooledBytes > 1024 {
		t.Errorf("capacity 1024 exceeded: %+v", s)
	}
	// Exported buffers are never pooled.
	e := mustAlloc(t, c, hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageSharingExport}, 64)
	if e.LeaseRoot() != nil {
		t.Error("an exported buffer was pooled")
	}
}

func TestCachingUnreleasedLeaseReturnsAtCollection(t *testing.T) {
	c := NewCaching(nil, hal.NewHeapAllocator())
	func() { mustAlloc(t, c, devParams, 4000) }() // dropped, never released
	for i := 0; i < 50 && c.CacheStatistics().FreeCount == 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if c.CacheStatistics().FreeCount != 1 {
		t.Fatal("an unreachable lease did not give its allocation back")
	}
}

func TestCachingCloseGivesMemoryBack(t *testing.T) {
	base := hal.NewHeapAllocator()
	c := NewCaching(nil, base)
	kept := mustAlloc(t, c, devParams, 3000)
	mustAlloc(t, c, devParams, 2000).Release()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if s := c.CacheStatistics(); s.FreeCount != 0 {
		t.Error("Close kept pooled memory")
	}
	kept.Release() // after Close: straight back to the wrapped allocator
	if s := base.Statistics(); s.DeviceBytesAllocated != s.DeviceBytesFreed {
		t.Errorf("memory held after Close and release: %+v", s)
	}
}
