package vio

import (
	"math"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// minifloat describes a floating-point format narrower than f32 with
// sign, exponent and mantissa fields, as IREE's iree/base/internal/math.h
// parameterises them.
type minifloat struct {
	exp, man int  // field widths in bits
	bias     int  // exponent bias
	inf      bool // IEEE-like: the all-ones exponent encodes inf and NaN
	fn       bool // finite: only all-ones exponent and mantissa is NaN
	fnuz     bool // NaN is the negative-zero pattern; no -0, no inf
	sat      bool // no inf and no NaN: overflow saturates, NaN gives ±0
}

var (
	fmtF16        = minifloat{exp: 5, man: 10, bias: 15, inf: true}
	fmtBF16       = minifloat{exp: 8, man: 7, bias: 127, inf: true}
	fmtF8E5M2     = minifloat{exp: 5, man: 2, bias: 15, inf: true}
	fmtF8E4M3FN   = minifloat{exp: 4, man: 3, bias: 7, fn: true}
	fmtF8E5M2FNUZ = minifloat{exp: 5, man: 2, bias: 16, fnuz: true}
	fmtF8E4M3FNUZ = minifloat{exp: 4, man: 3, bias: 8, fnuz: true}
	// f4E2M1FN (gree's element type 0x29000004) rounds as gree's kernels
	// and MLIR's arith.truncf do: saturating, NaN to a signed zero.
	fmtF4E2M1FN = minifloat{exp: 2, man: 1, bias: 1, sat: true}
)

// minifloatOf returns the format of a narrow float element type.
func minifloatOf(t hal.ElementType) (minifloat, bool) {
	switch t {
	case hal.ElementFloat16:
		return fmtF16, true
	case hal.ElementBFloat16:
		return fmtBF16, true
	case hal.ElementF8E5M2:
		return fmtF8E5M2, true
	case hal.ElementF8E4M3FN:
		return fmtF8E4M3FN, true
	case hal.ElementF8E5M2FNUZ:
		return fmtF8E5M2FNUZ, true
	case hal.ElementF8E4M3FNUZ:
		return fmtF8E4M3FNUZ, true
	case hal.ElementF4E2M1FN:
		return fmtF4E2M1FN, true
	}
	return minifloat{}, false
}

func (f minifloat) signBit() uint32 { return 1 << (f.exp + f.man) }
func (f minifloat) expAll() uint32  { return 1<<f.exp - 1 }
func (f minifloat) manMask() uint32 { return 1<<f.man - 1 }

// decode returns the exact value of the encoding bits.
func (f minifloat) decode(bits uint32) float64 {
	neg := bits&f.signBit() != 0
	e := bits >> f.man & f.expAll()
	m := bits & f.manMask()
	switch {
	case f.fnuz && bits == f.signBit():
		return math.NaN()
	case f.inf && e == f.expAll():
		if m != 0 {
			return math.Copysign(math.NaN(), boolSign(neg))
		}
		return math.Inf(int(boolSign(neg)))
	case f.fn && e == f.expAll() && m == f.manMask():
		return math.Copysign(math.NaN(), boolSign(neg))
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-f.man)
	} else {
		v = math.Ldexp(float64(m|1<<f.man), int(e)-f.bias-f.man)
	}
	return math.Copysign(v, boolSign(neg))
}

func boolSign(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// encode rounds x to the nearest encoding (ties to even). Overflow gives
// inf for IEEE-like formats, the largest finite value for E4M3FN (IREE
// saturates it) and NaN for the FNUZ formats.
func (f minifloat) encode(x float32) uint32 {
	v := float64(x)
	sign := uint32(0)
	if math.Signbit(v) {
		sign = f.signBit()
	}
	allExp := f.expAll() << f.man
	overflow := func() uint32 {
		switch {
		case f.inf:
			return sign | allExp
		case f.fn:
			return sign | (allExp | f.manMask()) - 1
		case f.sat:
			return sign | allExp | f.manMask()
		}
		return f.signBit()
	}
	switch {
	case math.IsNaN(v):
		if f.fnuz {
			return f.signBit()
		}
		if f.sat {
			return sign
		}
		return sign | allExp | f.manMask()
	case math.IsInf(v, 0):
		return overflow()
	}
	a := math.Abs(v)
	if a == 0 {
		if f.fnuz {
			return 0
		}
		return sign
	}
	_, e2 := math.Frexp(a)
	e := e2 - 1 // unbiased exponent of a
	if e < 1-f.bias {
		e = 1 - f.bias // subnormal range: fixed quantum
	}
	n := uint64(math.RoundToEven(math.Ldexp(a, f.man-e)))
	if n >= 1<<(f.man+1) {
		n >>= 1
		e++
	}
	var ef, mf uint32
	if n >= 1<<f.man {
		ef, mf = uint32(e+f.bias), uint32(n)&f.manMask()
	} else {
		mf = uint32(n)
	}
	maxExp := f.expAll()
	if f.inf {
		maxExp--
	}
	if ef > maxExp || (f.fn && ef == f.expAll() && mf == f.manMask()) {
		return overflow()
	}
	if f.fnuz && ef == 0 && mf == 0 {
		return 0
	}
	return sign | ef<<f.man | mf
}

// f8e8m0fnuDecode returns the value of an E8M0FNU scale: 2^(bits-127),
// NaN for 0xFF.
func f8e8m0fnuDecode(bits uint8) float64 {
	if bits == 0xff {
		return math.NaN()
	}
	return math.Ldexp(1, int(bits)-127)
}

// f8e8m0fnuEncode rounds x to an E8M0FNU scale as IREE does: non-finite
// values and values too large give NaN (0xFF), values <= 0 give 0, and
// otherwise the exponent is rounded by comparing the mantissa with 0.75.
func f8e8m0fnuEncode(x float32) uint8 {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0xff
	}
	if v <= 0 {
		return 0
	}
	frac, exp := math.Frexp(v)
	if frac < 0.75 {
		exp--
	}
	biased := exp + 127
	switch {
	case biased < 0:
		return 0
	case biased > 0xff:
		return 0xff
	}
	return uint8(biased)
}

// DecodeSmallFloat returns the value of the bits of one element of a
// 16-, 8- or 4-bit float type (f16, bf16, the f8 types, f4E2M1FN); ok is
// false for other types.
func DecodeSmallFloat(t hal.ElementType, bits uint32) (float64, bool) {
	if t == hal.ElementF8E8M0FNU {
		return f8e8m0fnuDecode(uint8(bits)), true
	}
	f, ok := minifloatOf(t)
	if !ok {
		return 0, false
	}
	return f.decode(bits), true
}
