package halmodule

import (
	"runtime"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
)

func TestCacheReusesOnlyReleasedDeviceBuffers(t *testing.T) {
	c := newCache()
	const n = 1 << 20
	a := c.alloc(n, false)
	a[0] = 7
	view := &hal.BufferView{Shape: []int64{n}, Type: hal.ElementInt8, Data: a}
	foreign := &hal.BufferView{Shape: []int64{n}, Type: hal.ElementInt8, Data: make([]byte, n)}
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
	b := c.alloc(n, true)
	if &b[0] != &a[0] || b[0] != 7 {
		t.Fatal("uninitialized allocation did not reuse the cached buffer")
	}
	c.release([]any{&hal.BufferView{Data: b}}, nil)
	z := c.alloc(n, false)
	if &z[0] != &a[0] || z[0] != 0 {
		t.Fatal("zeroed allocation must clear a reused buffer")
	}
}

func TestCacheForgetsCollectedBuffers(t *testing.T) {
	c := newCache()
	for i := 0; i < 2000; i++ {
		c.alloc(1<<16, false)
	}
	runtime.GC()
	c.alloc(1<<16, false)
	if len(c.owned) > 1100 {
		t.Fatalf("%d records of collected buffers kept", len(c.owned))
	}
}

func TestCacheReusesTheLastReleasedBufferThatFits(t *testing.T) {
	c := newCache()
	const n = 1 << 16
	view := func(b []byte) *hal.BufferView {
		return &hal.BufferView{Shape: []int64{int64(len(b))}, Type: hal.ElementInt8, Data: b}
	}
	big := c.alloc(8*n, false)   // over fitRatio·n: never used for n
	small := c.alloc(2*n, false) // released first
	mid := c.alloc(3*n, false)   // released last
	c.release([]any{view(big), view(small)}, nil)
	c.release([]any{view(mid)}, nil)
	mid[5] = 9
	a := c.alloc(n, false)
	if &a[0] != &mid[0] || len(a) != n || cap(a) != n {
		t.Fatalf("alloc(%d) took %p (len %d cap %d), want the last released buffer %p cut to %d", n, &a[0], len(a), cap(a), &mid[0], n)
	}
	if a[5] != 0 {
		t.Fatal("zeroed allocation must clear a reused buffer")
	}
	b := c.alloc(n, true)
	if &b[0] != &small[0] {
		t.Fatalf("second alloc(%d) took %p, want the other buffer that fits, %p", n, &b[0], &small[0])
	}
	if d := c.alloc(n, true); &d[0] == &big[0] {
		t.Fatalf("alloc(%d) took a buffer of %d bytes", n, len(big))
	}
	// A reused buffer goes back whole, with its capacity.
	c.release([]any{view(a)}, nil)
	if l := c.free[3*n]; len(l) != 1 || len(l[0].b) != 3*n || &l[0].b[0] != &mid[0] {
		t.Fatalf("released %d-byte view of a %d-byte buffer: free list %v", n, 3*n, c.free[3*n])
	}
	// A view kept elsewhere inside the released storage holds all of it.
	c.release([]any{view(b)}, []any{view(small[n+8 : n+16])})
	if len(c.free[2*n]) != 0 {
		t.Fatal("cached a buffer part of which a kept view reads")
	}
}
