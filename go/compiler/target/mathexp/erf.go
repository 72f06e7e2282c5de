package mathexp

import (
	"math"
	"math/big"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// The error functions, the SPIR-V library's algorithm
// (go/compiler/target/spirv/erf.go): erf uses its Taylor series below ½;
// erfc(a) for a ≥ ½ is e^(−a²)·g(a), where g = erfcx is a Taylor
// polynomial around the middle of [½, 1¼), [1¼, 2), [2, 2¾) and [2¾, 3½)
// (its coefficients follow from g' = 2a·g − 2/√π, computed in 256-bit
// floats) and a continued fraction from 3½ on;
// e^(−a²) splits a into a head whose square is exact and a tail, so that
// a² = ah² + al·(a+ah) loses nothing. erf(±Inf) = ±1, erfc(+Inf) = 0,
// erfc(−Inf) = 2.

// erfSeries returns erf(a) for |a| < ½.
func (f fb) erfSeries(a kir.Value) kir.Value {
	z := f.mul(a, a)
	cs := series(f.terms(8, 14), func(n int) float64 {
		return 2 / math.SqrtPi * math.Pow(-1, float64(n)) / (fact(n) * float64(2*n+1))
	})
	return f.mul(a, f.poly(z, cs...))
}

// erfcxCoeffs returns n Taylor coefficients of e^(a²)·erfc(a) at a0,
// computed in 256-bit floats (erf by its series, e^(a0²) by its own)
// and rounded.
func erfcxCoeffs(a0 float64, n int) []float64 {
	const prec = 256
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	a := nf(a0)
	a2 := new(big.Float).SetPrec(prec).Mul(a, a)
	// erf(a0) = 2/√π · Σ (−1)^k a^(2k+1)/(k!(2k+1))
	sum, pw := nf(0), new(big.Float).SetPrec(prec).Set(a)
	for k := 0; k < 400; k++ {
		t := new(big.Float).SetPrec(prec).Quo(pw, nf(float64(2*k+1)))
		if k%2 == 1 {
			t.Neg(t)
		}
		sum.Add(sum, t)
		pw.Mul(pw, a2)
		pw.Quo(pw, nf(float64(k+1)))
	}
	sum.Mul(sum, nf(2))
	sum.Mul(sum, bigSqrtPiI)
	erfc := new(big.Float).SetPrec(prec).Sub(nf(1), sum)
	// e^(a0²)
	e, t := nf(1), nf(1)
	for k := 1; k < 400; k++ {
		t.Mul(t, a2)
		t.Quo(t, nf(float64(k)))
		e.Add(e, t)
	}
	c := make([]*big.Float, n)
	c[0] = new(big.Float).SetPrec(prec).Mul(erfc, e)
	twoA := nf(2 * a0)
	for k := 0; k+1 < n; k++ {
		// g' = 2a·g − 2/√π: c[k+1]·(k+1) = 2a0·c[k] + 2·c[k−1] (− 2/√π at k = 0)
		v := new(big.Float).SetPrec(prec).Mul(twoA, c[k])
		if k == 0 {
			v.Sub(v, new(big.Float).SetPrec(prec).Mul(nf(2), bigSqrtPiI))
		} else {
			v.Add(v, new(big.Float).SetPrec(prec).Mul(nf(2), c[k-1]))
		}
		c[k+1] = v.Quo(v, nf(float64(k+1)))
	}
	out := make([]float64, n)
	for i, v := range c {
		out[i] = f64(v)
	}
	return out
}

// expNegSquareMul returns e^(−a²)·(g + gl): e^(−ah²) = 2^k·(ph + pl) to double
// width (expParts), times g with the product's error from an FMA, and
// the factor e^d = e^(−al·(a+ah)) folded in as 1 + expm1(d); one
// rounding, in the final scaling.
func (f fb) expNegSquareMul(a, g, gl kir.Value) kir.Value {
	ah := f.splitHi(a)
	d := f.neg(f.mul(f.sub(a, ah), f.add(a, ah)))
	lo, _ := f.expLimits()
	k, ph, pl := f.expParts(f.clamp(f.neg(f.mul(ah, ah)), lo, 0))
	m := f.mul(ph, g)
	ml := f.add(f.fma(ph, g, f.neg(m)), f.add(f.mul(pl, g), f.mul(ph, gl)))
	return f.scale(f.add(m, f.add(ml, f.mul(m, f.expm1(d)))), k)
}

// cfFrom is where erfcx's continued fraction takes over from its Taylor
// polynomials (around the middles of [½, 1¼), [1¼, 2), [2, 2¾), [2¾, 3½)).
const cfFrom = 3.5

// erfcTail returns erfc(a) for a ≥ ½ (a may be +Inf or NaN).
func (f fb) erfcTail(a kir.Value) kir.Value {
	n := f.terms(12, 20)
	poly := func(lo, hi float64) kir.Value {
		a0 := (lo + hi) / 2
		return f.poly(f.sub(a, f.c(a0)), erfcxCoeffs(a0, n)...)
	}
	g := poly(2.75, 3.5)
	for _, lo := range []float64{2, 1.25, 0.5} {
		g = f.sel(f.lt(a, f.c(lo+0.75)), poly(lo, lo+0.75), g)
	}
	// continued fraction: 1/(√π·t), t = a + ½/(a + 1/(a + 3/2/(a + …)))
	ac := f.clamp(a, cfFrom, 1e4)
	t := ac
	for k := f.terms(20, 60); k >= 2; k-- {
		t = f.add(ac, f.div(f.c(float64(k)/2), t))
	}
	// the last step and the quotient to double width: t = th + tl,
	// cf = (1/√π)/t = q + ql
	u := f.div(f.c(0.5), t)
	th := f.add(ac, u)
	tl := f.add(f.sub(ac, th), u)
	ch, rest := split(bigSqrtPiI, f.terms(24, 53))
	q := f.div(f.c(ch), th)
	e := f.sub(f.fma(f.neg(q), th, f.c(ch)), f.mul(q, tl))
	ql := f.div(f.add(e, f.c(f64(rest))), th)
	two := f.lt(a, f.c(cfFrom))
	g = f.sel(two, g, q)
	gl := f.sel(two, f.c(0), ql)
	r := f.expNegSquareMul(f.sel(two, a, ac), g, gl)
	r = f.sel(f.gt(a, f.c(1e4)), f.c(0), r)
	return f.sel(f.isNaN(a), a, r)
}

// erf is the error function.
func (f fb) erf(x kir.Value) kir.Value {
	a := f.abs(x)
	r := f.sub(f.c(1), f.erfcTail(a))
	r = f.sel(f.lt(a, f.c(0.5)), f.erfSeries(a), r)
	r = f.sel(f.isNaN(x), x, r)
	return f.copySign(r, x)
}

// erfc is the complementary error function: 1 − erf(x) for |x| < ½,
// erfc(|x|) or 2 − erfc(|x|) beyond.
func (f fb) erfc(x kir.Value) kir.Value {
	a := f.abs(x)
	tail := f.erfcTail(a)
	r := f.sel(f.lt(x, f.c(0)), f.sub(f.c(2), tail), tail)
	return f.sel(f.lt(a, f.c(0.5)), f.erfcSmall(x), r)
}

// erfcSmall is 1 − erf(x) for |x| < ½: 1 − x·c0 by one FMA (c0 = 2/√π
// in two parts), then the series' remaining terms.
func (f fb) erfcSmall(x kir.Value) kir.Value {
	z := f.mul(x, x)
	cs := series(f.terms(8, 14), func(n int) float64 {
		return 2 / math.SqrtPi * math.Pow(-1, float64(n)) / (fact(n) * float64(2*n+1))
	})
	c0h, rest := split(bigSqrtPiI, f.terms(24, 53))
	c0h, c0l := 2*c0h, 2*f64(rest)
	tail := f.add(f.mul(z, f.poly(z, cs[1:]...)), f.c(c0l))
	return f.sub(f.fma(f.neg(x), f.c(c0h), f.c(1)), f.mul(x, tail))
}
