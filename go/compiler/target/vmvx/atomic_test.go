package vmvx_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// TestAtomics runs atomics of many threads of concurrent workgroups on
// the same words, on whole buffers and on ones whose last word is
// partial (WholeElements pads them), and out of bounds.
func TestAtomics(t *testing.T) {
	const wgs = 6
	for _, n := range []int{16 * wgs, 16*wgs - 1, 16*wgs - 3} {
		buf := make([]byte, n)
		for i := 8 * wgs; i < n; i++ {
			buf[i] = 0xa5
		}
		diff(t, targettest.AtomicBits(), [3]int64{wgs, 1, 1}, nil, [][]byte{buf})
	}
	x := load(t, targettest.AtomicBits())
	err := x.RunWorkgroup(newState(), 0, [3]int64{wgs - 1, 0, 0}, [3]int64{wgs, 1, 1}, nil, [][]byte{make([]byte, 16*wgs-4)})
	if err == nil {
		t.Fatal("an atomic past the buffer's end ran")
	}
}

// TestPartialElements loads and stores vectors of i32 that reach into the
// partial last word of buffers of 1 to 11 bytes.
func TestPartialElements(t *testing.T) {
	k, b := kir.NewKernel("partial")
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.ReadWrite}}
	k.NumPushConstants = 1
	n := b.Query(kir.PushConstant, 0)
	b.For(b.Idx(0), n, b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		x := b.Load(0, kir.S(kir.I32), i)
		b.Store(1, i, b.Bin(kir.Add, x, b.Load(1, kir.S(kir.I32), i)))
		return nil
	})
	for bytes := 1; bytes <= 11; bytes++ {
		in := make([]byte, bytes)
		out := make([]byte, bytes)
		for i := range in {
			in[i], out[i] = byte(3*i+1), byte(100-i)
		}
		diff(t, k, [3]int64{1, 1, 1}, []int64{int64((bytes + 3) / 4)}, [][]byte{in, out})
	}
}
