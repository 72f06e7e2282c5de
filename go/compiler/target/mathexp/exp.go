package mathexp

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Exponentials and logarithms, the algorithms of the SPIR-V target's
// math library (go/compiler/target/spirv/exp.go) in kir arithmetic:
//
//   - exp: x = k·ln2 + r with ln2 split in two (Cody and Waite: k·hi
//     exact), |r| ≤ ln2/2, e^r by its Taylor series, scaled by 2^k in two
//     halves so that overflow and underflow round once. exp2 reduces
//     x = k + f and takes e^(f·ln2).
//   - expm1: the same reduction, e^r − 1 = r + r²·Q(r) to double width,
//     then 2^k·(e^r − 1) + (2^k − 1) summed exactly, which keeps tiny and
//     negative arguments accurate; (e^r)·2^k − 1 for large k.
//   - log: x = 2^k·m with m in [√½, √2) from the exponent bits (frexp),
//     fdlibm's kernel log(m) = f − (f²/2 − s·(f²/2 + R(s²))), s = f/(2+f),
//     f = m − 1, and k·ln2 added in two parts; log2 and log10 scale it.
//   - log1p: log u with u = 1 + x, plus fdlibm's correction e/u for the
//     rounding error e of 1 + x.
//
// Special values follow Go's math package.

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

// expPoly returns e^r for |r| ≤ ln2/2 (Taylor series; in f32 to degree
// 7 by fused multiply-adds, whose one rounding per step keeps the sum
// within the bound with a term fewer).
func (f fb) expPoly(r kir.Value) kir.Value {
	cs := series(f.terms(8, 15), func(i int) float64 { return 1 / fact(i) })
	if f.w == 32 {
		return f.polyFMA(r, cs...)
	}
	return f.poly(r, cs...)
}

// expm1Poly returns e^r − 1 for |r| ≤ ln2/2: r + r²·(1/2 + r/6 + …),
// the correction to r small enough that its rounding hardly shows.
func (f fb) expm1Poly(r kir.Value) kir.Value {
	return f.add(r, f.expm1Tail(r))
}

// expm1Tail returns e^r − 1 − r.
func (f fb) expm1Tail(r kir.Value) kir.Value {
	cs := series(f.terms(9, 16), func(i int) float64 { return 1 / fact(i+2) })
	return f.mul(f.mul(r, r), f.poly(r, cs...))
}

// expReduce returns k and r with x = k·ln2 + r, |r| ≤ ln2/2.
func (f fb) expReduce(x kir.Value) (k, r kir.Value) {
	hi, lo := f.ln2Parts()
	k = f.un(kir.RoundEven, f.mul(x, f.c(f64(bigLog2E))))
	r = f.sub(f.sub(x, f.mul(k, f.c(hi))), f.mul(k, f.c(lo)))
	return k, r
}

// exp is e^x.
func (f fb) exp(x kir.Value) kir.Value {
	lo, hi := f.expLimits()
	k, r := f.expReduce(f.clamp(x, lo, hi))
	return f.sel(f.isNaN(x), x, f.scale(f.expPoly(r), k))
}

// exp2 is 2^x: 2^k · e^((x−k)·ln2).
func (f fb) exp2(x kir.Value) kir.Value {
	lo, hi := f.expLimits()
	xc := f.clamp(x, lo*1.5, hi*1.5)
	k := f.un(kir.RoundEven, xc)
	d := f.sub(xc, k) // exact
	ln2h, ln2l := f.ln2Parts()
	// (x−k)·ln2 to more than the width's precision: d·hi is exact when d
	// has few bits; otherwise its rounding error is below r's last bit.
	r := f.add(f.mul(d, f.c(ln2h)), f.mul(d, f.c(ln2l)))
	return f.sel(f.isNaN(x), x, f.scale(f.expPoly(r), k))
}

// expm1 is e^x − 1: x = k·ln2 + r + rl (rl the reduction's rounding
// error), e^(r+rl) − 1 = emh + eml to double width, and for |k| ≤ mb+1
// 2^k·emh + (2^k − 1) summed exactly (both terms are exact) before the
// low parts are added: one rounding in all. Larger k take
// 2^k·(1 + em) − 1.
func (f fb) expm1(x kir.Value) kir.Value {
	one := f.c(1)
	xc := f.clamp(x, float64(-f.terms(20, 40)), f.terms2(89, 710))
	hi, lo := f.ln2Parts()
	k := f.un(kir.RoundEven, f.mul(xc, f.c(f64(bigLog2E))))
	t := f.sub(xc, f.mul(k, f.c(hi))) // exact
	kl := f.mul(k, f.c(lo))
	r := f.sub(t, kl)
	rl := f.sub(f.sub(t, r), kl)
	tail := f.add(f.expm1Tail(r), f.mul(rl, f.add(one, r)))
	emh := f.add(r, tail)
	eml := f.add(f.sub(r, emh), tail)
	small := f.le(k, f.c(float64(f.mb()+1)))
	p := f.pow2(f.sel(small, f.toInt(k), f.cu(0)))
	h, e := f.twoSum(f.mul(p, emh), f.sub(p, one))
	near := f.add(h, f.add(e, f.mul(p, eml)))
	far := f.sub(f.scale(f.add(emh, one), k), one)
	r2 := f.sel(small, near, far)
	r2 = f.sel(f.eq(x, f.c(0)), x, r2)
	return f.sel(f.isNaN(x), x, r2)
}

