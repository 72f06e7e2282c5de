package ptxsim

import (
	"math"
	"math/big"
)

const (
	nan32 = 0x7fffffff
	nan64 = 0x7fffffffffffffff
)

// fma32 returns the correctly rounded (to nearest even) float32 a*b+c.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact
	s := p + float64(c)
	// Error of the f64 sum (TwoSum).
	bb := s - p
	err := (p - (s - bb)) + (float64(c) - bb)
	r := float32(s)
	if err == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return r
	}
	// s is inexact: float32(s) is only wrong when s lies exactly halfway
	// between two float32s; then the error's sign decides.
	dir := float32(math.Inf(1))
	if s < float64(r) {
		dir = float32(math.Inf(-1))
	}
	n := math.Nextafter32(r, dir)
	if float64(r)+float64(n) == 2*s {
		if (err > 0) == (float64(n) > float64(r)) {
			return n
		}
	}
	return r
}

// frn computes a float op rounded to nearest even in f32 (is32) or f64.
func frn(sub uint8, is32 bool, a, b, c float64) float64 {
	if is32 {
		x, y, z := float32(a), float32(b), float32(c)
		switch sub {
		case fAdd:
			return float64(x + y)
		case fSub:
			return float64(x - y)
		case fMul:
			return float64(x * y)
		case fFma:
			return float64(fma32(x, y, z))
		case fDiv:
			return float64(x / y)
		case fSqrt:
			return float64(float32(math.Sqrt(a)))
		case fRcp:
			return float64(1 / x)
		}
	}
	switch sub {
	case fAdd:
		return a + b
	case fSub:
		return a - b
	case fMul:
		return a * b
	case fFma:
		return math.FMA(a, b, c)
	case fDiv:
		return a / b
	case fSqrt:
		return math.Sqrt(a)
	case fRcp:
		return 1 / a
	}
	panic("ptxsim: bad float op")
}

func bf(x float64) *big.Float { return new(big.Float).SetPrec(2400).SetFloat64(x) }

// exactCmp returns the sign of (exact result - r) for finite operands and
// finite r.
func exactCmp(sub uint8, a, b, c, r float64) int {
	z := new(big.Float).SetPrec(2400)
	switch sub {
	case fAdd:
		return z.Add(bf(a), bf(b)).Cmp(bf(r))
	case fSub:
		return z.Sub(bf(a), bf(b)).Cmp(bf(r))
	case fMul:
		return z.Mul(bf(a), bf(b)).Cmp(bf(r))
	case fFma:
		return z.Add(z.Mul(bf(a), bf(b)), bf(c)).Cmp(bf(r))
	case fDiv, fRcp:
		if sub == fRcp {
			a, b = 1, a
		}
		// sign(a/b - r) = sign(a - r*b) * sign(b)
		s := bf(a).Cmp(z.Mul(bf(r), bf(b)))
		if b < 0 {
			s = -s
		}
		return s
	case fSqrt:
		return bf(a).Cmp(z.Mul(bf(r), bf(r)))
	}
	return 0
}

// farith computes a float op in f32 (is32) or f64 with rounding mode rnd
// (rndNone = round to nearest even). Operands are the f64 values of the
// inputs. Directed modes round the nearest result one step towards the
// mode's direction when the exact result lies on the other side.
func farith(sub uint8, is32 bool, rnd uint8, a, b, c float64) float64 {
	r := frn(sub, is32, a, b, c)
	if rnd == rndNone || rnd == rndRN || math.IsNaN(r) {
		return r
	}
	finite := !math.IsInf(a, 0) && !math.IsInf(b, 0) && !math.IsInf(c, 0)
	if !finite || (sub == fDiv && b == 0) || (sub == fRcp && a == 0) {
		return r // exact
	}
	var s int
	switch {
	case math.IsInf(r, 1):
		s = -1
	case math.IsInf(r, -1):
		s = 1
	default:
		s = exactCmp(sub, a, b, c, r)
	}
	if s == 0 {
		if r == 0 && rnd == rndRM && (sub == fAdd || sub == fSub || sub == fFma) {
			// An exact zero sum is -0 under .rm unless both terms are +0.
			x, y := a, b
			if sub == fSub {
				y = -b
			} else if sub == fFma {
				x, y = a*b, c
			}
			if !(x == 0 && y == 0 && !math.Signbit(x) && !math.Signbit(y)) {
				return math.Copysign(0, -1)
			}
		}
		return r
	}
	down := false // step r towards -inf (else towards +inf)
	switch rnd {
	case rndRZ:
		if s < 0 && r > 0 {
			down = true
		} else if !(s > 0 && r < 0) {
			return r
		}
	case rndRM:
		if s > 0 {
			return r
		}
		down = true
	case rndRP:
		if s < 0 {
			return r
		}
	}
	if is32 {
		if down {
			return float64(math.Nextafter32(float32(r), float32(math.Inf(-1))))
		}
		return float64(math.Nextafter32(float32(r), float32(math.Inf(1))))
	}
	if down {
		return math.Nextafter(r, math.Inf(-1))
	}
	return math.Nextafter(r, math.Inf(1))
}

