package llvmcpu_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
)

// stridedKernel loads w lanes of b0 at pc0 with the constant stride s
// (built as s·1, a product the emitter must fold) into b1 contiguously,
// and stores b1's w lanes at pc1 into b2 with the same stride.
func stridedKernel(e kir.Scalar, s int64, w int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("strided_%v_%d_%d", e, s, w))
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}, {Elem: e, Access: kir.ReadWrite}}
	k.NumPushConstants = 2
	vt := kir.V(e, w)
	stride := b.Bin(kir.Mul, b.Idx(s), b.Idx(1))
	x := b.LoadStrided(0, vt, b.Query(kir.PushConstant, 0), stride)
	b.Store(1, b.Idx(0), x)
	b.StoreStrided(2, b.Query(kir.PushConstant, 1), stride, b.Bin(kir.Add, x, x))
	return k
}

// TestStridedSpans runs strided loads and stores with every small
// constant stride (loads of the span in vector-wide pieces and a lane
// shuffle, or a masked
// store of the span) and one past the span limit (a gather), with the
// last lane on the buffer's last element, against the kernel-IR
// interpreter: the elements between the stored lanes keep their values.
func TestStridedSpans(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, e := range []kir.Scalar{kir.F32, kir.I8, kir.F16, kir.I64} {
		for s := int64(2); s <= 9; s++ {
			for _, w := range []int{4, 8, 32} {
				n := int64(w-1)*s + 1 + int64(r.IntN(5))
				end := n - 1 - int64(w-1)*s // the last lane reads b0[n-1]
				in := [][]byte{enc(e, randFloats(r, int(n), 100)), make([]byte, e.ByteSize()*w), enc(e, randFloats(r, int(n), 100))}
				k := stridedKernel(e, s, w)
				diff(t, k, [3]int64{1, 1, 1}, []int64{end, end}, in, 0)
				if e == kir.F32 && s <= 8 {
					src, _, err := llvmcpu.Translate([]*kir.Kernel{k}, m)
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(src, "masked.gather") || strings.Contains(src, "masked.scatter") {
						t.Errorf("stride %d, %d lanes: gather or scatter emitted for a constant small stride", s, w)
					}
					// The span is read in pieces of the vector's width, not
					// as one load of its odd length (split by LLVM into
					// partial loads and inserts).
					if span := fmt.Sprintf("load <%d x float>", int64(w-1)*s+1); strings.Contains(src, span) {
						t.Errorf("stride %d, %d lanes: %s emitted", s, w, span)
					}
				}
			}
		}
	}
}

// TestStridedSpanBounds checks that a span one element past the buffer
// is refused by the run-time check, as a gather is.
func TestStridedSpanBounds(t *testing.T) {
	m := needLLVM(t)
	k := stridedKernel(kir.F32, 2, 8)
	x := build(t, m, k)
	n := int64(15)
	for _, tc := range []struct {
		pc0  int64
		fail bool
	}{{0, false}, {1, true}} {
		bufs := [][]byte{make([]byte, 4*n), make([]byte, 32), make([]byte, 4*n)}
		err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, []int64{tc.pc0, 0}, bufs)
		if (err != nil) != tc.fail || (err != nil && !strings.Contains(err.Error(), "OUT_OF_RANGE")) {
			t.Errorf("offset %d: err %v, want failure %v", tc.pc0, err, tc.fail)
		}
	}
}
