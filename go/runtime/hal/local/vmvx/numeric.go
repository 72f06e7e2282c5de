package vmvx

import (
	"github.com/gree-ml/gree/go/internal/numeric"

	"math"

	"github.com/gree-ml/gree/go/internal/half"
)

// Scalar numeric helpers with the semantics of the kernel IR's reference
// interpreter (kir.Run); the differential tests hold the two to the same
// bytes.

// halfToF32 decodes an IEEE half float exactly.
func halfToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e != 0:
		return math.Float32frombits(sign | (e+112)<<23 | m<<13)
	case m == 0:
		return math.Float32frombits(sign)
	}
	f := float32(m) * (1.0 / (1 << 24))
	if sign != 0 {
		return -f
	}
	return f
}

// bf16ToF32 decodes a bfloat16 exactly.
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

func roundHalf(x float64, ebits, mbits uint) uint16 { return half.Round(x, ebits, mbits) }

func f64ToF16(x float64) uint16  { return roundHalf(x, 5, 10) }
func f64ToBF16(x float64) uint16 { return roundHalf(x, 8, 7) }

// f32ToBF16 rounds an f32 to bfloat16 (nearest even) with bit arithmetic.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// fma32 is numeric.FMA32, shared with the other kernel executor.
func fma32(a, b, c float32) float32 { return numeric.FMA32(a, b, c) }

// fpToInt truncates x toward zero into an n-bit integer, saturating, NaN
// giving 0; the result is sign-extended from n bits.
func fpToInt(x float64, n int, signed bool) int64 {
	if math.IsNaN(x) {
		return 0
	}
	x = math.Trunc(x)
	if signed {
		lim := math.Ldexp(1, n-1)
		if x >= lim {
			return sext(uint64(1)<<uint(n-1)-1, n)
		}
		if x < -lim {
			return sext(uint64(1)<<uint(n-1), n)
		}
		return int64(x)
	}
	if x <= 0 {
		return 0
	}
	if x >= math.Ldexp(1, n) {
		return -1 // all n bits set, sign-extended
	}
	return sext(uint64(x), n)
}

func sext(x uint64, n int) int64 {
	s := 64 - uint(n)
	return int64(x<<s) >> s
}

// minMax implements minimumf/maximumf (NaN-propagating, -0 < +0) and with
// num set minnumf/maxnumf (a NaN operand yields the other).
func minMax(a, b float64, isMax, num bool) float64 {
	an, bn := a != a, b != b
	if an || bn {
		if !num || an && bn {
			return math.NaN()
		}
		if an {
			return b
		}
		return a
	}
	if a == b {
		if isMax == math.Signbit(a) {
			return b
		}
		return a
	}
	if (a < b) != isMax {
		return a
	}
	return b
}