// expParts returns k and ph + pl (a double-width significand near 1)
// with e^x = 2^k·(ph + pl), for x within ±(the width's exponent range):
// e^r − 1 by its series, 1 added exactly (ph + pl), and the rounding
// error of r itself folded into pl.
func (f fb) expParts(x kir.Value) (k, ph, pl kir.Value) {
	hi, lo := f.ln2Parts()
	k = f.un(kir.RoundEven, f.mul(x, f.c(f64(bigLog2E))))
	t := f.sub(x, f.mul(k, f.c(hi))) // exact
	kl := f.mul(k, f.c(lo))
	r := f.sub(t, kl)
	rl := f.sub(f.sub(t, r), kl) // t − kl = r + rl
	q := f.expm1Poly(r)
	one := f.c(1)
	ph = f.add(one, q)
	pl = f.add(f.add(f.sub(one, ph), q), f.mul(rl, ph))
	return k, ph, pl
}

// terms2 is terms for float bounds.
func (f fb) terms2(a32, a64 float64) float64 {
	if f.w == 32 {
		return a32
	}
	return a64
}

// logParts reduces a positive finite x to k and f = m−1 with x = 2^k·m,
// m in [√½, √2), and returns k (a float), f and the correction c with
// log(m) = f + c (fdlibm's log1p kernel: s = f/(2+f)).
func (f fb) logParts(x kir.Value) (k, fr, c kir.Value) {
	m, ex := f.frexp(x)
	small := f.lt(m, f.c(math.Sqrt2/2))
	m = f.sel(small, f.add(m, m), m)
	k = f.sub(f.toFloat(ex), f.sel(small, f.c(1), f.c(0)))
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
func (f fb) logSpecial(x, r kir.Value) kir.Value {
	r = f.sel(f.isInf(x), x, r)
	r = f.sel(f.or(f.lt(x, f.c(0)), f.isNaN(x)), f.nan(), r)
	return f.sel(f.eq(x, f.c(0)), f.c(math.Inf(-1)), r)
}

// logCore is log(x) for positive finite x.
func (f fb) logCore(x kir.Value) kir.Value {
	k, fr, c := f.logParts(x)
	hi, lo := f.ln2Parts()
	return f.add(f.mul(k, f.c(hi)), f.add(fr, f.add(c, f.mul(k, f.c(lo)))))
}

// log is the natural logarithm.
func (f fb) log(x kir.Value) kir.Value { return f.logSpecial(x, f.logCore(x)) }

// log2 is k + log(m)·log2(e) (exact at powers of two), log2(e) in two
// parts.
func (f fb) log2(x kir.Value) kir.Value {
	k, fr, c := f.logParts(x)
	h, rest := split(bigLog2E, f.terms(12, 26))
	l := f64(rest)
	// (fr + c)·log2e with fr·h exact-ish: fr·h + (fr·l + c·log2e)
	hf := f.splitHi(fr)
	tf := f.add(f.sub(fr, hf), c)
	lm := f.add(f.mul(hf, f.c(l)), f.mul(tf, f.c(h+l)))
	return f.logSpecial(x, f.add(k, f.add(f.mul(hf, f.c(h)), lm)))
}

// log10 is k·log10(2) + log(m)·log10(e), both constants in two parts.
func (f fb) log10(x kir.Value) kir.Value {
	k, fr, c := f.logParts(x)
	h2, r2 := split(bigLog102, f.terms(12, 26))
	he, re := split(bigLog10E, f.terms(12, 26))
	hf := f.splitHi(fr)
	tf := f.add(f.sub(fr, hf), c)
	hi := f.add(f.mul(k, f.c(h2)), f.mul(hf, f.c(he)))
	lo := f.add(f.mul(k, f.c(f64(r2))), f.add(f.mul(hf, f.c(f64(re))), f.mul(tf, f.c(f64(bigLog10E)))))
	return f.logSpecial(x, f.add(hi, lo))
}

// log1p is log(1+x): u = 1 + x with its rounding error e (exact, by a
// two-sum), log u by log's kernel, and log(1 + e/u) ≈ e/u added to the
// small terms (fdlibm's correction); x itself where u rounds to 1.
func (f fb) log1p(x kir.Value) kir.Value {
	one := f.c(1)
	u, e := f.twoSum(one, x)
	k, fr, c := f.logParts(u)
	hi, lo := f.ln2Parts()
	corr := f.div(e, u)
	r := f.add(f.mul(k, f.c(hi)), f.add(fr, f.add(c, f.add(corr, f.mul(k, f.c(lo))))))
	r = f.sel(f.eq(u, one), x, r)
	r = f.sel(f.eq(x, f.c(-1)), f.c(math.Inf(-1)), r)
	r = f.sel(f.lt(x, f.c(-1)), f.nan(), r)
	r = f.sel(f.isInf(x), f.sel(f.gt(x, f.c(0)), x, f.nan()), r)
	return f.sel(f.isNaN(x), x, r)
}
