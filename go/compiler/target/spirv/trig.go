package spirv

import "math"

// Trigonometric and hyperbolic functions.

// trigReduce returns r and the quadrant q (an i32, mod 4) with
// x = q·π/2 + r, |r| ≤ π/4, by Cody and Waite's three-part π/2 (exact
// for |x| up to about 6e3 in f32 and 1.6e6 in f64).
func (f fb) trigReduce(x uint32) (r, q uint32) {
	bits := f.terms(12, 33)
	p1, rest := split(bigPiHalf, bits)
	p2, rest := split(rest, bits)
	p3 := f64(rest)
	k := f.glsl(glslRoundEven, f.mul(x, f.c(1/f64(bigPiHalf))))
	r = f.sub(f.sub(f.sub(x, f.mul(k, f.c(p1))), f.mul(k, f.c(p2))), f.mul(k, f.c(p3)))
	q = f.e.val(f.i32(), opBitwiseAnd, f.toInt(k), f.e.cU32(3))
	return r, q
}

// sinPoly is sin(r) for |r| ≤ π/4.
func (f fb) sinPoly(r uint32) uint32 {
	z := f.mul(r, r)
	p := f.poly(z, series(f.terms(5, 10), func(i int) float64 {
		return math.Pow(-1, float64(i+1)) / fact(2*i+3)
	})...)
	return f.add(r, f.mul(f.mul(r, z), p))
}

// cosPoly is cos(r) for |r| ≤ π/4 (fdlibm's compensated 1 − z/2).
func (f fb) cosPoly(r uint32) uint32 {
	z := f.mul(r, r)
	p := f.poly(z, series(f.terms(5, 9), func(i int) float64 {
		return math.Pow(-1, float64(i)) / fact(2*i+4)
	})...)
	hz := f.mul(f.c(0.5), z)
	w := f.sub(f.c(1), hz)
	return f.add(w, f.add(f.sub(f.sub(f.c(1), w), hz), f.mul(f.mul(z, z), p)))
}

// quadrant picks vs[q] (q an i32 in 0..3).
func (f fb) quadrant(q uint32, vs [4]uint32) uint32 {
	e, bt := f.e, f.e.bool()
	is := func(i uint32) uint32 { return e.val(bt, opIEqual, q, e.cU32(i)) }
	return f.sel(is(0), vs[0], f.sel(is(1), vs[1], f.sel(is(2), vs[2], vs[3])))
}

// trig builds sin, cos or tan: NaN for ±Inf and NaN, x itself for tiny x
// (sin, tan).
func (f fb) trig(name string, x uint32, pick func(s, c, q uint32) uint32) uint32 {
	return f.call1(name, x, func(x uint32) uint32 {
		// Beyond the exact reduction's range, reduce modulo 2π (rounded)
		// first, exactly: the result keeps its range but not its value.
		big := f.gt(f.abs(x), f.c(float64(f.terms(6000, 1500000))))
		r, q := f.trigReduce(f.sel(big, f.fmod(x, f.c(2*math.Pi)), x))
		v := pick(f.sinPoly(r), f.cosPoly(r), q)
		if name != "cos" {
			v = f.sel(f.lt(f.abs(x), f.c(math.Ldexp(1, -f.terms(12, 27)))), x, v)
		}
		return f.sel(f.or(f.isInf(x), f.isNaN(x)), f.nan(), v)
	})
}

func (f fb) sin(x uint32) uint32 {
	return f.trig("sin", x, func(s, c, q uint32) uint32 { return f.quadrant(q, [4]uint32{s, c, f.neg(s), f.neg(c)}) })
}

func (f fb) cos(x uint32) uint32 {
	return f.trig("cos", x, func(s, c, q uint32) uint32 { return f.quadrant(q, [4]uint32{c, f.neg(s), f.neg(c), s}) })
}

func (f fb) tan(x uint32) uint32 {
	return f.trig("tan", x, func(s, c, q uint32) uint32 {
		odd := f.e.val(f.e.bool(), opINotEqual, f.e.val(f.i32(), opBitwiseAnd, q, f.e.cU32(1)), f.e.cU32(0))
		return f.sel(odd, f.neg(f.div(c, s)), f.div(s, c))
	})
}

