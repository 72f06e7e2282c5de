package spirv

import "math"

// The error functions. erf uses its Taylor series below ½; erfc(a) for
// a ≥ ½ is e^(−a²)·g(a), where g = erfcx is a Taylor polynomial around
// the middle of [½, 1¼) and [1¼, 2) (its coefficients follow from g' =
// 2a·g − 2/√π) and a continued fraction from 2 on; e^(−a²) splits a² into
// an exact head and a small tail.

// erfSeries returns erf(a) for |a| < ½.
func (f fb) erfSeries(a uint32) uint32 {
	z := f.mul(a, a)
	cs := series(f.terms(8, 14), func(n int) float64 {
		return 2 / math.SqrtPi * math.Pow(-1, float64(n)) / (fact(n) * float64(2*n+1))
	})
	return f.mul(a, f.poly(z, cs...))
}

// erfcxCoeffs returns n Taylor coefficients of e^(a²)·erfc(a) at a0.
func erfcxCoeffs(a0 float64, n int) []float64 {
	c := make([]float64, n)
	c[0] = math.Erfc(a0) * math.Exp(a0*a0)
	prev := 0.0
	for k := 0; k+1 < n; k++ {
		v := 2*a0*c[k] + 2*prev
		if k == 0 {
			v -= 2 / math.SqrtPi
		}
		prev = c[k]
		c[k+1] = v / float64(k+1)
	}
	return c
}

// expNegSquare returns e^(−a²), splitting a = ah + al with ah of half the
// mantissa, so that a² = ah² + al·(a+ah) with ah² exact.
func (f fb) expNegSquare(a uint32) uint32 {
	mask := uint64(0xfffff000)
	if f.w == 64 {
		mask = ^uint64(1<<27 - 1)
	}
	ah := f.fromBits(f.e.val(f.uint(), opBitwiseAnd, f.bits(a), f.cu(mask)))
	al := f.sub(a, ah)
	return f.mul(f.exp(f.neg(f.mul(ah, ah))), f.exp(f.neg(f.mul(al, f.add(a, ah)))))
}

// erfcTail returns erfc(a) for a ≥ ½ (a may be +Inf or NaN).
func (f fb) erfcTail(a uint32) uint32 {
	return f.call1("erfc_tail", a, func(a uint32) uint32 {
		n := f.terms(12, 20)
		poly := func(lo, hi float64) uint32 {
			a0 := (lo + hi) / 2
			return f.poly(f.sub(a, f.c(a0)), erfcxCoeffs(a0, n)...)
		}
		g := f.sel(f.lt(a, f.c(1.25)), poly(0.5, 1.25), poly(1.25, 2))
		// continued fraction: 1/(√π·t), t = a + ½/(a + 1/(a + 3/2/(a + …)))
		ac := f.clamp(a, 2, 1e4)
		t := ac
		for k := f.terms(20, 60); k >= 1; k-- {
			t = f.add(ac, f.div(f.c(float64(k)/2), t))
		}
		cf := f.div(f.c(f64(bigSqrtPiI)), t)
		g = f.sel(f.lt(a, f.c(2)), g, cf)
		r := f.mul(f.expNegSquare(ac), g)
		r = f.sel(f.lt(a, f.c(2)), f.mul(f.expNegSquare(a), g), r)
		r = f.sel(f.gt(a, f.c(1e4)), f.c(0), r)
		return f.sel(f.isNaN(a), a, r)
	})
}

// erf is the error function.
func (f fb) erf(x uint32) uint32 {
	return f.call1("erf", x, func(x uint32) uint32 {
		a := f.abs(x)
		r := f.sub(f.c(1), f.erfcTail(a))
		r = f.sel(f.lt(a, f.c(0.5)), f.erfSeries(a), r)
		return f.copySign(r, x)
	})
}

// erfc is the complementary error function: 1 − erf(x) for |x| < ½,
// erfc(|x|) or 2 − erfc(|x|) beyond.
func (f fb) erfc(x uint32) uint32 {
	return f.call1("erfc", x, func(x uint32) uint32 {
		a := f.abs(x)
		tail := f.erfcTail(a)
		r := f.sel(f.lt(x, f.c(0)), f.sub(f.c(2), tail), tail)
		return f.sel(f.lt(a, f.c(0.5)), f.sub(f.c(1), f.erfSeries(x)), r)
	})
}
