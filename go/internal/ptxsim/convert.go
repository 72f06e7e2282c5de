package ptxsim

import (
	"errors"
	"math"
	"math/bits"
)

// ffmt describes a binary floating-point format.
type ffmt struct{ mbits, ebits uint }

var (
	fmtF16  = ffmt{10, 5}
	fmtBF16 = ffmt{7, 8}
	fmtF32  = ffmt{23, 8}
	fmtF64  = ffmt{52, 11}
)

func fmtOf(t ptype) ffmt {
	switch t {
	case tF16:
		return fmtF16
	case tBF16:
		return fmtBF16
	case tF32:
		return fmtF32
	}
	return fmtF64
}

func (f ffmt) bias() int       { return 1<<(f.ebits-1) - 1 }
func (f ffmt) inf() uint64     { return (1<<f.ebits - 1) << f.mbits }
func (f ffmt) signBit() uint64 { return 1 << (f.mbits + f.ebits) }

// canonicalNaN returns the NaN the simulator produces for format f: all
// exponent and fraction bits set, sign clear (0x7fff, 0x7fffffff, ...).
func (f ffmt) canonicalNaN() uint64 { return f.signBit() - 1 }

// roundBits rounds the exact value (-1)^neg * mant * 2^exp to format f
// with rounding mode rnd (rndNone means round to nearest even), handling
// subnormals and overflow, and returns the encoding.
func roundBits(neg bool, mant uint64, exp int, f ffmt, rnd uint8) uint64 {
	sign := uint64(0)
	if neg {
		sign = f.signBit()
	}
	if mant == 0 {
		return sign
	}
	e := exp + bits.Len64(mant) - 1 // exponent of the leading bit
	emin := 1 - f.bias()
	q := e // exponent of the result's last kept bit
	if q < emin {
		q = emin
	}
	q -= int(f.mbits)
	shift := q - exp
	var kept uint64
	if shift <= 0 {
		kept = mant << uint(-shift)
	} else {
		var rem, half uint64
		switch {
		case shift > 64:
			kept, rem, half = 0, 1, 2 // nonzero, below half
		case shift == 64:
			kept, rem, half = 0, mant, 1<<63
		default:
			kept, rem, half = mant>>uint(shift), mant&(1<<uint(shift)-1), 1<<uint(shift-1)
		}
		inexact := rem != 0
		up := false
		switch rnd {
		case rndRZ:
		case rndRM:
			up = neg && inexact
		case rndRP:
			up = !neg && inexact
		default:
			up = rem > half || (rem == half && kept&1 == 1)
		}
		if up {
			kept++
		}
	}
	if kept>>(f.mbits+1) != 0 {
		kept >>= 1
		q++
	}
	if kept < 1<<f.mbits {
		return sign | kept // subnormal (or zero)
	}
	be := q + int(f.mbits) + f.bias()
	if be >= 1<<f.ebits-1 {
		maxf := f.inf() - 1
		switch {
		case rnd == rndRZ, rnd == rndRM && !neg, rnd == rndRP && neg:
			return sign | maxf
		}
		return sign | f.inf()
	}
	return sign | uint64(be)<<f.mbits | kept&^(1<<f.mbits)
}

// decompose splits a finite float64 into sign, integer mantissa and
// exponent.
func decompose(x float64) (neg bool, mant uint64, exp int) {
	b := math.Float64bits(x)
	neg = b>>63 != 0
	e := int(b>>52) & 0x7ff
	mant = b & (1<<52 - 1)
	if e == 0 {
		return neg, mant, -1074
	}
	return neg, mant | 1<<52, e - 1075
}

// cvtFloat converts x to float type t with rounding rnd; ftz flushes a
// subnormal result to a signed zero.
func cvtFloat(x float64, t ptype, rnd uint8, ftz bool) uint64 {
	f := fmtOf(t)
	var r uint64
	switch {
	case math.IsNaN(x):
		return f.canonicalNaN()
	case math.IsInf(x, 0):
		r = f.inf()
		if x < 0 {
			r |= f.signBit()
		}
		return r
	case t == tF64:
		r = math.Float64bits(x)
	case t == tF32 && (rnd == rndNone || rnd == rndRN):
		r = uint64(math.Float32bits(float32(x)))
	default:
		neg, mant, exp := decompose(x)
		r = roundBits(neg, mant, exp, f, rnd)
	}
	if ftz && r&(f.inf()) == 0 {
		r &= f.signBit()
	}
	return r
}

// toF64 decodes the float of type t held in the low bits of v.
func toF64(v uint64, t ptype) float64 {
	switch t {
	case tF64:
		return math.Float64frombits(v)
	case tF32:
		return float64(math.Float32frombits(uint32(v)))
	case tBF16:
		return float64(math.Float32frombits(uint32(v&0xffff) << 16))
	}
	h := v & 0xffff
	e := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	var r float64
	switch e {
	case 0:
		r = math.Ldexp(frac, -24)
	case 31:
		if frac != 0 {
			return math.NaN()
		}
		r = math.Inf(1)
	default:
		r = math.Ldexp(1024+frac, e-25)
	}
	if h&0x8000 != 0 {
		r = -r
	}
	return r
}

