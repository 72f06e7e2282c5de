package spirv

import "math"

// Exponentials, logarithms and powers.

// expLimits returns the arguments beyond which e^x is ±Inf or 0 for
// certain, with room for the scale's two halves.
func (f fb) expLimits() (lo, hi float64) {
	if f.w == 32 {
		return -104, 89
	}
	return -746, 710
}

// ln2Parts returns ln 2 as hi + lo, hi short enough that k·hi is exact.
func (f fb) ln2Parts() (hi, lo float64) {
	h, rest := split(bigLn2, f.terms(16, 42))
	return h, f64(rest)
}

// expPoly returns e^r for |r| ≤ ln2/2 (Taylor series).
func (f fb) expPoly(r uint32) uint32 {
	return f.poly(r, series(f.terms(9, 15), func(i int) float64 { return 1 / fact(i) })...)
}

// expReduce returns k and r with x = k·ln2 + r, |r| ≤ ln2/2.
func (f fb) expReduce(x uint32) (k, r uint32) {
	hi, lo := f.ln2Parts()
	k = f.glsl(glslRoundEven, f.mul(x, f.c(f64(bigLog2E))))
	r = f.sub(f.sub(x, f.mul(k, f.c(hi))), f.mul(k, f.c(lo)))
	return k, r
}

// exp is e^x.
func (f fb) exp(x uint32) uint32 {
	return f.call1("exp", x, func(x uint32) uint32 {
		lo, hi := f.expLimits()
		k, r := f.expReduce(f.clamp(x, lo, hi))
		return f.sel(f.isNaN(x), x, f.scale(f.expPoly(r), k))
	})
}

// exp2 is 2^x: 2^k · e^((x-k)·ln2).
func (f fb) exp2(x uint32) uint32 {
	return f.call1("exp2", x, func(x uint32) uint32 {
		lo, hi := f.expLimits()
		xc := f.clamp(x, lo*1.5, hi*1.5)
		k := f.glsl(glslRoundEven, xc)
		r := f.mul(f.sub(xc, k), f.c(f64(bigLn2)))
		return f.sel(f.isNaN(x), x, f.scale(f.expPoly(r), k))
	})
}

// expm1 is e^x − 1: a Taylor series near 0, e^x − 1 elsewhere.
func (f fb) expm1(x uint32) uint32 {
	return f.call1("expm1", x, func(x uint32) uint32 {
		near := f.poly(x, series(f.terms(10, 17), func(i int) float64 {
			if i == 0 {
				return 0
			}
			return 1 / fact(i)
		})...)
		far := f.sub(f.exp(x), f.c(1))
		small := f.lt(f.abs(x), f.c(0.34))
		return f.sel(small, near, far)
	})
}

// logParts reduces a positive finite x to k and f = m−1 with x = 2^k·m,
// m in [√½, √2), and returns k (a float), f and the correction c with
// log(m) = f + c (fdlibm's log1p kernel: s = f/(2+f)).
func (f fb) logParts(x uint32) (k, fr, c uint32) {
	m, ex := f.frexp(x)
	small := f.lt(m, f.c(math.Sqrt2/2))
	m = f.sel(small, f.add(m, m), m)
	k = f.sub(f.e.val(f.t, opConvertSToF, ex), f.sel(small, f.c(1), f.c(0)))
	fr = f.sub(m, f.c(1))
	s := f.div(fr, f.add(f.c(2), fr))
	z := f.mul(s, s)
	R := f.mul(z, f.poly(z, series(f.terms(6, 11), func(i int) float64 { return 2 / float64(2*i+3) })...))
	hfsq := f.mul(f.c(0.5), f.mul(fr, fr))
	c = f.neg(f.sub(hfsq, f.mul(s, f.add(hfsq, R))))
	return k, fr, c
}

// logSpecial applies log's special values: NaN below 0 and for NaN, −Inf
// at ±0, +Inf at +Inf.
func (f fb) logSpecial(x, r uint32) uint32 {
	r = f.sel(f.isInf(x), x, r)
	r = f.sel(f.or(f.lt(x, f.c(0)), f.isNaN(x)), f.nan(), r)
	return f.sel(f.eq(x, f.c(0)), f.c(math.Inf(-1)), r)
}

// log is the natural logarithm.
func (f fb) log(x uint32) uint32 {
	return f.call1("log", x, func(x uint32) uint32 {
		k, fr, c := f.logParts(x)
		hi, lo := f.ln2Parts()
		r := f.add(f.mul(k, f.c(hi)), f.add(fr, f.add(c, f.mul(k, f.c(lo)))))
		return f.logSpecial(x, r)
	})
}

// log2 is k + log(m)·log2(e) (exact at powers of two).
func (f fb) log2(x uint32) uint32 {
	return f.call1("log2", x, func(x uint32) uint32 {
		k, fr, c := f.logParts(x)
		return f.logSpecial(x, f.add(k, f.mul(f.add(fr, c), f.c(f64(bigLog2E)))))
	})
}

