package ptx_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
	"github.com/gree-ml/gree/go/internal/ptxsim"
	"github.com/gree-ml/gree/go/schemas/cuda"
)

// The differential tests run emitted kernels on ptxsim (the PTX
// simulator of the differential tests) and on kir.Run over the same
// inputs and compare every binding: integers and booleans bit for bit,
// floats bit for bit but for NaN payloads (PTX's arithmetic makes the
// canonical NaN, the interpreter Go's; any NaN matches any NaN).

// outcome is one run: the bindings afterwards, and the error (kir.Run)
// or status word (the PTX kernel).
type outcome struct {
	bufs [][]byte
	err  error
	code int64
}

// simLoad loads v's module into ptxsim.
func simLoad(t *testing.T, v cuda.Variant) *ptxsim.Module {
	t.Helper()
	m, err := ptxsim.Load(string(v.PTX))
	if err != nil {
		t.Fatalf("ptxsim.Load: %v\n%s", err, numbered(v.PTX))
	}
	return m
}

// simRun runs entry 0 of v on ptxsim over grid.
func simRun(t *testing.T, v cuda.Variant, grid [3]int64, pcs []int64, inputs [][]byte) outcome {
	t.Helper()
	return simLaunch(t, simLoad(t, v), v.Entries[0], grid, pcs, inputs)
}

// simLaunch runs entry e of the loaded module m over grid.
func simLaunch(t *testing.T, m *ptxsim.Module, e cuda.Entry, grid [3]int64, pcs []int64, inputs [][]byte) outcome {
	t.Helper()
	mem := ptxsim.NewArena()
	var addrs []uint64
	var params []uint64
	for _, in := range inputs {
		a := mem.Alloc(in)
		addrs = append(addrs, a)
		params = append(params, a)
	}
	for _, in := range inputs {
		params = append(params, uint64(len(in)))
	}
	st := mem.Alloc(make([]byte, cuda.StatusBytes))
	if e.Reports() {
		params = append(params, st)
	}
	for _, pc := range pcs[:e.NumPushConstants] {
		params = append(params, uint64(pc))
	}
	g := [3]int{int(grid[0]), int(grid[1]), int(grid[2])}
	if err := m.Launch(e.Symbol, g, e.BlockSize, params, mem); err != nil {
		t.Fatalf("%s: ptxsim: %v", e.Name, err)
	}
	out := outcome{code: int64(binary.LittleEndian.Uint64(mem.Bytes(st)))}
	for i, in := range inputs {
		out.bufs = append(out.bufs, append([]byte(nil), mem.Bytes(addrs[i])[:len(in)]...))
	}
	return out
}

// runBoth runs k on kir.Run and, emitted for arch, on ptxsim.
func runBoth(t *testing.T, arch string, k *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte) (want, got outcome) {
	t.Helper()
	want.bufs = clone(inputs)
	want.err = kir.Run(k, grid, pcs, want.bufs)
	v := emitArch(t, arch, k)
	got = simRun(t, v, grid, pcs, clone(inputs))
	return want, got
}

func clone(bs [][]byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// elem decodes element i of b (type s): its value as a float (floats) and
// its bits.
func elem(b []byte, s kir.Scalar, i int) (float64, uint64) {
	switch s.ByteSize() {
	case 1:
		return 0, uint64(b[i])
	case 2:
		x := binary.LittleEndian.Uint16(b[2*i:])
		switch s {
		case kir.F16:
			return half.ToFloat64(x, 5, 10), uint64(x)
		case kir.BF16:
			return half.ToFloat64(x, 8, 7), uint64(x)
		}
		return 0, uint64(x)
	case 4:
		x := binary.LittleEndian.Uint32(b[4*i:])
		return float64(math.Float32frombits(x)), uint64(x)
	}
	x := binary.LittleEndian.Uint64(b[8*i:])
	return math.Float64frombits(x), x
}

// compare checks every binding of got against want; when kir.Run failed,
// only that the kernel reported a failure.
func compare(t *testing.T, k *kir.Kernel, want, got outcome) {
	t.Helper()
	if want.err != nil {
		if got.code == 0 {
			t.Errorf("%s: kir.Run failed (%v), the PTX kernel reported nothing", k.Name, want.err)
		}
		return
	}
	if got.code != 0 {
		t.Errorf("%s: the PTX kernel reported %s; kir.Run succeeded", k.Name, cuda.Describe(got.code))
		return
	}
	for b, bind := range k.Bindings {
		s := bind.Elem
		n := len(want.bufs[b]) / s.ByteSize()
		bad := 0
		for i := 0; i < n; i++ {
			wf, wu := elem(want.bufs[b], s, i)
			gf, gu := elem(got.bufs[b], s, i)
			if wu == gu || s.IsFloat() && math.IsNaN(wf) && math.IsNaN(gf) {
				continue
			}
			if bad < 6 {
				t.Errorf("%s: binding %d (%s) element %d: got %#x (%v), want %#x (%v)", k.Name, b, s, i, gu, gf, wu, wf)
			}
			bad++
		}
		if bad > 6 {
			t.Errorf("%s: binding %d: %d of %d elements differ", k.Name, b, bad, n)
		}
	}
}

// specialFloats are inputs every float test includes: signed zeros,
// halves (rounding ties), infinities, NaN, tiny and huge values.
var specialFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, -2.5, 2.5, math.Inf(1), math.Inf(-1),
	math.NaN(), 1e-40, -3e-39, 1e-310, 3.4e38, -1e300, 65504, 65520, 1e-7, 6e-8, 0.1, -0.7, 7.25, 1 << 24,
	(1 << 24) + 1, 3e9, -3e9, 1e19, -1e19, 300, -129, 255.5, 40000.5, -32768.4}

// floatInputs returns n values: the specials, then random values of
// varied magnitude (seeded).
func floatInputs(n int, seed uint64) []float64 {
	xs := append([]float64(nil), specialFloats...)
	r := uint64(seed*2654435761 + 1)
	for len(xs) < n {
		r = r*6364136223846793005 + 1442695040888963407
		m := float64(r>>11) / (1 << 53)
		e := int(r%23) - 11
		x := (m*2 - 1) * math.Pow(4, float64(e))
		xs = append(xs, x)
	}
	return xs[:n]
}

// simCheck reports whether the simulator loads a module.
func simCheck() error {
	_, err := ptxsim.Load(".version 6.0\n.target sm_60\n.address_size 64\n")
	return err
}

// simAvailable skips t when the simulator does not run, or with -short.
func simAvailable(t *testing.T) {
	t.Helper()
	if err := simCheck(); err != nil {
		t.Skipf("ptxsim cannot load a module (%v): the differential tests do not run", err)
	}
	if testing.Short() {
		t.Skip("-short: the differential tests do not run")
	}
}

// name formats a test case name.
func name(parts ...any) string { return fmt.Sprint(parts...) }
