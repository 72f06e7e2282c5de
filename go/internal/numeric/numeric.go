// Package numeric holds floating-point operations whose exact rounding the
// kernel executors must share: the compiler's reference interpreter and the
// vmvx interpreter call the same code so that their results agree bit for
// bit.
package numeric

import "math"

// FMA32 is a correctly rounded float32 fused multiply-add: the product is
// exact in float64, and the float64 sum is nudged by its rounding error so
// that the final rounding to float32 sees which side of a tie it lies on.
func FMA32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e > 0 {
		s = math.Nextafter(s, math.Inf(1))
	} else if e < 0 {
		s = math.Nextafter(s, math.Inf(-1))
	}
	return float32(s)
}
