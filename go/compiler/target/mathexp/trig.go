package mathexp

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Trigonometric functions, the algorithms of the SPIR-V library
// (go/compiler/target/spirv/trig.go):
//
//   - sin, cos, tan: x = k·π/2 + r, |r| ≤ π/4, by Cody and Waite's
//     split π/2 (three parts of 11 bits and the rest in f32, two of 33
//     and the rest in f64, so that the products k·pi are exact), sin and
//     cos of r by their Taylor series (cos with fdlibm's compensated
//     1 − r²/2), picked and signed by the quadrant k mod 4; tan of r by
//     its own Taylor series (coefficients from T' = 1 + T²), −1/tan(r) in
//     odd quadrants. The reduction is accurate for |x| below 1e4
//     (f32) and 1.6e6 (f64); beyond, r is clamped to [−π/4, π/4], so the
//     result is finite and in range (sin, cos in [−1, 1]) but not
//     accurate.
//   - atan: |x| > 1 uses π/2 − atan(1/|x|), then t > tan(π/8) uses
//     π/4 + atan((t−1)/(t+1)), then a Taylor series, the reduced
//     arguments and the constant's addition to double width; atan2
//     moves atan(y/x) to its quadrant, with Go's special cases.
//   - asin, acos: fdlibm's reductions to asin's Taylor series on [0, ½]
//     (asin x = π/2 − 2·asin(√((1−x)/2)) above ½), with the square
//     root's rounding error recovered by an FMA and the large constant
//     subtracted exactly, so that no step loses more than the last
//     rounding.

// trigReduce returns r + rl (double width) and the quadrant (an
// integer, mod 4) with x = q·π/2 + r + rl; the last subtraction's
// rounding error goes to rl.
func (f fb) trigReduce(x kir.Value) (r, rl, q kir.Value) {
	bits := f.terms(11, 33)
	k := f.un(kir.RoundEven, f.mul(x, f.c(1/f64(bigPiHalf))))
	r, rest := x, bigPiHalf
	for i := 0; i < f.terms(3, 2); i++ {
		var p float64
		p, rest = split(rest, bits)
		r = f.sub(r, f.mul(k, f.c(p)))
	}
	r, rl = f.twoSum(r, f.neg(f.mul(k, f.c(f64(rest)))))
	// k mod 4 in float (k may exceed the integers), then an integer
	km := f.sub(k, f.mul(f.c(4), f.un(kir.Floor, f.mul(k, f.c(0.25)))))
	return r, rl, f.toInt(km)
}

// reduced returns trigReduce's r, rl and q, r clamped to [−π/4, π/4]
// (and rl zero) beyond the accurate range.
func (f fb) reduced(x kir.Value) (r, rl, q kir.Value) {
	r, rl, q = f.trigReduce(x)
	big := f.gt(f.abs(x), f.c(f.terms2(1e4, 1.6e6)))
	pi4 := math.Pi / 4
	return f.sel(big, f.clamp(r, -pi4, pi4), r), f.sel(big, f.c(0), rl), q
}

// sinPoly is sin(r) for |r| ≤ π/4.
func (f fb) sinPoly(r kir.Value) kir.Value {
	z := f.mul(r, r)
	p := f.poly(z, series(f.terms(5, 10), func(i int) float64 {
		return math.Pow(-1, float64(i+1)) / fact(2*i+3)
	})...)
	return f.add(r, f.mul(f.mul(r, z), p))
}

// cosPoly is cos(r) for |r| ≤ π/4 (fdlibm's compensated 1 − z/2).
func (f fb) cosPoly(r kir.Value) kir.Value {
	z := f.mul(r, r)
	p := f.poly(z, series(f.terms(5, 9), func(i int) float64 {
		return math.Pow(-1, float64(i)) / fact(2*i+4)
	})...)
	hz := f.mul(f.c(0.5), z)
	w := f.sub(f.c(1), hz)
	return f.add(w, f.add(f.sub(f.sub(f.c(1), w), hz), f.mul(f.mul(z, z), p)))
}

// quadrant picks vs[q] (q an integer in 0..3).
func (f fb) quadrant(q kir.Value, vs [4]kir.Value) kir.Value {
	is := func(i int64) kir.Value { return f.icmp(kir.PredEQ, q, f.cu(i)) }
	return f.sel(is(0), vs[0], f.sel(is(1), vs[1], f.sel(is(2), vs[2], vs[3])))
}

// trig builds sin or cos: NaN for ±Inf and NaN, x itself for tiny x
// (sin). sin(r + rl) = sin r + rl, cos(r + rl) = cos r − r·rl.
func (f fb) trig(cos bool, x kir.Value, pick func(s, c, q kir.Value) kir.Value) kir.Value {
	r, rl, q := f.reduced(x)
	s := f.add(f.sinPoly(r), rl)
	c := f.sub(f.cosPoly(r), f.mul(r, rl))
	v := pick(s, c, q)
	if !cos {
		v = f.sel(f.lt(f.abs(x), f.c(math.Ldexp(1, -f.terms(12, 27)))), x, v)
	}
	return f.sel(f.or(f.isInf(x), f.isNaN(x)), f.nan(), v)
}

