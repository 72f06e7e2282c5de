package kir

import (
	"github.com/gree-ml/gree/go/internal/numeric"

	"github.com/gree-ml/gree/go/internal/half"

	"math"
	"math/bits"
)

// Lane encoding inside the interpreter: every lane is a uint64. Integers
// hold their value sign-extended from the element width to 64 bits (i1
// true is all ones); floats hold the raw bits of their format (f16 and
// bf16 in the low 16 bits, f32 in the low 32).

// sext sign-extends the low n bits of x.
func sext(x uint64, n int) uint64 {
	s := 64 - uint(n)
	return uint64(int64(x<<s) >> s)
}

// zext returns the low n bits of x.
func zext(x uint64, n int) uint64 {
	if n >= 64 {
		return x
	}
	return x & (1<<uint(n) - 1)
}

func halfToF64(h uint16, ebits, mbits uint) float64 { return half.ToFloat64(h, ebits, mbits) }
func roundHalf(x float64, ebits, mbits uint) uint16 { return half.Round(x, ebits, mbits) }

func f16ToF64(h uint16) float64  { return halfToF64(h, 5, 10) }
func bf16ToF64(h uint16) float64 { return halfToF64(h, 8, 7) }
func f64ToF16(x float64) uint16  { return roundHalf(x, 5, 10) }
func f64ToBF16(x float64) uint16 { return roundHalf(x, 8, 7) }

// toF decodes a float lane of type s.
func toF(s Scalar, b uint64) float64 {
	switch s {
	case F16:
		return f16ToF64(uint16(b))
	case BF16:
		return bf16ToF64(uint16(b))
	case F32:
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

// fromF rounds x to type s, to nearest even, in one step.
func fromF(s Scalar, x float64) uint64 {
	switch s {
	case F16:
		return uint64(f64ToF16(x))
	case BF16:
		return uint64(f64ToBF16(x))
	case F32:
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(x)
}

// arith rounds the exact or float64 result x of an arithmetic op to type s.
// f16 and bf16 arithmetic is defined as f32 arithmetic rounded to the
// narrow type, so x is first rounded to f32.
func arith(s Scalar, x float64) uint64 {
	if s == F16 || s == BF16 {
		return fromF(s, float64(float32(x)))
	}
	return fromF(s, x)
}

// fma32 is numeric.FMA32, shared with the other kernel executor.
func fma32(a, b, c float32) float32 { return numeric.FMA32(a, b, c) }

// fpToInt converts x to an n-bit integer, truncating toward zero and
// saturating at the type's range; NaN gives 0. The result is sign-extended
// from n bits.
func fpToInt(x float64, n int, signed bool) uint64 {
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
		return sext(uint64(int64(x)), n)
	}
	if x <= 0 {
		return 0
	}
	if x >= math.Ldexp(1, n) {
		return sext(^uint64(0), n)
	}
	return sext(uint64(x), n)
}

// intToFP converts the integer u (signed or not) to type s, correctly
// rounded; f16 and bf16 go through f32, as their arithmetic does.
func intToFP(s Scalar, u uint64, signed bool) uint64 {
	switch s {
	case F64:
		if signed {
			return math.Float64bits(float64(int64(u)))
		}
		return math.Float64bits(float64(u))
	}
	var f float32
	if signed {
		f = float32(int64(u))
	} else {
		f = float32(u)
	}
	return fromF(s, float64(f))
}

// minMaxF implements minimumf/maximumf (NaN-propagating, -0 < +0) and,
// with num set, minnumf/maxnumf (a NaN operand yields the other).
func minMaxF(a, b float64, isMax, num bool) float64 {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		if !num || an && bn {
			return math.NaN()
		}
		if an {
			return b
		}
		return a
	}
	if a == b { // -0 and +0
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

// ctlz counts the leading zeros of the low n bits of u.
func ctlz(u uint64, n int) uint64 {
	return uint64(bits.LeadingZeros64(zext(u, n)) - (64 - n))
}

// cttz counts the trailing zeros of the low n bits of u (n for zero).
func cttz(u uint64, n int) uint64 {
	z := zext(u, n)
	if z == 0 {
		return uint64(n)
	}
	return uint64(bits.TrailingZeros64(z))
}
