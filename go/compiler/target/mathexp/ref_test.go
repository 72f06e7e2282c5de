package mathexp

// A high-precision reference for the f64 tests. Go's math package, which
// defines kir.Run's results, is itself a few ULPs off in places, and on
// amd64 its assembly Exp overflows early (Exp(709.7) = +Inf; the true
// threshold is 709.78) and its Log mishandles subnormals; Log2 near 1,
// Acos near 1, Sin near multiples of π and Pow with large exponents lose
// several ULPs. Where these functions' arguments are finite and in their
// domain, the f64 tests compare against this big.Float reference,
// correctly rounded, instead.

import (
	"math"
	"math/big"

	"github.com/gree-ml/gree/go/compiler/kir"
)

const refPrec = 240

var (
	refLn2 = bigConst("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")
	refPi  = bigConst("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798")
)

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }
func bz() *big.Float          { return new(big.Float).SetPrec(refPrec) }

// bigExp returns e^z (nil beyond float64's range: ±Inf or 0 decided by
// the caller).
func bigExp(z *big.Float) *big.Float {
	zf, _ := z.Float64()
	if zf > 800 || zf < -800 {
		return nil
	}
	n := math.Round(zf / math.Ln2)
	r := bz().Sub(z, bz().Mul(bf(n), refLn2))
	r.SetMantExp(r, -12)
	// Taylor series of e^r, |r| < 2^-12
	sum, term := bf(1), bf(1)
	for k := 1; k < 40; k++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(k)))
		sum.Add(sum, term)
	}
	for i := 0; i < 12; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(n))
}

// bigLog returns log x for x > 0.
func bigLog(x *big.Float) *big.Float {
	m := bz()
	e := x.MantExp(m) // x = m·2^e, m in [0.5, 1)
	mf, _ := m.Float64()
	y := bf(math.Log(mf))
	for i := 0; i < 4; i++ {
		ey := bigExp(y)
		num := bz().Sub(m, ey)
		den := bz().Add(m, ey)
		y.Add(y, bz().Quo(bz().Mul(bf(2), num), den))
	}
	return y.Add(y, bz().Mul(bf(float64(e)), refLn2))
}

// bigSinCos returns sin and cos of x (|x| ≤ ~1e15).
func bigSinCos(x *big.Float) (s, c *big.Float) {
	half := bz().Quo(refPi, bf(2))
	q, _ := bz().Quo(x, half).Float64()
	k := math.Round(q)
	r := bz().Sub(x, bz().Mul(bf(k), half))
	s, c = bz(), bf(1)
	term := bf(1)
	for n := 1; n < 80; n++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(n)))
		switch n % 4 {
		case 1:
			s.Add(s, term)
		case 2:
			c.Sub(c, term)
		case 3:
			s.Sub(s, term)
		case 0:
			c.Add(c, term)
		}
	}
	switch int(math.Mod(math.Mod(k, 4)+4, 4)) {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s, c = s.Neg(s), c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	return s, c
}

// bigAtan returns atan x.
func bigAtan(x *big.Float) *big.Float {
	t := bz().Set(x)
	h := 0
	for ; h < 6; h++ {
		// atan t = 2·atan(t/(1+√(1+t²)))
		d := bz().Sqrt(bz().Add(bf(1), bz().Mul(t, t)))
		t.Quo(t, d.Add(d, bf(1)))
	}
	z := bz().Mul(t, t)
	sum, term := bz().Set(t), bz().Set(t)
	for n := 1; n < 120; n++ {
		term.Mul(term, z)
		term.Neg(term)
		sum.Add(sum, bz().Quo(term, bf(float64(2*n+1))))
	}
	return sum.SetMantExp(sum, h)
}

// bigErf returns erf x for |x| < 6 by its series.
func bigErf(x *big.Float) *big.Float {
	z := bz().Mul(x, x)
	sum, pw := bz(), bz().Set(x)
	for k := 0; k < 300; k++ {
		t := bz().Quo(pw, bf(float64(2*k+1)))
		if k%2 == 1 {
			t.Neg(t)
		}
		sum.Add(sum, t)
		pw.Mul(pw, z)
		pw.Quo(pw, bf(float64(k+1)))
	}
	sum.Mul(sum, bf(2))
	return sum.Quo(sum, bz().Sqrt(refPi))
}