// isSubnormalF32 reports whether the f32 bits b are a nonzero subnormal.
func flushF32(b uint32) uint32 {
	if b&0x7f800000 == 0 {
		return b & 0x80000000
	}
	return b
}

func roundIntegral(x float64, rnd uint8) float64 {
	switch rnd {
	case rndRZI:
		return math.Trunc(x)
	case rndRMI:
		return math.Floor(x)
	case rndRPI:
		return math.Ceil(x)
	}
	return math.RoundToEven(x)
}

func satF(x float64) float64 {
	if !(x > 0) { // NaN, zeros, negatives
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// makeCvt builds the conversion function of cvt.rnd.ftz.sat.dt.st.
func makeCvt(dt, st ptype, rnd uint8, ftz, sat bool) (func(uint64) uint64, error) {
	intRnd := rnd >= rndRNI
	fltRnd := rnd >= rndRN && rnd <= rndRP
	if ftz && dt != tF32 && st != tF32 {
		return nil, errors.New(".ftz needs an .f32 operand")
	}
	switch {
	case dt.isInt() && st.isInt():
		if rnd != rndNone || ftz {
			return nil, errors.New("rounding modifier on an integer-to-integer conversion")
		}
		return cvtIntInt(dt, st, sat), nil
	case dt.isFloat() && st.isInt():
		if !fltRnd {
			return nil, errors.New("integer-to-float conversion needs .rn, .rz, .rm or .rp")
		}
		f := fmtOf(dt)
		return func(v uint64) uint64 {
			v = st.norm(v)
			neg := st.signed() && int64(v) < 0
			if neg {
				v = -v
			}
			r := roundBits(neg, v, 0, f, rnd)
			if sat {
				r = cvtFloat(satF(toF64(r, dt)), dt, rndRN, false)
			}
			return r
		}, nil
	case dt.isInt() && st.isFloat():
		if !intRnd {
			return nil, errors.New("float-to-integer conversion needs .rni, .rzi, .rmi or .rpi")
		}
		return func(v uint64) uint64 {
			if ftz {
				v = uint64(flushF32(uint32(v)))
			}
			return floatToInt(roundIntegral(toF64(v, st), rnd), dt)
		}, nil
	}
	// float to float
	if fltRnd && dt.bits() >= st.bits() && dt != st && !(dt == tF16 && st == tBF16) && !(dt == tBF16 && st == tF16) {
		return nil, errors.New("float rounding on a widening conversion")
	}
	if dt == st && fltRnd {
		return nil, errors.New("float rounding on a same-type conversion")
	}
	narrowing := dt.bits() < st.bits() || dt == tF16 && st == tBF16 || dt == tBF16 && st == tF16
	if narrowing && !fltRnd {
		return nil, errors.New("narrowing float conversion needs .rn, .rz, .rm or .rp")
	}
	return func(v uint64) uint64 {
		if ftz && st == tF32 {
			v = uint64(flushF32(uint32(v)))
		}
		x := toF64(v, st)
		if intRnd {
			x = roundIntegral(x, rnd)
		}
		if sat {
			x = satF(x)
		}
		return cvtFloat(x, dt, rnd, ftz && dt == tF32)
	}, nil
}

func cvtIntInt(dt, st ptype, sat bool) func(uint64) uint64 {
	w := dt.bits()
	var dmin int64
	var dmax uint64 = dt.mask()
	if dt.signed() {
		dmin = -1 << uint(w-1)
		dmax >>= 1
	}
	return func(v uint64) uint64 {
		v = st.norm(v)
		if sat {
			if st.signed() && int64(v) < 0 {
				if !dt.signed() {
					v = 0
				} else if int64(v) < dmin {
					v = uint64(dmin)
				}
			} else if v > dmax {
				v = dmax
			}
		}
		return dt.norm(v)
	}
}

// floatToInt converts an integral float to integer type dt, saturating
// to its range; NaN gives 0.
func floatToInt(x float64, dt ptype) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	w := dt.bits()
	if dt.signed() {
		lim := math.Ldexp(1, w-1)
		switch {
		case x >= lim:
			return dt.norm(uint64(1)<<uint(w-1) - 1)
		case x < -lim:
			return dt.norm(uint64(1) << uint(w-1))
		}
		return dt.norm(uint64(int64(x)))
	}
	lim := math.Ldexp(1, w)
	switch {
	case x <= 0:
		return 0
	case x >= lim:
		return dt.mask()
	}
	return uint64(x)
}
