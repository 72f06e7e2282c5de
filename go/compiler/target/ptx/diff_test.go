package ptx_test

import (
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/mathexp"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

func TestRunIntOps(t *testing.T) {
	simAvailable(t)
	for _, c := range targettest.IntCases() {
		n := len(c.A)
		for _, lanes := range []int{1, n} {
			k := targettest.IntOps(c.Elem, n, lanes > 1)
			k.Name = name("int_ops_", c.Elem, "_", lanes)
			nOps := len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)
			in := [][]byte{targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B),
				make([]byte, nOps*n*c.Elem.ByteSize()), make([]byte, 10*n)}
			want, got := runBoth(t, "sm_80", k, [3]int64{1, 1, 1}, nil, in)
			compare(t, k, want, got)
		}
	}
}

func TestRunFloatOps(t *testing.T) {
	simAvailable(t)
	for _, arch := range []string{"sm_60", "sm_80"} {
		for _, s := range floatTypes {
			const n = 2
			k := floatKernel(s, n)
			xs := floatInputs(64, 1)
			ys := floatInputs(64, 2)
			// Pair every special with every other one, n lanes at a time.
			for i := 0; i+n <= len(xs); i += n {
				a, b := xs[i:i+n], append([]float64(nil), ys[(i*7)%(len(ys)-n):][:n]...)
				if i%4 == 0 {
					b[0] = a[1]
				}
				in := [][]byte{targettest.EncFloats(s, a), targettest.EncFloats(s, b), make([]byte, 64*n*s.ByteSize()), make([]byte, 64*n)}
				want, got := runBoth(t, arch, k, [3]int64{1, 1, 1}, nil, in)
				compare(t, k, want, got)
				if t.Failed() {
					t.Fatalf("%s %s inputs %v %v", arch, s, a, b)
				}
			}
		}
	}
}

// convInputs returns n interesting elements of s.
func convInputs(s kir.Scalar, n int) []byte {
	if s.IsFloat() {
		return targettest.EncFloats(s, floatInputs(n, 3))
	}
	xs := []int64{0, 1, -1, 127, -128, 255, 32767, -32768, 65535, math.MaxInt32, math.MinInt32, 1<<32 - 1,
		math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, 1<<24 + 1, -(1<<24 + 1), 3, 1000}
	for len(xs) < n {
		xs = append(xs, int64(uint64(len(xs))*0x9E3779B97F4A7C15))
	}
	return targettest.EncInts(s, xs[:n])
}

func TestRunConversions(t *testing.T) {
	simAvailable(t)
	for _, arch := range []string{"sm_60", "sm_80"} {
		for _, c := range conversions() {
			kind, from, to := kir.Kind(c[0]), kir.Scalar(c[1]), kir.Scalar(c[2])
			k := convKernel(kind, from, to)
			const n = 40
			src := convInputs(from, n)
			for i := 0; i+2 <= n; i += 2 {
				in := [][]byte{src[i*from.ByteSize() : (i+2)*from.ByteSize()], make([]byte, 2*to.ByteSize())}
				want, got := runBoth(t, arch, k, [3]int64{1, 1, 1}, nil, in)
				compare(t, k, want, got)
			}
		}
	}
}

func TestRunVectors(t *testing.T) {
	simAvailable(t)
	for _, s := range append(append([]kir.Scalar{}, intTypes...), floatTypes...) {
		for _, n := range []int{1, 3, 16} {
			k := vectorKernel(s, n)
			in := [][]byte{convInputs(s, n), make([]byte, (n+16)*s.ByteSize()), make([]byte, 8*max(n, 2))}
			want, got := runBoth(t, "sm_80", k, [3]int64{1, 1, 1}, nil, in)
			compare(t, k, want, got)
		}
	}
}

func TestRunLoops(t *testing.T) {
	simAvailable(t)
	k := loopsKernel()
	for _, pc := range [][]int64{{6, 1}, {7, 2}, {0, 1}, {5, 0}, {5, -1}, {9, 4}, {12, 3}} {
		in := [][]byte{convInputs(kir.F32, 16), targettest.EncInts(kir.I1, []int64{1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1})}
		want, got := runBoth(t, "sm_80", k, [3]int64{1, 1, 1}, pc, in)
		compare(t, k, want, got)
		if want.err != nil && pc[1] <= 0 {
			if kind, _, check := llvmcpu.DecodeError(got.code); kind != llvmcpu.ErrStep || check != 1 {
				t.Errorf("%v: status %#x", pc, got.code)
			}
		}
	}
}