func (f fb) sin(x kir.Value) kir.Value {
	return f.trig(false, x, func(s, c, q kir.Value) kir.Value {
		return f.quadrant(q, [4]kir.Value{s, c, f.neg(s), f.neg(c)})
	})
}

func (f fb) cos(x kir.Value) kir.Value {
	return f.trig(true, x, func(s, c, q kir.Value) kir.Value {
		return f.quadrant(q, [4]kir.Value{c, f.neg(s), f.neg(c), s})
	})
}

// tan: t = tan(r + rl) as th + tl; in odd quadrants −1/(th + tl) with
// the reciprocal's residual from an FMA.
func (f fb) tan(x kir.Value) kir.Value {
	r, rl, q := f.reduced(x)
	z := f.mul(r, r)
	tail := f.mul(f.mul(r, z), f.poly(z, tanCoeffs(f.terms(12, 27), 1)[1:]...))
	th := f.add(r, tail)
	tl := f.add(f.add(f.sub(r, th), tail), f.mul(rl, f.add(f.c(1), f.mul(th, th))))
	even := f.add(th, tl)
	inv := f.div(f.c(1), th)
	e := f.fma(f.neg(inv), th, f.c(1))
	oddv := f.neg(f.add(inv, f.mul(inv, f.sub(e, f.mul(inv, tl)))))
	odd := f.icmp(kir.PredNE, f.bin(kir.And, q, f.cu(1)), f.cu(0))
	v := f.sel(odd, oddv, even)
	v = f.sel(f.lt(f.abs(x), f.c(math.Ldexp(1, -f.terms(12, 27)))), x, v)
	return f.sel(f.or(f.isInf(x), f.isNaN(x)), f.nan(), v)
}

// tanCoeffs returns n coefficients a_k of T(x) = Σ a_k x^(2k+1) with
// T' = 1 + sign·T² (sign 1: tan; −1: tanh), from a_0 = 1:
// (2k+1)·a_k = sign·Σ_{i+j=k−1} a_i·a_j (all terms of one sign).
func tanCoeffs(n int, sign float64) []float64 {
	a := make([]float64, n)
	a[0] = 1
	for k := 1; k < n; k++ {
		s := 0.0
		for i := 0; i < k; i++ {
			s += a[i] * a[k-1-i]
		}
		a[k] = sign * s / float64(2*k+1)
	}
	return a
}

// oddSeries evaluates Σ cs[k]·x^(2k+1) (cs[0] = 1) as x + x·z·P(z).
func (f fb) oddSeries(x kir.Value, cs []float64) kir.Value {
	z := f.mul(x, x)
	return f.add(x, f.mul(f.mul(x, z), f.poly(z, cs[1:]...)))
}

// atan is the arctangent: |x| > 1 takes t = 1/|x| (atan = π/2 − atan t),
// t > tan(π/8) takes u = (t−1)/(t+1) (atan t = π/4 + atan u), each
// reduced argument carried to double width (FMA residuals, two-sums),
// then atan u by its Taylor series, and the constant C ∈ {0, π/4, π/2}
// added exactly before the low parts: C ± (uh + tail).
func (f fb) atan(x kir.Value) kir.Value {
	one, zero := f.c(1), f.c(0)
	a := f.abs(x)
	inv := f.gt(a, one)
	th := f.sel(inv, f.div(one, a), a)
	tl := f.sel(f.and(inv, f.not(f.isInf(a))), f.div(f.fma(f.neg(th), a, one), a), zero)
	mid := f.gt(th, f.c(math.Sqrt2-1))
	nh, ne := f.twoSum(th, f.c(-1))
	dh, de := f.twoSum(th, one)
	nl, dl := f.add(ne, tl), f.add(de, tl)
	um := f.div(nh, dh)
	uml := f.div(f.sub(f.add(f.fma(f.neg(um), dh, nh), nl), f.mul(um, dl)), dh)
	uh, ul := f.sel(mid, um, th), f.sel(mid, uml, tl)
	z := f.mul(uh, uh)
	p := f.poly(z, series(f.terms(10, 24), func(i int) float64 {
		return math.Pow(-1, float64(i+1)) / float64(2*i+3)
	})...)
	tail := f.add(f.mul(f.mul(uh, z), p), f.div(ul, f.add(one, z)))
	ph, pl := f.piParts(0.5)
	qh, ql := f.piParts(1)
	ch := f.sel(mid, f.c(ph), f.sel(inv, f.c(qh), zero))
	cl := f.sel(mid, f.c(pl), f.sel(inv, f.c(ql), zero))
	sg := f.sel(inv, f.c(-1), one)
	h, e := f.twoSum(ch, f.mul(sg, uh))
	r := f.add(h, f.add(e, f.add(cl, f.mul(sg, tail))))
	return f.copySign(r, x)
}

