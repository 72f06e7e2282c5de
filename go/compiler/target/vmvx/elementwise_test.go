package vmvx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// elementwise builds the shared elementwise kernel over elem with
// targettest.FloatChain as its body.
func elementwise(elem kir.Scalar, width, tile int) *kir.Kernel {
	return targettest.Elementwise("ew", elem, elem, width, tile, targettest.FloatChain)
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
