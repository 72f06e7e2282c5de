package ir

import "math"

// FloatKind names one floating-point format of a FloatType.
type FloatKind uint8

// The floating-point formats gree knows, named as MLIR names their types.
const (
	KindF16 FloatKind = iota
	KindBF16
	KindF32
	KindF64
	KindTF32
	KindF80
	KindF128
	KindF8E5M2
	KindF8E4M3
	KindF8E4M3FN
	KindF8E5M2FNUZ
	KindF8E4M3FNUZ
	KindF8E4M3B11FNUZ
	KindF8E3M4
	KindF8E8M0FNU
	KindF6E2M3FN
	KindF6E3M2FN
	KindF4E2M1FN
)

// nanKind says how a format encodes NaN and infinity.
type nanKind uint8

const (
	nanIEEE    nanKind = iota // exponent all ones: infinity (mantissa 0) or NaN
	nanAllOnes                // "FN": no infinity, NaN is exponent and mantissa all ones
	nanNegZero                // "FNUZ": no infinity, no -0, NaN is the sign bit alone
	nanNone                   // no infinity and no NaN
)

type floatFormat struct {
	name                   string
	width, exp, mant, bias int
	nan                    nanKind
	unsigned               bool // no sign bit (f8E8M0FNU)
	wide                   bool // wider than float64: values are float64 approximations
}

var floatFormats = [...]floatFormat{
	KindF16:           {"f16", 16, 5, 10, 15, nanIEEE, false, false},
	KindBF16:          {"bf16", 16, 8, 7, 127, nanIEEE, false, false},
	KindF32:           {"f32", 32, 8, 23, 127, nanIEEE, false, false},
	KindF64:           {"f64", 64, 11, 52, 1023, nanIEEE, false, false},
	KindTF32:          {"tf32", 19, 8, 10, 127, nanIEEE, false, false},
	KindF80:           {"f80", 80, 15, 64, 16383, nanIEEE, false, true},
	KindF128:          {"f128", 128, 15, 112, 16383, nanIEEE, false, true},
	KindF8E5M2:        {"f8E5M2", 8, 5, 2, 15, nanIEEE, false, false},
	KindF8E4M3:        {"f8E4M3", 8, 4, 3, 7, nanIEEE, false, false},
	KindF8E4M3FN:      {"f8E4M3FN", 8, 4, 3, 7, nanAllOnes, false, false},
	KindF8E5M2FNUZ:    {"f8E5M2FNUZ", 8, 5, 2, 16, nanNegZero, false, false},
	KindF8E4M3FNUZ:    {"f8E4M3FNUZ", 8, 4, 3, 8, nanNegZero, false, false},
	KindF8E4M3B11FNUZ: {"f8E4M3B11FNUZ", 8, 4, 3, 11, nanNegZero, false, false},
	KindF8E3M4:        {"f8E3M4", 8, 3, 4, 3, nanIEEE, false, false},
	KindF8E8M0FNU:     {"f8E8M0FNU", 8, 8, 0, 127, nanAllOnes, true, false},
	KindF6E2M3FN:      {"f6E2M3FN", 6, 2, 3, 1, nanNone, false, false},
	KindF6E3M2FN:      {"f6E3M2FN", 6, 3, 2, 3, nanNone, false, false},
	KindF4E2M1FN:      {"f4E2M1FN", 4, 2, 1, 1, nanNone, false, false},
}

// FloatKindByName returns the format whose MLIR type name is name ("f32",
// "bf16", "f8E4M3FN", …).
func FloatKindByName(name string) (FloatKind, bool) {
	for k := range floatFormats {
		if floatFormats[k].name == name {
			return FloatKind(k), true
		}
	}
	return 0, false
}

// String returns the MLIR type name of the format.
func (k FloatKind) String() string {
	if int(k) < len(floatFormats) {
		return floatFormats[k].name
	}
	return "f?"
}

// Width returns the number of bits of the format.
func (k FloatKind) Width() int { return floatFormats[k].width }

// HasInf reports whether the format can represent infinities.
func (k FloatKind) HasInf() bool { return floatFormats[k].nan == nanIEEE }

// HasNaN reports whether the format can represent NaN.
func (k FloatKind) HasNaN() bool { return floatFormats[k].nan != nanNone }

func (f *floatFormat) maxFinite() float64 {
	var emax int
	frac := 2 - math.Ldexp(1, -f.mant)
	switch f.nan {
	case nanIEEE:
		emax = (1 << f.exp) - 2 - f.bias
	case nanAllOnes:
		emax = (1 << f.exp) - 1 - f.bias
		if f.mant > 0 {
			frac = 2 - math.Ldexp(1, 1-f.mant)
		} else {
			emax-- // all-ones exponent is NaN
			frac = 1
		}
	default:
		emax = (1 << f.exp) - 1 - f.bias
	}
	return frac * math.Ldexp(1, emax)
}

