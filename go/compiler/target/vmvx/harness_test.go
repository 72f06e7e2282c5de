package vmvx_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/vmvx"
)

// diff runs k over grid through kir.Run and through Emit, Load and
// RunWorkgroup (sequentially, and concurrently on several goroutines), and
// requires the same bytes in every binding. NaNs compare equal to NaNs.
func diff(t *testing.T, k *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte) [][]byte {
	t.Helper()
	want := clone(inputs)
	if err := kir.Run(k, grid, pcs, want); err != nil {
		t.Fatalf("kir.Run: %v\n%s", err, k)
	}
	data, err := vmvx.Emit([]*kir.Kernel{k})
	if err != nil {
		t.Fatalf("Emit: %v\n%s", err, k)
	}
	x, err := rt.Load(data)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// Sequential, one State (on the buffers a dispatch runs on:
	// WholeElements pads those that end in a partial element).
	got := clone(inputs)
	bound, finish := x.WholeElements(0, got)
	st := rt.NewState()
	for z := int64(0); z < grid[2]; z++ {
		for y := int64(0); y < grid[1]; y++ {
			for xx := int64(0); xx < grid[0]; xx++ {
				if err := x.RunWorkgroup(st, 0, [3]int64{xx, y, z}, grid, pcs, bound); err != nil {
					t.Fatalf("RunWorkgroup: %v\n%s", err, k)
				}
			}
		}
	}
	finish()
	compare(t, k, "sequential", want, got)
	// Concurrent: workgroups dealt round-robin to goroutines.
	got = clone(inputs)
	bound, finish = x.WholeElements(0, got)
	const workers = 4
	states := make([]*rt.State, workers)
	for w := range states {
		states[w] = rt.NewState()
	}
	if err := targettest.Concurrently(workers, grid[0]*grid[1]*grid[2], func(w int, i int64) error {
		return x.RunWorkgroup(states[w], 0, targettest.WorkgroupID(i, grid), grid, pcs, bound)
	}); err != nil {
		t.Fatalf("concurrent RunWorkgroup: %v", err)
	}
	finish()
	compare(t, k, "concurrent", want, got)
	return want
}

var clone = targettest.Clone

func compare(t *testing.T, k *kir.Kernel, mode string, want, got [][]byte) {
	t.Helper()
	for i := range want {
		e := k.Bindings[i].Elem
		sz := e.ByteSize()
		for j := 0; j+sz <= len(want[i]); j += sz {
			w, g := want[i][j:j+sz], got[i][j:j+sz]
			if bytes.Equal(w, g) || isNaN(e, w) && isNaN(e, g) {
				continue
			}
			t.Fatalf("%s: binding %d element %d: kir %x, vmvx %x\n%s", mode, i, j/sz, w, g, k)
		}
		if tail := len(want[i]) / sz * sz; !bytes.Equal(want[i][tail:], got[i][tail:]) {
			t.Fatalf("%s: binding %d's partial last element: kir %x, vmvx %x\n%s", mode, i, want[i][tail:], got[i][tail:], k)
		}
	}
}

func isNaN(e kir.Scalar, b []byte) bool {
	switch e {
	case kir.F16:
		h := binary.LittleEndian.Uint16(b)
		return h&0x7c00 == 0x7c00 && h&0x3ff != 0
	case kir.BF16:
		h := binary.LittleEndian.Uint16(b)
		return h&0x7f80 == 0x7f80 && h&0x7f != 0
	case kir.F32:
		return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case kir.F64:
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return false
}

func f32s(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// load emits k alone and loads it.
func load(t *testing.T, k *kir.Kernel) *rt.Executable {
	t.Helper()
	data, err := vmvx.Emit([]*kir.Kernel{k})
	if err != nil {
		t.Fatalf("Emit: %v", err)
	}
	x, err := rt.Load(data)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return x
}

func newState() *rt.State { return rt.NewState() }