func TestRunThreadOps(t *testing.T) {
	simAvailable(t)
	for _, sh := range threadShapes {
		for _, s := range append(append([]kir.Scalar{}, intTypes...), floatTypes...) {
			k := threadKernel(s, sh.ws, sh.sg)
			threads := sh.ws[0] * sh.ws[1] * sh.ws[2]
			const wgs = 3
			in := [][]byte{convInputs(s, wgs*threads), make([]byte, 16*4*threads*s.ByteSize()+wgs*threads*s.ByteSize()),
				make([]byte, 3*4*threads*8+wgs*threads*8)}
			want, got := runBoth(t, "sm_80", k, [3]int64{wgs, 1, 1}, nil, in)
			compare(t, k, want, got)
		}
	}
}

func TestRunAtomics(t *testing.T) {
	simAvailable(t)
	k := atomicKernel()
	in := [][]byte{make([]byte, 4*4*5)}
	for i := range in[0] {
		in[0][i] = byte(i * 37)
	}
	want, got := runBoth(t, "sm_80", k, [3]int64{5, 1, 1}, nil, in)
	compare(t, k, want, got)
}

// TestRunBoundsChecks runs loads and stores past their binding and shared
// allocation, with contiguous, strided and negative offsets.
func TestRunBoundsChecks(t *testing.T) {
	simAvailable(t)
	k, b := kir.NewKernel("bounds")
	k.NumPushConstants = 3
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.Write}}
	k.Shared = []kir.SharedAlloc{{Elem: kir.I32, Count: 8}}
	off, stride, soff := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1), b.Query(kir.PushConstant, 2)
	x := b.LoadStrided(0, kir.V(kir.I32, 4), off, stride)
	b.StoreShared(0, soff, b.EmitImm(kir.Extract, kir.S(kir.I32), 2, x))
	y := b.LoadShared(0, kir.V(kir.I32, 2), soff)
	b.Store(1, off, x)
	b.Store(1, b.Idx(0), y)
	for _, pc := range [][]int64{{0, 1, 0}, {4, 2, 6}, {6, 1, 0}, {-1, 1, 0}, {0, 3, 0}, {9, -3, 0}, {0, 1, 7}, {0, 1, -1},
		{0, 1 << 62, 0}, {11, -4, 2}, {13, 0, 0}} {
		in := [][]byte{convInputs(kir.I32, 12), make([]byte, 4*12)}
		want, got := runBoth(t, "sm_80", k, [3]int64{1, 1, 1}, pc, in)
		compare(t, k, want, got)
		if want.err != nil {
			kind, _, _ := llvmcpu.DecodeError(got.code)
			if kind != llvmcpu.ErrOutOfBounds && kind != llvmcpu.ErrShared {
				t.Errorf("%v: status %#x (%v)", pc, got.code, want.err)
			}
		}
	}
}

// TestRunPartialElement: a binding whose length is not a multiple of its
// element size ends in a partial element, which the interpreter reads
// with zeros past the end; the PTX kernels count whole elements (a known
// difference, see the package documentation) and report the access.
func TestRunPartialElement(t *testing.T) {
	simAvailable(t)
	k, b := kir.NewKernel("partial")
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.Write}}
	b.Store(1, b.Idx(0), b.Load(0, kir.S(kir.I32), b.Idx(1)))
	in := [][]byte{{1, 2, 3, 4, 5, 6}, make([]byte, 4)}
	want, got := runBoth(t, "sm_80", k, [3]int64{1, 1, 1}, nil, in)
	if want.err != nil {
		t.Fatalf("kir.Run: %v", want.err)
	}
	if kind, binding, check := llvmcpu.DecodeError(got.code); kind != llvmcpu.ErrOutOfBounds || binding != 0 || check != 1 {
		t.Fatalf("status %#x, want an out-of-bounds report on binding 0", got.code)
	}
	if got.bufs[1][0] != 0 {
		t.Fatalf("the skipped load stored %v", got.bufs[1])
	}
}

// TestRunElementwise runs targettest's Elementwise kernels (a vectorized
// loop with a scalar remainder over a dynamic extent) with FloatChain as
// the body, its fmod expanded by mathexp.Expand (one-thread workgroups).
func TestRunElementwise(t *testing.T) {
	simAvailable(t)
	for _, s := range floatTypes {
		for _, w := range []int{1, 4} {
			k := targettest.Elementwise("chain", s, s, w, 64, targettest.FloatChain)
			if err := mathexp.Expand(k); err != nil {
				t.Fatal(err)
			}
			emit(t, k)
			const n = 150
			in := [][]byte{targettest.EncFloats(s, floatInputs(n, 4)), targettest.EncFloats(s, floatInputs(n+3, 5)[3:]), make([]byte, n*s.ByteSize())}
			var grid [3]int64
			for i, g := range k.Grid {
				x := g.Static
				for range g.PushConstants {
					x *= n
				}
				grid[i] = max((x+g.Tile-1)/g.Tile, 1)
			}
			want, got := runBoth(t, "sm_80", k, grid, []int64{n}, in)
			compare(t, k, want, got)
		}
	}
}