// refF64 returns the correctly rounded f64 value of kind at x (and y),
// and whether the reference covers the arguments.
func refF64(kind kir.Kind, x, y float64) (float64, bool) {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !finite(x) || kind == kir.PowF && !finite(y) {
		return 0, false
	}
	bx := bf(x)
	var r *big.Float
	switch kind {
	case kir.Exp:
		if r = bigExp(bx); r == nil {
			return map[bool]float64{true: math.Inf(1), false: 0}[x > 0], true
		}
	case kir.Log, kir.Log2, kir.Log10:
		if x <= 0 || x == 1 {
			return 0, false
		}
		r = bigLog(bx)
		switch kind {
		case kir.Log2:
			r.Quo(r, refLn2)
		case kir.Log10:
			r.Quo(r, bigLog(bf(10)))
		}
	case kir.Sinh, kir.Cosh:
		if math.Abs(x) > 750 || math.Abs(x) < 1e-10 {
			return 0, false
		}
		e, ei := bigExp(bx), bigExp(bz().Neg(bx))
		if kind == kir.Sinh {
			r = bz().Sub(e, ei)
		} else {
			r = bz().Add(e, ei)
		}
		r.Quo(r, bf(2))
	case kir.Sin, kir.Cos, kir.Tan:
		if x == 0 || math.Abs(x) > 1e7 {
			return 0, false
		}
		s, c := bigSinCos(bx)
		r = map[kir.Kind]*big.Float{kir.Sin: s, kir.Cos: c, kir.Tan: bz().Quo(s, c)}[kind]
	case kir.Atan:
		if x == 0 {
			return 0, false
		}
		r = bigAtan(bx)
	case kir.Asin, kir.Acos:
		if math.Abs(x) >= 1 || x == 0 {
			return 0, false
		}
		r = bigAtan(bz().Quo(bx, bz().Sqrt(bz().Sub(bf(1), bz().Mul(bx, bx)))))
		if kind == kir.Acos {
			r = bz().Sub(bz().Quo(refPi, bf(2)), r)
		}
	case kir.Exp2:
		if r = bigExp(bz().Mul(bx, refLn2)); r == nil {
			return 0, false
		}
	case kir.Expm1, kir.Tanh:
		if math.Abs(x) < 1e-30 || math.Abs(x) > 300 {
			return 0, false
		}
		if kind == kir.Expm1 {
			r = bz().Sub(bigExp(bx), bf(1))
			break
		}
		e := bigExp(bz().Mul(bf(2), bx))
		r = bz().Quo(bz().Sub(e, bf(1)), bz().Add(e, bf(1)))
	case kir.Log1p, kir.Atanh:
		if math.Abs(x) < 1e-30 || x <= -1 || kind == kir.Atanh && x >= 1 {
			return 0, false
		}
		if kind == kir.Log1p {
			r = bigLog(bz().Add(bf(1), bx))
			break
		}
		r = bigLog(bz().Quo(bz().Add(bf(1), bx), bz().Sub(bf(1), bx)))
		r.Quo(r, bf(2))
	case kir.Asinh:
		if math.Abs(x) < 1e-30 || math.Abs(x) > 1e100 {
			return 0, false
		}
		a := bf(math.Abs(x))
		r = bigLog(bz().Add(a, bz().Sqrt(bz().Add(bz().Mul(a, a), bf(1)))))
		if x < 0 {
			r.Neg(r)
		}
	case kir.Acosh:
		if x <= 1 || x > 1e100 {
			return 0, false
		}
		r = bigLog(bz().Add(bx, bz().Sqrt(bz().Sub(bz().Mul(bx, bx), bf(1)))))
	case kir.Atan2:
		if !finite(y) || x == 0 || y == 0 {
			return 0, false
		}
		// x is Atan2's first operand (y in math's naming)
		r = bigAtan(bz().Quo(bx, bf(y)))
		if y < 0 {
			if x >= 0 {
				r.Add(r, refPi)
			} else {
				r.Sub(r, refPi)
			}
		}
	case kir.Erf, kir.Erfc:
		if x == 0 || kind == kir.Erf && math.Abs(x) >= 6 || kind == kir.Erfc && (x >= 28 || x <= -6) {
			return 0, false
		}
		if x >= 6 { // erfc by its continued fraction
			t := bz().Set(bx)
			for k := 400; k >= 1; k-- {
				t = bz().Add(bx, bz().Quo(bf(float64(k)/2), t))
			}
			r = bz().Quo(bigExp(bz().Neg(bz().Mul(bx, bx))), t)
			r.Quo(r, bz().Sqrt(refPi))
			break
		}
		r = bigErf(bx)
		if kind == kir.Erfc {
			r = bz().Sub(bf(1), r)
		}
	case kir.PowF:
		if x == 0 || y == 0 || x == 1 || y == 1 {
			return 0, false
		}
		neg := x < 0
		if neg && y != math.Trunc(y) {
			return 0, false
		}
		l := bigLog(bf(math.Abs(x)))
		if r = bigExp(l.Mul(l, bf(y))); r == nil {
			lf, _ := l.Float64()
			r = bf(map[bool]float64{true: math.Inf(1), false: 0}[lf > 0])
		}
		if neg && math.Mod(y, 2) != 0 {
			r.Neg(r)
		}
	default:
		return 0, false
	}
	v, _ := r.Float64()
	return v, true
}
