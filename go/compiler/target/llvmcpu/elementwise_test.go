package llvmcpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// chain applies a mix of float ops to x and y of type t.
func chain(b *kir.Builder, t kir.Type, x, y kir.Value) kir.Value {
	one := b.Float(t, 1)
	s := b.Bin(kir.Add, x, y)
	m := b.Bin(kir.Mul, s, x)
	d := b.Bin(kir.Sub, m, y)
	q := b.Bin(kir.DivF, d, b.Bin(kir.Add, b.Emit(kir.AbsF, t, y), one))
	f := b.Emit(kir.FMA, t, q, x, s)
	mx := b.Bin(kir.MaxF, f, b.Bin(kir.MinF, x, y))
	r := b.Emit(kir.Sqrt, t, b.Emit(kir.AbsF, t, mx))
	neg := b.Emit(kir.NegF, t, b.Bin(kir.RemF, mx, b.Float(t, 0.75)))
	mn := b.Bin(kir.MinNumF, neg, b.Bin(kir.MaxNumF, x, y))
	return b.Select(b.Cmp(kir.CmpF, kir.FPredOLT, x, y), r, b.Bin(kir.CopySign, mn, y))
}

// elementwise builds c[i] = body(a[i], b[i]) for i < pc0, tile elements
// per workgroup, vectorized by width with a scalar remainder loop.
func elementwise(name string, in, out kir.Scalar, width, tile int, body func(b *kir.Builder, t kir.Type, x, y kir.Value) kir.Value) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("%s_%s_%d", name, in, width))
	k.Bindings = []kir.Binding{{Elem: in, Access: kir.Read}, {Elem: in, Access: kir.Read}, {Elem: out, Access: kir.Write}}
	k.NumPushConstants = 1
	n := b.Query(kir.PushConstant, 0)
	tileV := b.Idx(int64(tile))
	base := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), tileV)
	end := b.Bin(kir.MinS, b.Bin(kir.Add, base, tileV), n)
	w := b.Idx(int64(width))
	vend := b.Bin(kir.Add, base, b.Bin(kir.Mul, b.Bin(kir.DivS, b.Bin(kir.Sub, end, base), w), w))
	for _, loop := range []struct {
		lo, hi, step kir.Value
		t            kir.Type
	}{{base, vend, w, kir.V(in, width)}, {vend, end, b.Idx(1), kir.S(in)}} {
		b.For(loop.lo, loop.hi, loop.step, nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			x, y := b.Load(0, loop.t, i), b.Load(1, loop.t, i)
			b.Store(2, i, body(b, loop.t, x, y))
			return nil
		})
	}
	return k
}

var specials = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 3.5, math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, -1e-40, 65504, 70000, 1e30, -1e30, 2.5, -0.75}

func randFloats(r *rand.Rand, n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (r.Float64()*2 - 1) * scale
	}
	return xs
}

func TestElementwiseFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, e := range []kir.Scalar{kir.F32, kir.F64, kir.F16, kir.BF16} {
		for _, width := range []int{1, 8, 16} {
			n := 3*256 + 77
			a, bb := randFloats(r, n, 4), randFloats(r, n, 4)
			copy(a, specials)
			copy(bb[3:], specials)
			copy(a[40:], specials)
			copy(bb[40:], specials)
			k := elementwise("ew", e, e, width, 256, chain)
			tiles := int64((n + 255) / 256)
			diff(t, k, [3]int64{tiles + 1, 1, 1}, []int64{int64(n)}, [][]byte{enc(e, a), enc(e, bb), make([]byte, e.ByteSize()*n)}, 0)
		}
	}
}
