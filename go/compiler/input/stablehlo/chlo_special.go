package stablehlo

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Special functions on f64 scalars in a generic body (CHLO's erf_inv,
// lgamma, digamma, polygamma, zeta and bessel_i1e). Each is accurate to a
// few f64 ulps over its domain, far inside what f32 results need.

// poly evaluates c[0] + c[1]·x + … by Horner's rule.
func (f fb) poly(x *ir.Value, c ...float64) *ir.Value {
	p := f.c(c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		p = f.add(f.mul(p, x), f.c(c[i]))
	}
	return p
}

// fracPart is x - floor(x) (sin(πx) and tan(πx) reduce to it exactly).
func (f fb) fracPart(x *ir.Value) *ir.Value { return f.sub(x, f.math("floor", x)) }

// erfInv starts from Giles' single-precision approximation and refines
// it with two Newton steps on erf(y) = x.
func (f fb) erfInv(x *ir.Value) *ir.Value {
	w := f.neg(f.math("log", f.mul(f.sub(f.c(1), x), f.add(f.c(1), x))))
	central := f.poly(f.sub(w, f.c(2.5)), 1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
		-4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)
	tail := f.poly(f.sub(f.math("sqrt", w), f.c(3)), 2.83297682, 1.00167406, 0.00943887047, -0.0076224613,
		0.00573950773, -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257)
	y := f.mul(f.sel(f.cmp(fOLT, w, f.c(5)), central, tail), x)
	for i := 0; i < 2; i++ {
		d := f.mul(f.c(2/math.SqrtPi), f.math("exp", f.neg(f.mul(y, y))))
		y = f.sub(y, f.div(f.sub(f.math("erf", y), x), d))
	}
	one := f.cmp(fOEQ, f.abs(x), f.c(1))
	return f.sel(one, f.op("math.copysign", f.c(math.Inf(1)), x), y)
}

// lanczos are the coefficients of the Lanczos approximation with g = 7.
var lanczos = []float64{0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
	-176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7}

// lgammaPos is log Γ(x) for x ≥ 0.5.
func (f fb) lgammaPos(x *ir.Value) *ir.Value {
	z := f.sub(x, f.c(1))
	a := f.c(lanczos[0])
	for i := 1; i < len(lanczos); i++ {
		a = f.add(a, f.div(f.c(lanczos[i]), f.add(z, f.c(float64(i)))))
	}
	t := f.add(z, f.c(7.5))
	s := f.sub(f.mul(f.add(z, f.c(0.5)), f.math("log", t)), t)
	return f.add(f.add(f.c(0.5*math.Log(2*math.Pi)), s), f.math("log", a))
}

// lgamma is log|Γ(x)|, by reflection below 0.5 (+inf at the poles).
func (f fb) lgamma(x *ir.Value) *ir.Value {
	small := f.cmp(fOLT, x, f.c(0.5))
	refl := f.sub(f.c(1), x)
	pos := f.lgammaPos(f.sel(small, refl, x))
	s := f.abs(f.math("sin", f.mul(f.c(math.Pi), f.fracPart(x))))
	r := f.sub(f.math("log", f.div(f.c(math.Pi), s)), pos)
	v := f.sel(small, r, pos)
	// log Γ(1) = log Γ(2) = 0 exactly.
	one := f.op2("arith.ori", f.cmp(fOEQ, x, f.c(1)), f.cmp(fOEQ, x, f.c(2)))
	v = f.sel(one, f.c(0), v)
	return f.sel(f.cmp(fOEQ, f.abs(x), f.c(math.Inf(1))), f.c(math.Inf(1)), v)
}

// digammaPos is ψ(x) for x ≥ 0.5: ψ(x) = ψ(x+6) − Σ 1/(x+i), with the
// asymptotic series at x+6.
func (f fb) digammaPos(x *ir.Value) *ir.Value {
	acc := f.c(0)
	for i := 0; i < 6; i++ {
		acc = f.add(acc, f.div(f.c(1), f.add(x, f.c(float64(i)))))
	}
	y := f.add(x, f.c(6))
	inv2 := f.div(f.c(1), f.mul(y, y))
	series := f.mul(inv2, f.poly(inv2, 1.0/12, -1.0/120, 1.0/252, -1.0/240, 1.0/132, -691.0/32760, 1.0/12))
	psi := f.sub(f.sub(f.math("log", y), f.div(f.c(0.5), y)), series)
	return f.sub(psi, acc)
}

// digamma is ψ(x), by reflection below 0.5 (NaN at the poles, as XLA).
func (f fb) digamma(x *ir.Value) *ir.Value {
	small := f.cmp(fOLT, x, f.c(0.5))
	pos := f.digammaPos(f.sel(small, f.sub(f.c(1), x), x))
	fr := f.fracPart(x)
	r := f.sub(pos, f.div(f.c(math.Pi), f.math("tan", f.mul(f.c(math.Pi), fr))))
	v := f.sel(small, r, pos)
	pole := f.bb.Create("arith.andi", []*ir.Value{small, f.cmp(fOEQ, fr, f.c(0))}, []ir.Type{ir.I1}).Result(0)
	return f.sel(pole, f.c(math.NaN()), v)
}

// zeta is the Hurwitz zeta function ζ(s, q) = Σ (q+k)^-s for s > 1,
// q > 0, by Euler–Maclaurin summation after 9 terms.
func (f fb) zeta(s, q *ir.Value) *ir.Value {
	const n = 9
	sum := f.c(0)
	for k := 0; k < n; k++ {
		sum = f.add(sum, f.op("math.powf", f.add(q, f.c(float64(k))), f.neg(s)))
	}
	a := f.add(q, f.c(n))
	pa := f.op("math.powf", a, f.neg(s)) // a^-s
	sum = f.add(sum, f.div(f.mul(pa, a), f.sub(s, f.c(1))))
	sum = f.add(sum, f.mul(f.c(0.5), pa))
	// Σ B2j/(2j)! · s(s+1)…(s+2j-2) · a^(-s-2j+1)
	bern := []float64{1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510}
	fact := 1.0
	rising := s                         // s(s+1)…(s+2j-2)
	pw := f.div(pa, a)                  // a^(-s-1)
	inva2 := f.div(f.c(1), f.mul(a, a)) // a^-2
	for j := 1; j <= len(bern); j++ {
		fact *= float64((2*j - 1) * 2 * j)
		sum = f.add(sum, f.mul(f.c(bern[j-1]/fact), f.mul(rising, pw)))
		rising = f.mul(rising, f.mul(f.add(s, f.c(float64(2*j-1))), f.add(s, f.c(float64(2*j)))))
		pw = f.mul(pw, inva2)
	}
	nan := f.op2("arith.ori", f.cmp(fOLT, s, f.c(1)), f.cmp(fOLT, q, f.c(0)))
	v := f.sel(nan, f.c(math.NaN()), sum)
	return f.sel(f.cmp(fOEQ, s, f.c(1)), f.c(math.Inf(1)), v)
}

// polygamma is ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! ζ(n+1, x) for integer n ≥ 1 and
// ψ(x) for n = 0 (NaN for other n).
func (f fb) polygamma(n, x *ir.Value) *ir.Value {
	// n! by Γ(n+1) = exp(lgamma(n+1)), exact enough for the n that fit.
	fact := f.math("exp", f.lgammaPos(f.add(n, f.c(1))))
	sign := f.sel(f.cmp(fOEQ, f.fracPart(f.mul(n, f.c(0.5))), f.c(0)), f.c(-1), f.c(1))
	v := f.mul(f.mul(sign, fact), f.zeta(f.add(n, f.c(1)), x))
	v = f.sel(f.cmp(fOEQ, n, f.c(0)), f.digamma(x), v)
	bad := f.op2("arith.ori", f.cmp(fOLT, n, f.c(0)), f.cmp(fUNE, n, f.math("floor", n)))
	return f.sel(bad, f.c(math.NaN()), v)
}

// besselI1e is e^-|x| I₁(x): the power series up to |x| = 20, the
// asymptotic expansion beyond.
func (f fb) besselI1e(x *ir.Value) *ir.Value {
	ax := f.abs(x)
	small := f.sel(f.cmp(fOGT, ax, f.c(20)), f.c(20), ax)
	h := f.mul(small, f.c(0.5))
	h2 := f.mul(h, h)
	term, sum := h, h
	for k := 0; k < 60; k++ {
		term = f.mul(term, f.div(h2, f.c(float64((k+1)*(k+2)))))
		sum = f.add(sum, term)
	}
	series := f.mul(sum, f.math("exp", f.neg(small)))
	// e^-x I₁(x) ~ (2πx)^-½ Σ (-1)^k a_k x^-k, a_k = Π_{j≤k}(4 - (2j-1)²) / (k! 8^k)
	large := f.sel(f.cmp(fOGT, ax, f.c(20)), ax, f.c(20))
	inv := f.div(f.c(1), large)
	coef := make([]float64, 14)
	coef[0] = 1
	for k := 1; k < len(coef); k++ {
		coef[k] = -coef[k-1] * (4 - float64((2*k-1)*(2*k-1))) / (float64(k) * 8)
	}
	asym := f.div(f.poly(inv, coef...), f.math("sqrt", f.mul(f.c(2*math.Pi), large)))
	v := f.sel(f.cmp(fOGT, ax, f.c(20)), asym, series)
	return f.op("math.copysign", v, x)
}
