package numeric

import (
	"math"
	"math/rand"
	"testing"
)

func TestFMA32MatchesMathFMA(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		a, b, c := float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
		if i%3 == 0 {
			c = -a * b // cancellation
		}
		want := float32(math.FMA(float64(a), float64(b), float64(c)))
		// math.FMA rounds once to float64; the float32 rounding of that can
		// differ from a single float32 rounding only at double-rounding
		// ties, which the nudge resolves; compare within one float32 ulp.
		got := FMA32(a, b, c)
		if got != want && math.Abs(float64(got-want)) > float64(math.Nextafter32(want, float32(math.Inf(1)))-want) {
			t.Fatalf("FMA32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}
