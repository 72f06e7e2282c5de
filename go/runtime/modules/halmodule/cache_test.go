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
