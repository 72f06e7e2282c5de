package halmodule

import (
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// testCache returns a cache over host memory whose fills apply at once
// (there is no queue in these tests), not poisoning (tests that want it set
// it), whatever GREE_DEBUG_BUFFER_CACHE says.
func testCache() *cache {
	a := hal.NewHeapAllocator()
	c := newCache(func(n int64) (*hal.Buffer, error) {
		return a.Allocate(bufferParams, n)
	}, fillFunc(func(b *hal.Buffer, p byte) {
		data := b.HostBytes()
		for i := range data {
			data[i] = p
		}
	}))
	c.minBytes, c.poison = cacheMinBytes, false
	return c
}

// get allocates n bytes and returns the buffer and its bytes.
func get(t testing.TB, c *cache, n int64, uninitialized bool) (*hal.Buffer, []byte) {
	t.Helper()
	b, err := c.get(n, uninitialized)
	if err != nil {
		t.Fatal(err)
	}
	return b, b.HostBytes()
}

func viewOf(b *hal.Buffer) *hal.BufferView {
	return &hal.BufferView{Shape: []int64{b.ByteLength()}, Type: hal.ElementInt8, Buffer: b}
}

func TestCacheReusesOnlyReleasedDeviceBuffers(t *testing.T) {
	c := testCache()
	const n = 1 << 20
	ab, a := get(t, c, n, false)
	a[0] = 7
	view := viewOf(ab)
	foreign := viewOf(hal.WrapHostBytes(make([]byte, n)))
	c.release([]any{foreign}, nil) // not allocated here: never cached
	if len(c.free[n]) != 0 {
		t.Fatal("cached a buffer the device did not allocate")
	}
	c.release([]any{view}, []any{view}) // kept: not cached
	if len(c.free[n]) != 0 {
		t.Fatal("cached a kept buffer")
	}
	c.release([]any{view, view}, nil)
	if len(c.free[n]) != 1 {
		t.Fatalf("released buffer cached %d times", len(c.free[n]))
	}
	if !ab.Released() {
		t.Fatal("the released view's buffer is still usable")
	}
	c.release([]any{view}, nil) // a second release of the same view
	if len(c.free[n]) != 1 {
		t.Fatal("a view released twice was cached twice")
	}
	bb, b := get(t, c, n, true)
	if &b[0] != &a[0] || b[0] != 7 {
		t.Fatal("uninitialized allocation did not reuse the cached buffer")
	}
	c.release([]any{viewOf(bb)}, nil)
	_, z := get(t, c, n, false)
	if &z[0] != &a[0] || z[0] != 0 {
		t.Fatal("zeroed allocation must clear a reused buffer")
	}
}

func TestCacheReusesTheLastReleasedBufferThatFits(t *testing.T) {
	c := testCache()
	const n = 1 << 16
	bigB, big := get(t, c, 8*n, false)     // over fitRatio·n: never used for n
	smallB, small := get(t, c, 2*n, false) // released first
	midB, mid := get(t, c, 3*n, false)     // released last
	c.release([]any{viewOf(bigB), viewOf(smallB)}, nil)
	c.release([]any{viewOf(midB)}, nil)
	mid[5] = 9
	ab, a := get(t, c, n, false)
	if &a[0] != &mid[0] || len(a) != n || ab.ByteLength() != n {
		t.Fatalf("get(%d) took %p (len %d), want the last released buffer %p cut to %d", n, &a[0], len(a), &mid[0], n)
	}
	if a[5] != 0 {
		t.Fatal("zeroed allocation must clear a reused buffer")
	}
	bb, b := get(t, c, n, true)
	if &b[0] != &small[0] {
		t.Fatalf("second get(%d) took %p, want the other buffer that fits, %p", n, &b[0], &small[0])
	}
	if _, d := get(t, c, n, true); &d[0] == &big[0] {
		t.Fatalf("get(%d) took a buffer of %d bytes", n, len(big))
	}
	// A reused allocation goes back whole.
	c.release([]any{viewOf(ab)}, nil)
	if l := c.free[3*n]; len(l) != 1 || l[0].e.size != 3*n || &l[0].e.root.HostBytes()[0] != &mid[0] {
		t.Fatalf("released %d-byte view of a %d-byte allocation: free list %v", n, 3*n, c.free[3*n])
	}
	// A kept view of the same allocation holds all of it.
	c.release([]any{viewOf(bb)}, []any{viewOf(bb)})
	if len(c.free[2*n]) != 0 {
		t.Fatal("cached an allocation a kept view reads")
	}
}

func TestCacheEvictsPastItsLimits(t *testing.T) {
	c := testCache()
	const n = 1 << 16
	var views []any
	var bufs []*hal.Buffer
	for i := 0; i < cacheMaxPerSize+3; i++ {
		b, _ := get(t, c, n, false)
		views = append(views, viewOf(b))
		bufs = append(bufs, b)
	}
	c.release(views, nil)
	if len(c.free[n]) != cacheMaxPerSize {
		t.Fatalf("%d entries cached, want at most %d", len(c.free[n]), cacheMaxPerSize)
	}
	if c.bytes != cacheMaxPerSize*n {
		t.Fatalf("cache counts %d bytes, want %d", c.bytes, cacheMaxPerSize*n)
	}
}

// queue is an orderer for the tests: its work so far completes when its
// semaphore reaches at (fills apply at once).
type queue struct {
	sem *hal.HostSemaphore
	at  uint64
}

func (q *queue) fill(b *hal.Buffer, p byte) {
	data := b.HostBytes()
	for i := range data {
		data[i] = p
	}
}
func (q *queue) position() (hal.Semaphore, uint64) { return q.sem, q.at }
func (q *queue) own() hal.Semaphore                { return q.sem }

func TestCacheWaitsForTheReleasingQueue(t *testing.T) {
	c := testCache()
	const n = 1 << 16
	a := &queue{sem: hal.NewHostSemaphore(0), at: 1} // work pending on a
	b := &queue{sem: hal.NewHostSemaphore(0)}
	xb, err := c.getBy(a, n, false)
	if err != nil {
		t.Fatal(err)
	}
	x := &xb.HostBytes()[0]
	c.releaseBy(a, []any{viewOf(xb)}, nil)
	// Another queue must not write storage a's pending work still reads.
	yb, err := c.getBy(b, n, false)
	if err != nil {
		t.Fatal(err)
	}
	if &yb.HostBytes()[0] == x {
		t.Fatal("a buffer released with work pending on its queue went to another queue")
	}
	// Its own queue reuses it at once (queue order covers it).
	zb, err := c.getBy(a, n, true)
	if err != nil {
		t.Fatal(err)
	}
	if &zb.HostBytes()[0] != x {
		t.Fatal("the releasing queue did not reuse its own buffer")
	}
	c.releaseBy(a, []any{viewOf(zb)}, nil)
	// Once a's work completes, anyone may take it.
	if err := a.sem.Signal(1); err != nil {
		t.Fatal(err)
	}
	wb, err := c.getBy(b, n, true)
	if err != nil {
		t.Fatal(err)
	}
	if &wb.HostBytes()[0] != x {
		t.Fatal("a buffer whose queue finished was not reused by another queue")
	}
	// A failed queue runs nothing more: its buffers are free too.
	c.releaseBy(b, []any{viewOf(yb)}, nil)
	b.at = 1
	vb, err := c.getBy(b, 2*n, true)
	if err != nil {
		t.Fatal(err)
	}
	v := &vb.HostBytes()[0]
	c.releaseBy(b, []any{viewOf(vb)}, nil)
	if ub, _ := c.getBy(a, 2*n, true); &ub.HostBytes()[0] == v {
		t.Fatal("a buffer released with work pending on its queue went to another queue")
	}
	b.sem.Fail(status.New(status.Aborted, "test"))
	if ub, _ := c.getBy(a, 2*n, true); &ub.HostBytes()[0] != v {
		t.Fatal("the buffer of a failed queue was not reused")
	}
}