// atan: |x| > 1 uses π/2 − atan(1/|x|), then |t| > tan(π/8) uses
// π/4 + atan((t−1)/(t+1)), then a Taylor series.
func (f fb) atan(x uint32) uint32 {
	return f.call1("atan", x, func(x uint32) uint32 {
		one := f.c(1)
		a := f.abs(x)
		inv := f.gt(a, one)
		t := f.sel(inv, f.div(one, a), a)
		mid := f.gt(t, f.c(math.Sqrt2-1))
		t = f.sel(mid, f.div(f.sub(t, one), f.add(t, one)), t)
		z := f.mul(t, t)
		p := f.poly(z, series(f.terms(9, 20), func(i int) float64 {
			return math.Pow(-1, float64(i+1)) / float64(2*i+3)
		})...)
		r := f.add(t, f.mul(f.mul(t, z), p))
		pi2h, rest := split(bigPiHalf, f.terms(24, 53))
		pi4h, pi4l := pi2h/2, f64(rest)/2
		r = f.sel(mid, f.add(f.c(pi4h), f.add(r, f.c(pi4l))), r)
		r = f.sel(inv, f.sub(f.c(2*pi4h), f.sub(r, f.c(2*pi4l))), r)
		return f.copySign(r, x)
	})
}

// asin is atan(x/√((1−x)(1+x))).
func (f fb) asin(x uint32) uint32 {
	return f.call1("asin", x, func(x uint32) uint32 {
		one := f.c(1)
		d := f.mul(f.sub(one, x), f.add(one, x))
		r := f.atan(f.div(x, f.glsl(glslSqrt, d)))
		return f.sel(f.gt(f.abs(x), one), f.nan(), r)
	})
}

// acos is 2·atan(√((1−x)/(1+x))).
func (f fb) acos(x uint32) uint32 {
	return f.call1("acos", x, func(x uint32) uint32 {
		one := f.c(1)
		q := f.div(f.sub(one, x), f.add(one, x))
		r := f.mul(f.c(2), f.atan(f.glsl(glslSqrt, q)))
		return f.sel(f.gt(f.abs(x), one), f.nan(), r)
	})
}

// atan2 is Go's Atan2: atan(y/x) moved to the quadrant, with its special
// cases.
func (f fb) atan2(y, x uint32) uint32 {
	return f.call2("atan2", y, x, func(y, x uint32) uint32 {
		zero := f.c(0)
		pi := f.c(math.Pi)
		q := f.atan(f.div(y, x))
		xneg := f.lt(x, zero)
		g := f.sel(xneg, f.sel(f.cmp(opFOrdLessThanEqual, q, zero), f.add(q, pi), f.sub(q, pi)), q)
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
	})
}

// hyperThreshold is where e^−|x| no longer matters next to e^|x|.
func (f fb) hyperThreshold() float64 { return float64(f.terms(9, 19)) }

// sinh: (e + e/(e+1))/2 from expm1 below 1, (e − 1/e)/2 below the
// threshold, (w/2)·w with w = e^(|x|/2) above (no early overflow).
func (f fb) sinh(x uint32) uint32 {
	return f.call1("sinh", x, func(x uint32) uint32 {
		half, one := f.c(0.5), f.c(1)
		a := f.abs(x)
		em := f.expm1(a)
		small := f.mul(half, f.add(em, f.div(em, f.add(em, one))))
		ea := f.exp(a)
		mid := f.mul(half, f.sub(ea, f.div(one, ea)))
		w := f.exp(f.mul(a, half))
		big := f.mul(f.mul(w, half), w)
		r := f.sel(f.lt(a, one), small, f.sel(f.lt(a, f.c(f.hyperThreshold())), mid, big))
		return f.copySign(r, x)
	})
}

