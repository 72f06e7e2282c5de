package mathexp

import (
	"math"
	"math/big"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Powers and roots.
//
//   - pow (f64): Go's special cases (those of the SPIR-V library's pow,
//     go/compiler/target/spirv/exp.go), else ±e^(y·log|x|) with log|x|
//     in double-double (fdlibm's reduction x = 2^k·m, log m = 2·atanh(s),
//     s = f/(2+f), its leading terms carried with FMA-exact products) and
//     y·log|x| split exactly by FMA, so that the exponential sees its
//     argument to ~2^-100 and the result is within about one ULP for
//     every |y·log x| up to the overflow bound. f32 pow is the f64 pow
//     rounded (as the interpreter computes it).
//   - cbrt: x = m·2^(3q+r), cbrt = cbrt(m·2^r)·2^q with Newton's
//     iterations from a linear first guess, and a last correction step
//     whose residual y³ − m is computed with FMAs.

// twoProd returns a·b as an unevaluated sum p + e, exactly (FMA).
func (f fb) twoProd(a, b kir.Value) (p, e kir.Value) {
	p = f.mul(a, b)
	return p, f.fma(a, b, f.neg(p))
}

// twoSum returns a+b as s + e exactly (any magnitudes).
func (f fb) twoSum(a, b kir.Value) (s, e kir.Value) {
	s = f.add(a, b)
	bb := f.sub(s, a)
	e = f.add(f.sub(a, f.sub(s, bb)), f.sub(b, bb))
	return s, e
}

// logDD returns log(x) as hi + lo for positive finite x (f64), to about
// 2^-100 relative.
func (f fb) logDD(x kir.Value) (hi, lo kir.Value) {
	m, ex := f.frexp(x)
	small := f.lt(m, f.c(math.Sqrt2/2))
	m = f.sel(small, f.add(m, m), m)
	k := f.sub(f.toFloat(ex), f.sel(small, f.c(1), f.c(0)))
	fr := f.sub(m, f.c(1)) // exact
	two := f.c(2)
	uh := f.add(two, fr)
	ul := f.sub(fr, f.sub(uh, two)) // 2+f = uh+ul exactly
	sh := f.div(fr, uh)
	// fr − sh·(uh+ul), exactly enough: the first product's error is
	// exact by FMA.
	res := f.sub(f.fma(f.neg(sh), uh, fr), f.mul(sh, ul))
	sl := f.div(res, uh)
	// log m = 2s + (2/3)s³ + s⁵·P(s²)
	s2h, s2l := f.twoProd(sh, sh)
	s2l = f.add(s2l, f.mul(f.c(2), f.mul(sh, sl)))
	s3h, s3l := f.twoProd(s2h, sh)
	s3l = f.add(s3l, f.add(f.mul(s2l, sh), f.mul(s2h, sl)))
	c3h := 2.0 / 3
	c3l := f64(new(big.Float).SetPrec(256).Sub(new(big.Float).SetPrec(256).Quo(big.NewFloat(2), big.NewFloat(3)), big.NewFloat(c3h)))
	t3h, t3l := f.twoProd(s3h, f.c(c3h))
	t3l = f.add(t3l, f.add(f.mul(s3l, f.c(c3h)), f.mul(s3h, f.c(c3l))))
	z := f.mul(sh, sh)
	p := f.poly(z, series(11, func(i int) float64 { return 2 / float64(2*i+5) })...)
	tail := f.mul(f.mul(s3h, z), p)
	ln2h, ln2l := f.ln2Parts()
	a := f.mul(k, f.c(ln2h)) // exact
	two2 := f.mul(two, sh)   // exact
	h, e := f.twoSum(a, two2)
	h2, e2 := f.twoSum(h, t3h)
	lo = f.add(f.add(e, e2), f.add(f.add(f.mul(two, sl), t3l), f.add(tail, f.mul(k, f.c(ln2l)))))
	hi = f.add(h2, lo)
	lo = f.sub(lo, f.sub(hi, h2))
	return hi, lo
}

// expDD returns e^(th+tl) for |tl| ≤ ulp(th) (f64).
func (f fb) expDD(th, tl kir.Value) kir.Value {
	lo, hi := f.expLimits()
	big := f.or(f.lt(th, f.c(lo)), f.gt(th, f.c(hi)))
	th = f.clamp(th, lo, hi)
	tl = f.sel(big, f.c(0), tl)
	h, l := f.ln2Parts()
	k := f.un(kir.RoundEven, f.mul(th, f.c(f64(bigLog2E))))
	r := f.sub(th, f.mul(k, f.c(h))) // exact
	r = f.add(r, f.sub(tl, f.mul(k, f.c(l))))
	return f.scale(f.expPoly(r), k)
}

// isOddInt reports an odd integral y.
func (f fb) isOddInt(y kir.Value) kir.Value {
	h := f.mul(y, f.c(0.5))
	return f.and(f.isInt(y), f.not(f.isInt(h)))
}

// pow is Go's Pow.
func (f fb) pow(x, y kir.Value) kir.Value {
	if f.w == 32 {
		d := f.with(kir.Type{Elem: kir.F64, Lanes: f.t.Lanes})
		ext := func(v kir.Value) kir.Value { return f.b.Emit(kir.FPExt, d.t, v) }
		return f.b.Emit(kir.FPTrunc, f.t, d.pow(ext(x), ext(y)))
	}
	zero, one, inf := f.c(0), f.c(1), f.inf()
	ax := f.abs(x)
	lh, ll := f.logDD(f.sel(f.or(f.eq(ax, zero), f.isInf(ax)), one, ax))
	th, te := f.twoProd(y, lh)
	tl := f.fma(y, ll, te)
	tl = f.sel(f.isInf(th), zero, tl)
	g := f.expDD(th, tl)
	xneg, odd := f.lt(x, zero), f.isOddInt(y)
	g = f.sel(f.and(xneg, odd), f.neg(g), g)
	g = f.sel(f.and(xneg, f.not(f.isInt(y))), f.nan(), g)
	// x = ±Inf: Pow(+Inf, y) is +Inf for y > 0 and +0 for y < 0;
	// Pow(−Inf, y) = Pow(−0, −y).
	yneg := f.lt(y, zero)
	infX := f.sel(yneg, zero, inf)
	infX = f.sel(f.and(f.lt(x, zero), odd), f.neg(infX), infX)
	g = f.sel(f.isInf(x), infX, g)
	// y = ±Inf
	infY := f.sel(f.b.Cmp(kir.CmpI, kir.PredEQ, f.lt(ax, one), f.gt(y, zero)), zero, inf)
	infY = f.sel(f.eq(x, f.c(-1)), one, infY)
	g = f.sel(f.isInf(y), infY, g)
	// x = ±0
	zx := f.sel(yneg, f.sel(odd, f.copySign(inf, x), inf), f.sel(odd, x, zero))
	g = f.sel(f.eq(x, zero), zx, g)
	g = f.sel(f.or(f.isNaN(x), f.isNaN(y)), f.nan(), g)
	g = f.sel(f.eq(y, one), x, g)
	return f.sel(f.or(f.eq(y, zero), f.eq(x, one)), one, g)
}

// cbrt is the cube root, ±0, ±Inf and NaN kept.
func (f fb) cbrt(x kir.Value) kir.Value {
	a := f.abs(x)
	m, ex := f.frexp(f.sel(f.or(f.eq(a, f.c(0)), f.isInf(a)), f.c(1), a))
	q := f.bin(kir.Sub, f.bin(kir.DivS, f.bin(kir.Add, ex, f.cu(1200)), f.cu(3)), f.cu(400))
	r := f.bin(kir.Sub, ex, f.bin(kir.Mul, q, f.cu(3)))
	m = f.mul(m, f.pow2(r)) // [0.5, 4)
	y := f.add(f.c(0.6803), f.mul(f.c(0.2268), m))
	for i := 0; i < f.terms(3, 4); i++ {
		y = f.mul(f.add(f.add(y, y), f.div(m, f.mul(y, y))), f.c(1.0/3))
	}
	// y −= (y³ − m)/(3y²), the residual with FMAs
	y2h, y2l := f.twoProd(y, y)
	res := f.fma(y2h, y, f.neg(m))
	res = f.fma(y2l, y, res)
	y = f.sub(y, f.div(res, f.mul(f.c(3), y2h)))
	y = f.copySign(f.mul(y, f.pow2(q)), x)
	special := f.or(f.or(f.eq(x, f.c(0)), f.isInf(x)), f.isNaN(x))
	return f.sel(special, x, y)
}
