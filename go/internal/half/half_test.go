package half

import (
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		x := F16ToFloat64(uint16(h))
		if math.IsNaN(x) {
			continue
		}
		if got := F16(x); got != uint16(h) {
			t.Fatalf("f16 %04x -> %v -> %04x", h, x, got)
		}
		y := BF16ToFloat64(uint16(h))
		if !math.IsNaN(y) && BF16(y) != uint16(h) {
			t.Fatalf("bf16 %04x round trip", h)
		}
	}
	cases := []struct {
		x    float64
		want uint16
	}{{1, 0x3c00}, {65504, 0x7bff}, {65520, 0x7c00}, {-2, 0xc000}, {5.960464477539063e-08, 0x0001}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}}
	for _, c := range cases {
		if got := F16(c.x); got != c.want {
			t.Errorf("F16(%v) = %04x, want %04x", c.x, got, c.want)
		}
	}
}

// TestNaNSign: decoding keeps a NaN's sign (copysign and signbit see it),
// and encoding it again gives a NaN of the same sign.
func TestNaNSign(t *testing.T) {
	for _, h := range []uint16{0x7e00, 0xfe00, 0x7c01, 0xfddd} {
		x := F16ToFloat64(h)
		if !math.IsNaN(x) || math.Signbit(x) != (h&0x8000 != 0) {
			t.Errorf("F16ToFloat64(%#04x) = %v (signbit %v)", h, x, math.Signbit(x))
		}
		if back := F16(x); back&0x8000 != h&0x8000 || back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
			t.Errorf("F16(F16ToFloat64(%#04x)) = %#04x", h, back)
		}
	}
}