// fopBits executes opFArith/opFUnary on register bits.
func fopBits(in *inst, va, vb, vc uint64) uint64 {
	is32 := in.t == tF32
	ftz := in.flags&flFtz != 0
	get := func(v uint64) float64 {
		if is32 {
			u := uint32(v)
			if ftz {
				u = flushF32(u)
			}
			return float64(math.Float32frombits(u))
		}
		if ftz && v&(0x7ff<<52) == 0 {
			v &= 1 << 63
		}
		return math.Float64frombits(v)
	}
	a, b, c := get(va), get(vb), get(vc)
	var r float64
	switch in.sub {
	case fNeg, fAbs:
		// Sign manipulation only (NaNs keep their payload).
		var bitsv uint64
		if is32 {
			bitsv = va & 0xffffffff
			if ftz {
				bitsv = uint64(flushF32(uint32(bitsv)))
			}
			if in.sub == fNeg {
				return bitsv ^ 0x80000000
			}
			return bitsv &^ 0x80000000
		}
		if in.sub == fNeg {
			return va ^ 1<<63
		}
		return va &^ (1 << 63)
	case fRsqrt:
		r = 1 / math.Sqrt(a)
	case fEx2:
		r = math.Exp2(a)
	case fLg2:
		r = math.Log2(a)
	case fSin:
		r = math.Sin(a)
	case fCos:
		r = math.Cos(a)
	case fTanh:
		r = math.Tanh(a)
	default:
		rnd := in.rnd
		if in.flags&flApprox != 0 {
			rnd = rndRN
		}
		r = farith(in.sub, is32, rnd, a, b, c)
	}
	if in.flags&flSat != 0 {
		r = satF(r)
	}
	if is32 {
		if math.IsNaN(r) {
			return nan32
		}
		u := math.Float32bits(float32(r))
		if ftz {
			u = flushF32(u)
		}
		return uint64(u)
	}
	if math.IsNaN(r) {
		return nan64
	}
	u := math.Float64bits(r)
	if ftz && u&(0x7ff<<52) == 0 {
		u &= 1 << 63
	}
	return u
}

// fminmax implements min/max: -0 < +0; a NaN operand is ignored unless
// both are NaN (or .NaN is given), which gives the canonical NaN.
func fminmax(in *inst, va, vb uint64) uint64 {
	is32 := in.t == tF32
	var a, b float64
	if is32 {
		x, y := uint32(va), uint32(vb)
		if in.flags&flFtz != 0 {
			x, y = flushF32(x), flushF32(y)
		}
		a, b = float64(math.Float32frombits(x)), float64(math.Float32frombits(y))
	} else {
		a, b = math.Float64frombits(va), math.Float64frombits(vb)
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	var r float64
	switch {
	case an && bn, (an || bn) && in.flags&flNaN != 0:
		if is32 {
			return nan32
		}
		return nan64
	case an:
		r = b
	case bn:
		r = a
	case in.sub == fMin:
		r = a
		if b < a || (b == a && math.Signbit(b)) {
			r = b
		}
	default:
		r = a
		if b > a || (b == a && !math.Signbit(b)) {
			r = b
		}
	}
	if is32 {
		return uint64(math.Float32bits(float32(r)))
	}
	return math.Float64bits(r)
}

// setpF compares two floats of type t with comparison c.
func setpF(c uint8, a, b float64) bool {
	un := math.IsNaN(a) || math.IsNaN(b)
	switch c {
	case cmpEQ:
		return a == b
	case cmpNE:
		return !un && a != b
	case cmpLT:
		return a < b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpGE:
		return a >= b
	case cmpEQU:
		return un || a == b
	case cmpNEU:
		return a != b
	case cmpLTU:
		return un || a < b
	case cmpLEU:
		return un || a <= b
	case cmpGTU:
		return un || a > b
	case cmpGEU:
		return un || a >= b
	case cmpNUM:
		return !un
	case cmpNAN:
		return un
	}
	return false
}

// testp implements testp.<kind> on a float of type t.
func testp(kind uint8, v uint64, t ptype) bool {
	x := toF64(v, t)
	nan, inf := math.IsNaN(x), math.IsInf(x, 0)
	var sub bool
	if t == tF32 {
		u := uint32(v)
		sub = u&0x7f800000 == 0 && u&0x7fffff != 0
	} else {
		sub = v&(0x7ff<<52) == 0 && v&(1<<52-1) != 0
	}
	switch kind {
	case tpNaN, tpNotANumber:
		return nan
	case tpInfinite:
		return inf
	case tpFinite:
		return !nan && !inf
	case tpNormal:
		return !nan && !inf && !sub && x != 0
	case tpSubnormal:
		return sub
	case tpNumber:
		return !nan
	}
	return false
}

// copysign implements copysign d, a, b: the value of b with the sign of a.
func copysignBits(t ptype, a, b uint64) uint64 {
	if t == tF32 {
		return uint64(uint32(b)&0x7fffffff | uint32(a)&0x80000000)
	}
	return b&^(1<<63) | a&(1<<63)
}
