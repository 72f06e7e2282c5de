package mathexp

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Hyperbolic functions and their inverses, the SPIR-V library's
// algorithms (go/compiler/target/spirv/trig.go), which follow Go's
// math package:
//
//   - sinh, cosh: their Taylor series below 1, else (e^a ± e^−a)/2 with
//     e^a as 2^k times a double-width significand, the halving folded
//     into the scale so that nothing overflows early; tanh: its Taylor
//     series below 0.55, em/(em+2) with em = expm1(2|x|) below 0.625,
//     1 − 2/(e^(2|x|)+1) above.
//   - asinh, acosh, atanh: Go's formulas through log and log1p, with its
//     thresholds (2^28, 2, ½, 2^−28).

// evenSeries evaluates Σ cs[k]·x^(2k) (cs[0] = 1) as 1 + z·P(z).
func (f fb) evenSeries(x kir.Value, cs []float64) kir.Value {
	z := f.mul(x, x)
	return f.add(f.c(1), f.mul(z, f.poly(z, cs[1:]...)))
}

// coshSinh returns cosh or sinh of a = |x|: below 1 by its Taylor
// series; above, e^a = 2^k·(ph + pl) (expParts) and
// 2^(k−1)·(ph + (pl ± 2^(−2k)/ph)), scaled in two steps, so that the
// result overflows only where the function does.
func (f fb) coshSinh(x kir.Value, sinh bool) kir.Value {
	a := f.abs(x)
	var small kir.Value
	if sinh {
		small = f.oddSeries(a, series(f.terms(7, 11), func(i int) float64 { return 1 / fact(2*i+1) }))
	} else {
		small = f.evenSeries(a, series(f.terms(7, 11), func(i int) float64 { return 1 / fact(2*i) }))
	}
	k, ph, pl := f.expParts(f.sel(f.gt(a, f.c(f.terms2(90, 712))), f.c(f.terms2(90, 712)), a))
	kc := f.toInt(f.sel(f.gt(k, f.c(40)), f.c(40), k))
	t := f.div(f.pow2(f.bin(kir.Mul, kc, f.cu(-2))), ph)
	if sinh {
		t = f.neg(t)
	}
	big := f.scale(f.add(ph, f.add(pl, t)), f.sub(k, f.c(1)))
	r := f.sel(f.lt(a, f.c(1)), small, big)
	return f.sel(f.isNaN(x), x, r)
}

func (f fb) sinh(x kir.Value) kir.Value { return f.copySign(f.coshSinh(x, true), x) }

func (f fb) cosh(x kir.Value) kir.Value { return f.coshSinh(x, false) }

// tanh: its Taylor series below 0.55 (coefficients from T' = 1 − T²),
// em/(em+2) with em = expm1(2|x|) below 1.25, 1 − 2/(e^(2|x|)+1) above.
func (f fb) tanh(x kir.Value) kir.Value {
	two := f.c(2)
	a := f.abs(x)
	// Past 10 (f32) or 20 (f64), tanh rounds to 1; clamping keeps
	// expm1 finite.
	a2 := f.mul(f.sel(f.gt(a, f.c(f.terms2(10, 20))), f.c(f.terms2(10, 20)), a), two)
	em := f.expm1(a2)
	r := f.div(em, f.add(em, two))
	r = f.sel(f.isNaN(x), x, r)
	return f.copySign(r, x)
}

func (f fb) asinh(x kir.Value) kir.Value {
	one, two := f.c(1), f.c(2)
	a := f.abs(x)
	a2 := f.mul(a, a)
	sq := f.sqrt(f.add(a2, one))
	large := f.add(f.log(a), f.c(math.Ln2))
	mid := f.log(f.add(f.mul(two, a), f.div(one, f.add(sq, a))))
	small := f.log1p(f.add(a, f.div(a2, f.add(one, sq))))
	r := f.sel(f.gt(a, f.c(1<<28)), large, f.sel(f.gt(a, two), mid, small))
	r = f.sel(f.isInf(x), a, r)
	r = f.sel(f.isNaN(x), x, r)
	return f.copySign(r, x)
}

func (f fb) acosh(x kir.Value) kir.Value {
	one, two := f.c(1), f.c(2)
	large := f.add(f.log(x), f.c(math.Ln2))
	mid := f.log(f.sub(f.mul(two, x), f.div(one, f.add(x, f.sqrt(f.sub(f.mul(x, x), one))))))
	t := f.sub(x, one)
	small := f.log1p(f.add(t, f.sqrt(f.add(f.mul(two, t), f.mul(t, t)))))
	r := f.sel(f.gt(x, f.c(1<<28)), large, f.sel(f.gt(x, two), mid, small))
	r = f.sel(f.isInf(x), x, r)
	return f.sel(f.not(f.ge(x, one)), f.nan(), r)
}

func (f fb) atanh(x kir.Value) kir.Value {
	one, half := f.c(1), f.c(0.5)
	a := f.abs(x)
	t := f.add(a, a)
	om := f.sub(one, a)
	small := f.mul(half, f.log1p(f.add(t, f.div(f.mul(t, a), om))))
	big := f.mul(half, f.log1p(f.div(t, om)))
	r := f.sel(f.lt(a, half), small, big)
	r = f.sel(f.lt(a, f.c(math.Ldexp(1, -28))), a, r)
	r = f.sel(f.eq(a, one), f.inf(), r)
	r = f.copySign(r, x)
	return f.sel(f.not(f.le(a, one)), f.nan(), r)
}
