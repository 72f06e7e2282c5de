package mathexp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// TestExpandErfFast checks ExpandWhereFast's erf against Go's math.Erf
// (rounded to the type) within ErfFastULP on f32 (1 ULP on f16 and
// bf16, the f32 result rounded), on the usual inputs, on a dense grid of
// [−4, 4] where the approximation works, and in vectors of 8 lanes; and
// that the other functions keep their accurate expansion.
func TestExpandErfFast(t *testing.T) {
	for _, s := range []kir.Scalar{kir.F32, kir.F16, kir.BF16} {
		for _, lanes := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s_x%d", s, lanes), func(t *testing.T) {
				r := rand.New(rand.NewPCG(11, uint64(s)))
				xs := inputs(kir.Erf, s, mathSamples(700), r)
				for i := -20000; i <= 20000; i++ {
					xs = append(xs, float64(i)/5000)
				}
				for len(xs)%lanes != 0 {
					xs = append(xs, 0)
				}
				fast := func(k *kir.Kernel) error { return ExpandWhereFast(k, nil) }
				want, got, k := runMathWith(t, kir.Erf, s, lanes, xs, make([]float64, len(xs)), fast)
				kinds := map[kir.Kind]int{}
				kindsIn(k.Body, kinds)
				if kinds[kir.Erf] > 0 || kinds[kir.Exp] > 0 {
					t.Fatalf("fast erf kernel has %v", kinds)
				}
				tol := 1.0
				if s == kir.F32 {
					tol = ErfFastULP
				}
				worst, bad := 0.0, 0
				for i := range want {
					d := ulpDiff(s, got[i], want[i])
					if d > tol {
						if bad++; bad <= 5 {
							t.Errorf("erf(%v) = %v, want %v (%.2f ulp)", xs[i], got[i], want[i], d)
						}
					}
					worst = max(worst, d)
				}
				t.Logf("worst %.2f ulp over %d inputs", worst, len(xs))
			})
		}
	}
	// Erfc (and the others) are not affected.
	k := mathKernel(kir.Erfc, kir.F32, 1, 4)
	if err := ExpandWhereFast(k, nil); err != nil {
		t.Fatal(err)
	}
	kinds := map[kir.Kind]int{}
	kindsIn(k.Body, kinds)
	if kinds[kir.Erfc] > 0 {
		t.Fatal("erfc not expanded")
	}
}
