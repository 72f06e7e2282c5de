package llvmcpu_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/internal/half"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
)

// needLLVM skips the test, with the reason, when LLVM is not installed.
func needLLVM(t *testing.T) llvmcpu.Machine {
	t.Helper()
	if err := llvmcpu.Available(); err != nil {
		t.Skipf("llvm-cpu unavailable: %v", err)
	}
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{})
	if err != nil {
		t.Fatalf("ResolveMachine: %v", err)
	}
	return m
}

// build emits kernels for the host and loads the executable.
func build(t *testing.T, m llvmcpu.Machine, ks ...*kir.Kernel) *rt.Executable {
	t.Helper()
	data, err := llvmcpu.Emit(ks, m)
	if err != nil {
		src, _, _ := llvmcpu.Translate(ks, m)
		t.Fatalf("Emit: %v\n%s", err, src)
	}
	x, err := rt.Load(data)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// diff runs k over grid through kir.Run and through the native code (one
// call for the whole grid, and one call per workgroup spread over
// goroutines) and requires the same bytes in every binding, or, with
// ulps > 0, float elements within that many units in the last place.
func diff(t *testing.T, k *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte, ulps int) [][]byte {
	t.Helper()
	return diffOn(t, needLLVM(t), k, grid, pcs, inputs, ulps)
}

// diffOn is diff for code built for machine m (which must run here).
func diffOn(t *testing.T, m llvmcpu.Machine, k *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte, ulps int) [][]byte {
	t.Helper()
	want := clone(inputs)
	if err := kir.Run(k, grid, pcs, want); err != nil {
		t.Fatalf("kir.Run: %v\n%s", err, k)
	}
	x := build(t, m, k)
	total := grid[0] * grid[1] * grid[2]
	got := clone(inputs)
	if err := x.Run(0, 0, total, grid, pcs, got); err != nil {
		t.Fatalf("Run: %v\n%s", err, k)
	}
	compare(t, k, "one call", want, got, ulps)
	got = clone(inputs)
	if err := targettest.Concurrently(4, total, func(_ int, i int64) error { return x.Run(0, i, 1, grid, pcs, got) }); err != nil {
		t.Fatalf("concurrent Run: %v", err)
	}
	compare(t, k, "per workgroup", want, got, ulps)
	return want
}

var clone = targettest.Clone

func compare(t *testing.T, k *kir.Kernel, mode string, want, got [][]byte, ulps int) {
	t.Helper()
	for i := range want {
		e := k.Bindings[i].Elem
		sz := e.ByteSize()
		for j := 0; j+sz <= len(want[i]); j += sz {
			w, g := want[i][j:j+sz], got[i][j:j+sz]
			if bytes.Equal(w, g) || isNaN(e, w) && isNaN(e, g) || ulps > 0 && closeULP(e, w, g, ulps) {
				continue
			}
			t.Fatalf("%s: binding %d element %d: kir %x (%v), llvm-cpu %x (%v)\n%s", mode, i, j/sz, w, value(e, w), g, value(e, g), k)
		}
	}
}

// ordered maps a float's bits to an integer line where adjacent floats
// are adjacent.
func ordered(e kir.Scalar, b []byte) int64 {
	var x int64
	var sign int64
	switch e.ByteSize() {
	case 2:
		u := binary.LittleEndian.Uint16(b)
		x, sign = int64(u&0x7fff), int64(u>>15)
	case 4:
		u := binary.LittleEndian.Uint32(b)
		x, sign = int64(u&0x7fffffff), int64(u>>31)
	default:
		u := binary.LittleEndian.Uint64(b)
		x, sign = int64(u&(1<<63-1)), int64(u>>63)
	}
	if sign != 0 {
		return -x
	}
	return x
}

func closeULP(e kir.Scalar, w, g []byte, ulps int) bool {
	if !e.IsFloat() {
		return false
	}
	d := ordered(e, w) - ordered(e, g)
	return d >= -int64(ulps) && d <= int64(ulps)
}

func value(e kir.Scalar, b []byte) float64 {
	switch e {
	case kir.F16:
		return half.F16ToFloat64(binary.LittleEndian.Uint16(b))
	case kir.BF16:
		return half.BF16ToFloat64(binary.LittleEndian.Uint16(b))
	case kir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case kir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	var x int64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | int64(b[i])
	}
	return float64(x)
}

func isNaN(e kir.Scalar, b []byte) bool {
	return e.IsFloat() && math.IsNaN(value(e, b))
}

func f32s(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
