// Package half converts between float64 and the 16-bit float formats
// (IEEE binary16 "f16" and bfloat16), rounding to nearest even in one
// step. The compiler's reference interpreter, the vmvx interpreter and the
// VM share it so that every executor rounds identically.
package half

import "math"

// ToFloat64 decodes a 16-bit float with ebits exponent bits.
func ToFloat64(h uint16, ebits, mbits uint) float64 {
	if ebits == 8 { // bf16 is the top half of an f32
		return float64(math.Float32frombits(uint32(h) << 16))
	}
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>mbits) & (1<<ebits - 1)
	m := float64(h & (1<<mbits - 1))
	bias := 1<<(ebits-1) - 1
	switch {
	case e == 1<<ebits-1:
		if m != 0 {
			return math.Copysign(math.NaN(), sign)
		}
		return math.Inf(int(sign))
	case e == 0:
		return sign * math.Ldexp(m, 1-bias-int(mbits))
	}
	return sign * math.Ldexp(m+float64(uint64(1)<<mbits), e-bias-int(mbits))
}

// Round rounds x to the nearest 16-bit float with ebits exponent and
// mbits mantissa bits, ties to even, directly from float64 (no double
// rounding). NaN becomes a quiet NaN of the same sign.
func Round(x float64, ebits, mbits uint) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	infBits := uint16(1<<ebits-1) << mbits
	if exp == 0x7ff {
		if frac != 0 {
			return sign | infBits | 1<<(mbits-1)
		}
		return sign | infBits
	}
	if exp == 0 { // f64 subnormals are far below the 16-bit range
		return sign
	}
	bias := 1<<(ebits-1) - 1
	e := exp - 1023
	m := frac | 1<<52
	shift := 52 - int(mbits)
	normal := e >= 1-bias
	if !normal {
		shift += 1 - bias - e
	}
	if shift >= 64 {
		return sign
	}
	q := m >> uint(shift)
	rem := m & (1<<uint(shift) - 1)
	half := uint64(1) << uint(shift-1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	var r uint64
	if normal {
		if e+bias >= 1<<ebits-1 {
			return sign | infBits
		}
		r = uint64(e+bias-1)<<mbits + q
	} else {
		r = q
	}
	if r >= uint64(infBits) {
		return sign | infBits
	}
	return sign | uint16(r)
}

// F16ToFloat64 decodes an IEEE half.
func F16ToFloat64(h uint16) float64 { return ToFloat64(h, 5, 10) }

// BF16ToFloat64 decodes a bfloat16.
func BF16ToFloat64(h uint16) float64 { return ToFloat64(h, 8, 7) }

// F16 rounds x to an IEEE half.
func F16(x float64) uint16 { return Round(x, 5, 10) }

// BF16 rounds x to a bfloat16.
func BF16(x float64) uint16 { return Round(x, 8, 7) }