// cosh: (e + 1/e)/2, (w/2)·w above the threshold.
func (f fb) cosh(x uint32) uint32 {
	return f.call1("cosh", x, func(x uint32) uint32 {
		half, one := f.c(0.5), f.c(1)
		a := f.abs(x)
		ea := f.exp(a)
		mid := f.mul(half, f.add(ea, f.div(one, ea)))
		w := f.exp(f.mul(a, half))
		big := f.mul(f.mul(w, half), w)
		return f.sel(f.lt(a, f.c(f.hyperThreshold())), mid, big)
	})
}

// tanh: em/(em+2) with em = expm1(2|x|) below 0.625, 1 − 2/(e^(2|x|)+1)
// above.
func (f fb) tanh(x uint32) uint32 {
	return f.call1("tanh", x, func(x uint32) uint32 {
		one, two := f.c(1), f.c(2)
		a2 := f.mul(f.abs(x), two)
		em := f.expm1(a2)
		small := f.div(em, f.add(em, two))
		big := f.sub(one, f.div(two, f.add(f.exp(a2), one)))
		r := f.sel(f.lt(a2, f.c(1.25)), small, big)
		return f.copySign(r, x)
	})
}

// asinh is Go's: log(x)+ln2 beyond 2^28, log(2x + 1/(√(x²+1)+x)) above
// 2, log1p(x + x²/(1+√(1+x²))) below.
func (f fb) asinh(x uint32) uint32 {
	return f.call1("asinh", x, func(x uint32) uint32 {
		one, two := f.c(1), f.c(2)
		a := f.abs(x)
		a2 := f.mul(a, a)
		sq := f.glsl(glslSqrt, f.add(a2, one))
		large := f.add(f.log(a), f.c(math.Ln2))
		mid := f.log(f.add(f.mul(two, a), f.div(one, f.add(sq, a))))
		small := f.log1p(f.add(a, f.div(a2, f.add(one, sq))))
		r := f.sel(f.gt(a, f.c(1<<28)), large, f.sel(f.gt(a, two), mid, small))
		r = f.sel(f.isInf(x), a, r)
		return f.copySign(r, x)
	})
}

// acosh is Go's: NaN below 1, log(x)+ln2 beyond 2^28, log(2x −
// 1/(x+√(x²−1))) above 2, log1p(t + √(2t+t²)) with t = x−1 below.
func (f fb) acosh(x uint32) uint32 {
	return f.call1("acosh", x, func(x uint32) uint32 {
		one, two := f.c(1), f.c(2)
		large := f.add(f.log(x), f.c(math.Ln2))
		mid := f.log(f.sub(f.mul(two, x), f.div(one, f.add(x, f.glsl(glslSqrt, f.sub(f.mul(x, x), one))))))
		t := f.sub(x, one)
		small := f.log1p(f.add(t, f.glsl(glslSqrt, f.add(f.mul(two, t), f.mul(t, t)))))
		r := f.sel(f.gt(x, f.c(1<<28)), large, f.sel(f.gt(x, two), mid, small))
		r = f.sel(f.isInf(x), x, r)
		return f.sel(f.not(f.cmp(opFOrdGreaterThanEqual, x, one)), f.nan(), r)
	})
}

// atanh is Go's: x below 2^−28, ½·log1p(2x + 2x·x/(1−x)) below ½,
// ½·log1p(2x/(1−x)) above; ±Inf at ±1, NaN beyond.
func (f fb) atanh(x uint32) uint32 {
	return f.call1("atanh", x, func(x uint32) uint32 {
		one, half := f.c(1), f.c(0.5)
		a := f.abs(x)
		t := f.add(a, a)
		om := f.sub(one, a)
		small := f.mul(half, f.log1p(f.add(t, f.div(f.mul(t, a), om))))
		big := f.mul(half, f.log1p(f.div(t, om)))
		r := f.sel(f.lt(a, half), small, big)
		r = f.sel(f.lt(a, f.c(math.Ldexp(1, -28))), a, r)
		r = f.sel(f.eq(a, one), f.c(math.Inf(1)), r)
		r = f.copySign(r, x)
		return f.sel(f.not(f.cmp(opFOrdLessThanEqual, a, one)), f.nan(), r)
	})
}
