package vmvx_test

import (
	"fmt"
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
	return b.Select(b.Cmp(kir.CmpF, kir.FPredOLT, x, y), r, neg)
}

// elementwise builds c[i] = chain(a[i], b[i]) for i < pc0, tile elements
// per workgroup, vectorized by width with a scalar remainder loop.
func elementwise(elem kir.Scalar, width, tile int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("ew_%s_%d", elem, width))
	k.Bindings = []kir.Binding{{Elem: elem, Access: kir.Read}, {Elem: elem, Access: kir.Read}, {Elem: elem, Access: kir.Write}}
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
	}{{base, vend, w, kir.V(elem, width)}, {vend, end, b.Idx(1), kir.S(elem)}} {
		b.For(loop.lo, loop.hi, loop.step, nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			x, y := b.Load(0, loop.t, i), b.Load(1, loop.t, i)
			b.Store(2, i, chain(b, loop.t, x, y))
			return nil
		})
	}
	return k
}

func TestElementwiseF32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{8, 64, 1024} {
		n := 3*1024 + 77
		a, bb := randF32(r, n, 4), randF32(r, n, 4)
		copy(a, specialF32)
		copy(bb[3:], specialF32)
		k := elementwise(kir.F32, width, 1024)
		tiles := int64((n + 1023) / 1024)
		diff(t, k, [3]int64{tiles + 1, 1, 1}, []int64{int64(n)}, [][]byte{f32s(a...), f32s(bb...), make([]byte, 4*n)})
	}
}

func TestElementwiseF64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 301
	a, bb := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], bb[i] = r.NormFloat64()*3, r.NormFloat64()*3
	}
	copy(a, specialF64)
	copy(bb[5:], specialF64)
	diff(t, elementwise(kir.F64, 16, 64), [3]int64{5, 1, 1}, []int64{int64(n)}, [][]byte{f64s(a...), f64s(bb...), make([]byte, 8*n)})
}

func TestElementwiseHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, e := range []kir.Scalar{kir.F16, kir.BF16} {
		n := 203
		a, bb := make([]uint16, n), make([]uint16, n)
		for i := range a {
			a[i], bb[i] = uint16(r.Uint32()), uint16(r.Uint32())
		}
		diff(t, elementwise(e, 32, 64), [3]int64{4, 1, 1}, []int64{int64(n)}, [][]byte{u16s(a...), u16s(bb...), make([]byte, 2*n)})
	}
}