// asinCoeffs returns n coefficients of asin x = Σ c_k x^(2k+1):
// c_k = (2k)!/(4^k·k!²·(2k+1)).
func asinCoeffs(n int) []float64 {
	c := make([]float64, n)
	b := 1.0
	for k := range c {
		if k > 0 {
			b *= float64(2*k-1) / float64(2*k)
		}
		c[k] = b / float64(2*k+1)
	}
	return c
}

// asinTail returns asin(s) − s for 0 ≤ s ≤ ½ (its series past s).
func (f fb) asinTail(s kir.Value) kir.Value {
	z := f.mul(s, s)
	return f.mul(f.mul(s, z), f.poly(z, asinCoeffs(f.terms(12, 27))[1:]...))
}

// asinHalf returns 2·asin(√t) for 0 ≤ t ≤ ¼ as hi (2·s with s = √t
// rounded, exact) and lo (the rest: the square root's error, computed
// by an FMA, and the series' tail).
func (f fb) asinHalf(t kir.Value) (hi, lo kir.Value) {
	s := f.sqrt(t)
	sl := f.div(f.fma(f.neg(s), s, t), f.add(s, s))
	sl = f.sel(f.eq(s, f.c(0)), f.c(0), sl)
	sl = f.mul(sl, f.add(f.c(1), f.mul(f.c(0.5), t))) // ·1/√(1−s²)
	two := f.c(2)
	return f.mul(two, s), f.mul(two, f.add(sl, f.asinTail(s)))
}

// minusHi returns c − hi − lo for a constant c given to double width
// (ch + cl), the first difference exact.
func (f fb) minusHi(ch, cl float64, hi, lo kir.Value) kir.Value {
	h, e := f.twoSum(f.c(ch), f.neg(hi))
	return f.add(h, f.add(e, f.sub(f.c(cl), lo)))
}

// piParts returns π/2·m as a double-width constant.
func (f fb) piParts(m float64) (hi, lo float64) {
	h, rest := split(bigPiHalf, f.terms(24, 53))
	return h * m, f64(rest) * m
}

// asin: its series for |x| ≤ ½, π/2 − 2·asin(√((1−|x|)/2)) above
// (fdlibm's reduction; 1 − |x| is exact there).
func (f fb) asin(x kir.Value) kir.Value {
	half, one := f.c(0.5), f.c(1)
	a := f.abs(x)
	small := f.add(a, f.asinTail(a))
	hi, lo := f.asinHalf(f.mul(half, f.sub(one, a)))
	ph, pl := f.piParts(1)
	big := f.minusHi(ph, pl, hi, lo)
	r := f.copySign(f.sel(f.le(a, half), small, big), x)
	return f.sel(f.or(f.gt(a, one), f.isNaN(x)), f.nan(), r)
}

// acos: π/2 − asin(x) for |x| ≤ ½, 2·asin(√((1−x)/2)) above ½ and
// π − 2·asin(√((1+x)/2)) below −½.
func (f fb) acos(x kir.Value) kir.Value {
	half, one := f.c(0.5), f.c(1)
	a := f.abs(x)
	ph, pl := f.piParts(1)
	mid := f.minusHi(ph, pl, x, f.copySign(f.asinTail(a), x))
	neg := f.lt(x, f.c(0))
	hi, lo := f.asinHalf(f.mul(half, f.sub(one, a)))
	pos := f.add(hi, lo)
	qh, ql := f.piParts(2)
	negr := f.minusHi(qh, ql, hi, lo)
	r := f.sel(f.le(a, half), mid, f.sel(neg, negr, pos))
	return f.sel(f.or(f.gt(a, one), f.isNaN(x)), f.nan(), r)
}

// atan2 is Go's Atan2(y, x).
func (f fb) atan2(y, x kir.Value) kir.Value {
	zero := f.c(0)
	pi := f.c(math.Pi)
	q := f.atan(f.div(y, x))
	xneg := f.lt(x, zero)
	g := f.sel(xneg, f.sel(f.le(q, zero), f.add(q, pi), f.sub(q, pi)), q)
	// y = ±Inf
	g = f.sel(f.isInf(y), f.copySign(f.c(math.Pi/2), y), g)
	// x = ±Inf
	xinf := f.sel(f.isInf(y), f.sel(xneg, f.c(3*math.Pi/4), f.c(math.Pi/4)), f.sel(xneg, pi, zero))
	g = f.sel(f.isInf(x), f.copySign(xinf, y), g)
	// x = ±0
	g = f.sel(f.eq(x, zero), f.copySign(f.c(math.Pi/2), y), g)
	// y = ±0
	yz := f.sel(f.or(xneg, f.signbit(x)), f.copySign(pi, y), y)
	g = f.sel(f.eq(y, zero), yz, g)
	return f.sel(f.or(f.isNaN(x), f.isNaN(y)), f.nan(), g)
}

// signbit reports a's sign bit.
func (f fb) signbit(a kir.Value) kir.Value {
	return f.icmp(kir.PredSLT, f.bits(a), f.cu(0))
}
