package llvmcpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// The shared test kernels, under the names the tests here use.
var (
	chain       = targettest.FloatChain
	elementwise = targettest.Elementwise
)

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