// RoundFloat rounds v to the nearest value representable in format k
// (ties to even). Values too large become infinity where the format has one,
// NaN where it has only NaN, and the largest finite value otherwise.
func RoundFloat(k FloatKind, v float64) float64 {
	switch k {
	case KindF64, KindF80, KindF128:
		return v
	case KindF32:
		return float64(float32(v))
	}
	f := &floatFormats[k]
	if math.IsNaN(v) {
		return v
	}
	if f.unsigned {
		return roundE8M0(v)
	}
	a := math.Abs(v)
	if a == 0 {
		if f.nan == nanNegZero {
			return 0
		}
		return v
	}
	r := a
	if !math.IsInf(a, 0) {
		_, e := math.Frexp(a)
		exp := e - 1
		if minE := 1 - f.bias; exp < minE {
			exp = minE
		}
		q := math.Ldexp(1, exp-f.mant)
		r = math.RoundToEven(a/q) * q
	}
	if r > f.maxFinite() {
		switch {
		case f.nan == nanIEEE:
			r = math.Inf(1)
		case f.nan == nanNone:
			r = f.maxFinite()
		default:
			return math.NaN()
		}
	}
	if r == 0 && f.nan == nanNegZero {
		return 0
	}
	return math.Copysign(r, v)
}

func roundE8M0(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 1) {
		return math.NaN()
	}
	frac, e := math.Frexp(v) // v = frac * 2^e, frac in [0.5, 1)
	p := e - 1
	if frac > 0.75 {
		p++
	}
	if p < -127 {
		p = -127
	}
	if p > 127 {
		return math.NaN()
	}
	return math.Ldexp(1, p)
}

// FloatToBits encodes v, rounded to format k, as the format's bit pattern.
// It fails for f80 and f128 and for NaN or infinity in a format that cannot
// represent them.
func FloatToBits(k FloatKind, v float64) (uint64, bool) {
	switch k {
	case KindF64:
		return math.Float64bits(v), true
	case KindF32:
		return uint64(math.Float32bits(float32(v))), true
	}
	f := &floatFormats[k]
	if f.wide {
		return 0, false
	}
	v = RoundFloat(k, v)
	expAll := uint64(1)<<f.exp - 1
	mantAll := uint64(1)<<f.mant - 1
	var sign uint64
	if math.Signbit(v) && !f.unsigned {
		sign = 1 << (f.width - 1)
	}
	switch {
	case math.IsNaN(v):
		switch f.nan {
		case nanIEEE:
			return expAll<<f.mant | 1<<(f.mant-1), true
		case nanAllOnes:
			return expAll<<f.mant | mantAll, true
		case nanNegZero:
			return 1 << (f.width - 1), true
		}
		return 0, false
	case math.IsInf(v, 0):
		return sign | expAll<<f.mant, true // RoundFloat only keeps infinities in IEEE formats
	}
	if f.unsigned {
		_, e := math.Frexp(v)
		return uint64(e - 1 + f.bias), true
	}
	a := math.Abs(v)
	if a == 0 {
		return sign, true
	}
	_, e := math.Frexp(a)
	exp := e - 1
	if minE := 1 - f.bias; exp < minE {
		return sign | uint64(a/math.Ldexp(1, minE-f.mant)), true
	}
	m := uint64((a/math.Ldexp(1, exp) - 1) * math.Ldexp(1, f.mant))
	return sign | uint64(exp+f.bias)<<f.mant | m, true
}

// FloatFromBits decodes a bit pattern of format k. It fails for f80 and f128.
func FloatFromBits(k FloatKind, bits uint64) (float64, bool) {
	switch k {
	case KindF64:
		return math.Float64frombits(bits), true
	case KindF32:
		return float64(math.Float32frombits(uint32(bits))), true
	}
	f := &floatFormats[k]
	if f.wide {
		return 0, false
	}
	bits &= uint64(1)<<f.width - 1
	expAll := uint64(1)<<f.exp - 1
	mantAll := uint64(1)<<f.mant - 1
	e := bits >> f.mant & expAll
	m := bits & mantAll
	neg := !f.unsigned && bits>>(f.width-1)&1 == 1
	switch f.nan {
	case nanIEEE:
		if e == expAll {
			if m != 0 {
				return math.NaN(), true
			}
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		}
	case nanAllOnes:
		if e == expAll && m == mantAll {
			return math.NaN(), true
		}
	case nanNegZero:
		if bits == 1<<(f.width-1) {
			return math.NaN(), true
		}
	}
	var v float64
	switch {
	case f.unsigned:
		v = math.Ldexp(1, int(e)-f.bias)
	case e == 0:
		v = math.Ldexp(float64(m), 1-f.bias-f.mant)
	default:
		v = math.Ldexp(1+float64(m)/math.Ldexp(1, f.mant), int(e)-f.bias)
	}
	if neg {
		v = -v
	}
	return v, true
}

// SmallFloat describes an 8-bit-or-narrower float format for code
// generators: exponent and mantissa bits, bias, and how NaN/infinity are
// encoded ("ieee", "fn", "fnuz", or "none" for formats with neither;
// "e8m0" for the unsigned exponent-only f8E8M0FNU). ok is false for other
// kinds.
func SmallFloat(k FloatKind) (exp, mant, bias int, nan string, ok bool) {
	if int(k) >= len(floatFormats) {
		return 0, 0, 0, "", false
	}
	f := floatFormats[k]
	if f.width > 8 || f.name == "" {
		return 0, 0, 0, "", false
	}
	if f.unsigned {
		return f.exp, f.mant, f.bias, "e8m0", true
	}
	return f.exp, f.mant, f.bias, [...]string{"ieee", "fn", "fnuz", "none"}[f.nan], true
}
