package spirv_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/internal/half"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
)

// The differential tests run modules on the first Vulkan device (Mesa's
// lavapipe on machines without a GPU) and compare every binding with the
// reference interpreter's.

// device returns the Vulkan runner or skips t.
func device(t testing.TB) *vkRunner {
	t.Helper()
	spirvVal(t)
	r, err := vulkan()
	if err != nil {
		t.Skipf("no Vulkan device to run modules on (%v): differential tests skipped", err)
	}
	return r
}

// outcome is what one execution left.
type outcome struct {
	bufs [][]byte
	err  error // the interpreter's
	code int64 // the module's status word
}

// runBoth runs k on the interpreter and on the device.
func runBoth(t *testing.T, k *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte) (want, got outcome) {
	t.Helper()
	r := device(t)
	e, err := spirv.Emit(k, spirv.Options{Capabilities: allCaps, SubgroupSize: 8})
	if err != nil {
		t.Fatalf("%v\n%s", err, k)
	}
	validate(t, k.Name, e.SPIRV, "vulkan1.1")
	want.bufs = targettest.Clone(inputs)
	want.err = kir.Run(k, grid, pcs, want.bufs)
	got.bufs = targettest.Clone(inputs)
	got.code, err = r.run(e, grid, pcs, got.bufs)
	if err != nil {
		t.Fatalf("%s: %v", k.Name, err)
	}
	if (want.err != nil) != (got.code != 0) {
		t.Fatalf("%s: interpreter error %v, module status %#x (%s)", k.Name, want.err, got.code, schema.Describe(got.code))
	}
	return want, got
}

// elem decodes element i of a buffer of s as a float64 (floats) or its
// bits (integers, sign-extended).
func elem(b []byte, s kir.Scalar, i int) (float64, uint64) {
	switch s.ByteSize() {
	case 1:
		return 0, uint64(int8(b[i]))
	case 2:
		u := binary.LittleEndian.Uint16(b[2*i:])
		switch s {
		case kir.F16:
			return half.F16ToFloat64(u), uint64(u)
		case kir.BF16:
			return half.BF16ToFloat64(u), uint64(u)
		}
		return 0, uint64(int16(u))
	case 4:
		u := binary.LittleEndian.Uint32(b[4*i:])
		return float64(math.Float32frombits(u)), uint64(int32(u))
	}
	u := binary.LittleEndian.Uint64(b[8*i:])
	return math.Float64frombits(u), u
}

// ulps is the distance of x from y in units of the last place of s at y.
func ulps(s kir.Scalar, x, y float64) float64 {
	if x == y || math.IsNaN(x) && math.IsNaN(y) {
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	mb := map[kir.Scalar]int{kir.F16: 10, kir.BF16: 7, kir.F32: 23, kir.F64: 52}[s]
	minExp := map[kir.Scalar]int{kir.F16: -14, kir.BF16: -126, kir.F32: -126, kir.F64: -1022}[s]
	_, e := math.Frexp(y)
	e = max(e-1, minExp)
	return math.Abs(x-y) / math.Ldexp(1, e-mb)
}

// compare checks every binding of got against want: integers exactly,
// floats within tol(binding, element) ULPs (NaNs match NaNs).
func compare(t *testing.T, k *kir.Kernel, want, got outcome, tol func(b, i int) float64) {
	t.Helper()
	if want.err != nil {
		return
	}
	bad := 0
	for b, bind := range k.Bindings {
		s := bind.Elem
		n := len(want.bufs[b]) / s.ByteSize()
		for i := 0; i < n; i++ {
			wf, wu := elem(want.bufs[b], s, i)
			gf, gu := elem(got.bufs[b], s, i)
			if s.IsFloat() {
				if d := ulps(s, gf, wf); d > tol(b, i) || (wf == 0 && gf == 0 && math.Signbit(wf) != math.Signbit(gf) && tol(b, i) == 0) {
					t.Errorf("%s: binding %d element %d: got %v, want %v (%.1f ulp)", k.Name, b, i, gf, wf, d)
					bad++
				}
			} else if s == kir.I1 && (wu&1) != (gu&1) || s != kir.I1 && wu != gu {
				t.Errorf("%s: binding %d element %d: got %#x, want %#x", k.Name, b, i, gu, wu)
				bad++
			}
			if bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
}

func exact(int, int) float64 { return 0 }

func TestRunIntOps(t *testing.T) {
	for _, c := range targettest.IntCases() {
		n := len(c.A)
		// The lane-by-lane variants take lavapipe long to compile: one
		// for the hand-picked cases only.
		for _, vector := range []bool{n > 12, true} {
			k := targettest.IntOps(c.Elem, n, vector)
			nOut := (len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)) * n
			a, b := targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B)
			bufs := [][]byte{a, b, make([]byte, nOut*c.Elem.ByteSize()), make([]byte, 10*n)}
			want, got := runBoth(t, k, [3]int64{1, 1, 1}, nil, bufs)
			compare(t, k, want, got, exact)
		}
	}
}

func TestRunBoundsChecks(t *testing.T) {
	k, b := kir.NewKernel("bounds")
	k.NumPushConstants = 1
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.Write}}
	off := b.Query(kir.PushConstant, 0)
	x := b.Load(0, kir.V(kir.I32, 4), off)
	b.Store(1, b.Idx(0), x)
	for _, o := range []int64{0, 4, 5, -1, 1 << 40} {
		in := [][]byte{targettest.EncInts(kir.I32, []int64{1, 2, 3, 4, 5, 6, 7, 8}), make([]byte, 16)}
		want, got := runBoth(t, k, [3]int64{1, 1, 1}, []int64{o}, in)
		compare(t, k, want, got, exact)
		if want.err != nil {
			kind, bind, check := llvmcpu.DecodeError(got.code)
			if kind != llvmcpu.ErrOutOfBounds || bind != 0 || check != 1 {
				t.Errorf("offset %d: status %#x (%s)", o, got.code, schema.Describe(got.code))
			}
		}
	}
}