// log10 is k·log10(2) + log(m)·log10(e).
func (f fb) log10(x uint32) uint32 {
	return f.call1("log10", x, func(x uint32) uint32 {
		k, fr, c := f.logParts(x)
		r := f.add(f.mul(k, f.c(f64(bigLog102))), f.mul(f.add(fr, c), f.c(f64(bigLog10E))))
		return f.logSpecial(x, r)
	})
}

// log1p is log(1+x), as log(u)·x/(u−1) with u = 1+x (x itself where u
// rounds to 1).
func (f fb) log1p(x uint32) uint32 {
	return f.call1("log1p", x, func(x uint32) uint32 {
		one := f.c(1)
		u := f.add(one, x)
		r := f.mul(f.log(u), f.div(x, f.sub(u, one)))
		r = f.sel(f.eq(u, one), x, r)
		return f.sel(f.and(f.isInf(x), f.gt(x, f.c(0))), x, r)
	})
}

// isOddInt reports an odd integral y.
func (f fb) isOddInt(y uint32) uint32 {
	h := f.mul(y, f.c(0.5))
	return f.and(f.isInt(y), f.not(f.isInt(h)))
}

// powIntBits bounds the integer exponents pow computes by squaring.
const powIntBits = 6

// powInt returns ax^y for an integral y with |y| < 2^powIntBits (other
// y give a value pow does not select): square-and-multiply over the bits
// of |y|, inverted when y < 0.
func (f fb) powInt(ax, y uint32) uint32 {
	e := f.e
	u := e.u32()
	ay := f.abs(y)
	n := e.val(u, opConvertFToS, f.sel(f.lt(ay, f.c(1<<powIntBits)), ay, f.c(0)))
	r, p := f.c(1), ax
	for i := 0; i < powIntBits; i++ {
		bit := e.val(e.bool(), opINotEqual, e.val(u, opBitwiseAnd, n, e.cU32(1<<i)), e.cU32(0))
		r = f.sel(bit, f.mul(r, p), r)
		if i+1 < powIntBits {
			p = f.mul(p, p)
		}
	}
	return f.sel(f.lt(y, f.c(0)), f.div(f.c(1), r), r)
}

// isInt reports an integral y (false for ±Inf and NaN).
func (f fb) isInt(y uint32) uint32 {
	return f.and(f.eq(f.glsl(glslTrunc, y), y), f.not(f.isInf(y)))
}

// pow is Go's Pow: its special cases, else ±e^(y·log|x|), or |x|^|y| by
// repeated squaring when y is an integer of magnitude below 2^powIntBits
// (exact where the result is: 3^6 is 729, not 728.99…, which an integer
// conversion would cut to 728), inverted for y < 0. An f32 pow is computed
// in f64 when the target has Float64.
func (f fb) pow(x, y uint32) uint32 {
	if f.w == 32 && f.e.opts.Capabilities["Float64"] {
		d := f.e.flt(64)
		f64 := d.t
		r := d.pow(f.e.val(f64, opFConvert, x), f.e.val(f64, opFConvert, y))
		return f.e.val(f.t, opFConvert, r)
	}
	return f.call2("pow", x, y, func(x, y uint32) uint32 {
		zero, one, inf := f.c(0), f.c(1), f.c(math.Inf(1))
		ax := f.abs(x)
		g := f.exp(f.mul(y, f.log(ax)))
		g = f.sel(f.and(f.isInt(y), f.lt(f.abs(y), f.c(1<<powIntBits))), f.powInt(ax, y), g)
		xneg, odd := f.lt(x, zero), f.isOddInt(y)
		g = f.sel(f.and(xneg, odd), f.neg(g), g)
		g = f.sel(f.and(xneg, f.not(f.isInt(y))), f.nan(), g)
		g = f.sel(f.eq(y, f.c(-0.5)), f.div(one, f.sqrt(x)), g)
		g = f.sel(f.eq(y, f.c(0.5)), f.sqrt(x), g)
		// x = ±Inf: Pow(+Inf, y) is +Inf for y > 0 and +0 for y < 0;
		// Pow(−Inf, y) = Pow(−0, −y).
		yneg := f.lt(y, zero)
		infX := f.sel(yneg, zero, inf)
		infX = f.sel(f.and(f.lt(x, zero), odd), f.neg(infX), infX)
		g = f.sel(f.isInf(x), infX, g)
		// y = ±Inf
		infY := f.sel(f.e.val(f.e.bool(), opLogicalEqual, f.lt(ax, one), f.gt(y, zero)), zero, inf)
		infY = f.sel(f.eq(x, f.c(-1)), one, infY)
		g = f.sel(f.isInf(y), infY, g)
		// x = ±0
		zx := f.sel(yneg, f.sel(odd, f.copySign(inf, x), inf), f.sel(odd, x, zero))
		g = f.sel(f.eq(x, zero), zx, g)
		g = f.sel(f.or(f.isNaN(x), f.isNaN(y)), f.nan(), g)
		g = f.sel(f.eq(y, one), x, g)
		return f.sel(f.or(f.eq(y, zero), f.eq(x, one)), one, g)
	})
}
