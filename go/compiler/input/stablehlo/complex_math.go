package stablehlo

import (
	"math"
	"regexp"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// fb builds float scalar arithmetic of one type in a generic body.
type fb struct {
	bb *ir.Builder
	t  ir.Type
}

func (f fb) op(name string, xs ...*ir.Value) *ir.Value {
	return f.bb.Create(name, xs, []ir.Type{f.t}).Result(0)
}

func (f fb) c(v float64) *ir.Value { return f.bb.Constant(ir.FloatAttrOf(v, f.t.(*ir.FloatType))) }

func (f fb) add(a, b *ir.Value) *ir.Value { return f.op("arith.addf", a, b) }

func (f fb) sub(a, b *ir.Value) *ir.Value { return f.op("arith.subf", a, b) }

func (f fb) mul(a, b *ir.Value) *ir.Value { return f.op("arith.mulf", a, b) }

func (f fb) div(a, b *ir.Value) *ir.Value { return f.op("arith.divf", a, b) }

func (f fb) neg(a *ir.Value) *ir.Value { return f.op("arith.negf", a) }

func (f fb) abs(a *ir.Value) *ir.Value { return f.op("math.absf", a) }

func (f fb) math(n string, a *ir.Value) *ir.Value { return f.op("math."+n, a) }

func (f fb) sel(c, a, b *ir.Value) *ir.Value {
	return f.bb.Create("arith.select", []*ir.Value{c, a, b}, []ir.Type{f.t}).Result(0)
}

func (f fb) cmp(pred int64, a, b *ir.Value) *ir.Value {
	return core.Cmp(f.bb, "arith.cmpf", pred, a, b)
}

// Float comparison predicates (arith.cmpf).
const (
	fOEQ = 1
	fOGT = 2
	fOGE = 3
	fOLT = 4
	fUNE = 13
	fUNO = 14
)

// hypot is |re + i·im|, scaled to avoid overflow.
func (f fb) hypot(re, im *ir.Value) *ir.Value {
	a, b := f.abs(re), f.abs(im)
	hi := f.op("arith.maximumf", a, b)
	lo := f.op("arith.minimumf", a, b)
	q := f.div(lo, hi)
	h := f.mul(hi, f.math("sqrt", f.add(f.c(1), f.mul(q, q))))
	h = f.sel(f.cmp(fOEQ, hi, f.c(0)), f.c(0), h)
	// An infinite part makes the modulus infinite even next to a NaN.
	return f.sel(f.cmp(fOEQ, hi, f.c(math.Inf(1))), hi, h)
}

func (f fb) cadd(x, y complexValue) complexValue {
	return complexValue{f.add(x.re, y.re), f.add(x.im, y.im)}
}

func (f fb) csub(x, y complexValue) complexValue {
	return complexValue{f.sub(x.re, y.re), f.sub(x.im, y.im)}
}

func (f fb) cmul(x, y complexValue) complexValue {
	return complexValue{f.sub(f.mul(x.re, y.re), f.mul(x.im, y.im)), f.add(f.mul(x.re, y.im), f.mul(x.im, y.re))}
}

// cdiv divides by Smith's method (no overflow for large divisors).
func (f fb) cdiv(x, y complexValue) complexValue {
	big := f.cmp(fOGE, f.abs(y.re), f.abs(y.im))
	// |c| >= |d|: r = d/c, den = c + d·r, ((a + b·r), (b - a·r)) / den.
	r1 := f.div(y.im, y.re)
	d1 := f.add(y.re, f.mul(y.im, r1))
	re1, im1 := f.div(f.add(x.re, f.mul(x.im, r1)), d1), f.div(f.sub(x.im, f.mul(x.re, r1)), d1)
	// otherwise r = c/d, den = c·r + d, ((a·r + b), (b·r - a)) / den.
	r2 := f.div(y.re, y.im)
	d2 := f.add(f.mul(y.re, r2), y.im)
	re2, im2 := f.div(f.add(f.mul(x.re, r2), x.im), d2), f.div(f.sub(f.mul(x.im, r2), x.re), d2)
	return complexValue{f.sel(big, re1, re2), f.sel(big, im1, im2)}
}

func (f fb) cexp(x complexValue) complexValue {
	e := f.math("exp", x.re)
	return complexValue{f.mul(e, f.math("cos", x.im)), f.mul(e, f.math("sin", x.im))}
}

func (f fb) clog(x complexValue) complexValue {
	return complexValue{f.math("log", f.hypot(x.re, x.im)), f.op("math.atan2", x.im, x.re)}
}

// coshSinh returns cosh(x) and sinh(x) (sinh through expm1, accurate near 0).
func (f fb) coshSinh(x *ir.Value) (*ir.Value, *ir.Value) {
	half := f.c(0.5)
	ch := f.mul(half, f.add(f.math("exp", x), f.math("exp", f.neg(x))))
	sh := f.mul(half, f.sub(f.math("expm1", x), f.math("expm1", f.neg(x))))
	return ch, sh
}

// csqrt is the principal square root.
func (f fb) csqrt(x complexValue) complexValue {
	m := f.hypot(x.re, x.im)
	t := f.math("sqrt", f.mul(f.c(0.5), f.add(m, f.abs(x.re))))
	u := f.div(f.abs(x.im), f.add(t, t))
	pos := f.cmp(fOGE, x.re, f.c(0))
	re := f.sel(pos, t, u)
	im := f.sel(pos, f.div(x.im, f.add(t, t)), f.op("math.copysign", t, x.im))
	isZero := f.cmp(fOEQ, t, f.c(0))
	return complexValue{f.sel(isZero, f.c(0), re), f.sel(isZero, x.im, im)}
}

// complexScalar computes one StableHLO op on complex scalars; ok is false
// for ops without a complex form here.
func (f fb) complexScalar(name string, xs []complexValue) (complexValue, bool) {
	if !complexScalarKnown(name, len(xs)) {
		return complexValue{}, false
	}
	one := complexValue{f.c(1), f.c(0)}
	switch name {
	case "add":
		return complexValue{f.add(xs[0].re, xs[1].re), f.add(xs[0].im, xs[1].im)}, true
	case "subtract":
		return complexValue{f.sub(xs[0].re, xs[1].re), f.sub(xs[0].im, xs[1].im)}, true
	case "multiply":
		return f.cmul(xs[0], xs[1]), true
	case "divide":
		return f.cdiv(xs[0], xs[1]), true
	case "power":
		// z^w = exp(w·log z); 0^w is 0 (1 for w = 0).
		p := f.cexp(f.cmul(xs[1], f.clog(xs[0])))
		zz := f.op2("arith.andi", f.cmp(fOEQ, xs[0].re, f.c(0)), f.cmp(fOEQ, xs[0].im, f.c(0)))
		wz := f.op2("arith.andi", f.cmp(fOEQ, xs[1].re, f.c(0)), f.cmp(fOEQ, xs[1].im, f.c(0)))
		return complexValue{f.sel(zz, f.sel(wz, f.c(1), f.c(0)), p.re), f.sel(zz, f.c(0), p.im)}, true
	case "negate":
		return complexValue{f.neg(xs[0].re), f.neg(xs[0].im)}, true
	case "conj":
		return complexValue{xs[0].re, f.neg(xs[0].im)}, true
	case "exponential":
		return f.cexp(xs[0]), true
	case "exponential_minus_one":
		e := f.cexp(xs[0])
		// Re(e^z - 1) = expm1(a)·cos b + (cos b - 1), with cos b - 1 = -2 sin²(b/2).
		s := f.math("sin", f.mul(f.c(0.5), xs[0].im))
		re := f.sub(f.mul(f.math("expm1", xs[0].re), f.math("cos", xs[0].im)), f.mul(f.c(2), f.mul(s, s)))
		return complexValue{re, e.im}, true
	case "log":
		return f.clog(xs[0]), true
	case "log_plus_one":
		return f.clog(complexValue{f.add(xs[0].re, f.c(1)), xs[0].im}), true
	case "sqrt":
		return f.csqrt(xs[0]), true
	case "rsqrt":
		return f.cdiv(one, f.csqrt(xs[0])), true
	case "sine":
		ch, sh := f.coshSinh(xs[0].im)
		return complexValue{f.mul(f.math("sin", xs[0].re), ch), f.mul(f.math("cos", xs[0].re), sh)}, true
	case "cosine":
		ch, sh := f.coshSinh(xs[0].im)
		return complexValue{f.mul(f.math("cos", xs[0].re), ch), f.neg(f.mul(f.math("sin", xs[0].re), sh))}, true
	case "tanh", "tan":
		// tanh(a+bi) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b); tan z = -i tanh(i z).
		z := xs[0]
		if name == "tan" {
			z = complexValue{f.neg(z.im), z.re}
		}
		ch, sh := f.coshSinh(f.add(z.re, z.re))
		den := f.add(ch, f.math("cos", f.add(z.im, z.im)))
		t := complexValue{f.div(sh, den), f.div(f.math("sin", f.add(z.im, z.im)), den)}
		// Large |a|: tanh → ±1 (the quotient above overflows to NaN).
		large := f.cmp(fOGT, f.abs(z.re), f.c(20))
		t = complexValue{f.sel(large, f.op("math.copysign", f.c(1), z.re), t.re), f.sel(large, f.c(0), t.im)}
		if name == "tan" {
			t = complexValue{t.im, f.neg(t.re)}
		}
		return t, true
	case "cosh", "sinh":
		// cosh(a+bi) = cosh a·cos b + i sinh a·sin b; sinh(a+bi) = sinh a·cos b + i cosh a·sin b
		ch, sh := f.coshSinh(xs[0].re)
		c, s := f.math("cos", xs[0].im), f.math("sin", xs[0].im)
		if name == "cosh" {
			return complexValue{f.mul(ch, c), f.mul(sh, s)}, true
		}
		return complexValue{f.mul(sh, c), f.mul(ch, s)}, true
	case "asin", "acos":
		// asin z = -i·log(i·z + √(1 - z²)); acos z = π/2 - asin z
		z := xs[0]
		w := f.csqrt(f.csub(one, f.cmul(z, z)))
		l := f.clog(complexValue{f.sub(w.re, z.im), f.add(w.im, z.re)})
		a := complexValue{l.im, f.neg(l.re)}
		if name == "acos" {
			return complexValue{f.sub(f.c(math.Pi/2), a.re), f.neg(a.im)}, true
		}
		return a, true
	case "atan":
		// atan z = (i/2)·(log(1 - i·z) - log(1 + i·z))
		z := xs[0]
		d := f.csub(f.clog(complexValue{f.add(f.c(1), z.im), f.neg(z.re)}), f.clog(complexValue{f.sub(f.c(1), z.im), z.re}))
		return complexValue{f.mul(f.c(-0.5), d.im), f.mul(f.c(0.5), d.re)}, true
	case "asinh":
		// asinh z = log(z + √(z² + 1))
		z := xs[0]
		w := f.csqrt(f.cadd(f.cmul(z, z), one))
		return f.clog(f.cadd(z, w)), true
	case "acosh":
		// acosh z = log(z + √(z + 1)·√(z - 1))
		z := xs[0]
		w := f.cmul(f.csqrt(f.cadd(z, one)), f.csqrt(f.csub(z, one)))
		return f.clog(f.cadd(z, w)), true
	case "atanh":
		// atanh z = (log(1 + z) - log(1 - z)) / 2
		z := xs[0]
		d := f.csub(f.clog(f.cadd(one, z)), f.clog(f.csub(one, z)))
		return complexValue{f.mul(f.c(0.5), d.re), f.mul(f.c(0.5), d.im)}, true
	case "sign":
		m := f.hypot(xs[0].re, xs[0].im)
		isZero := f.cmp(fOEQ, m, f.c(0))
		return complexValue{f.sel(isZero, f.c(0), f.div(xs[0].re, m)), f.sel(isZero, f.c(0), f.div(xs[0].im, m))}, true
	}
	return complexValue{}, false
}

var complexDirection = regexp.MustCompile(`comparison_direction ([A-Z]+)`)

// complexElementwise converts the element-wise ops on complex values.
func (r *rewriter) complexElementwise(b *ir.Builder, op *ir.Operation, name string) error {
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "with complex elements is not supported by gree yet")
	}
	n := logicalRank(op)
	var et ir.Type
	for _, v := range op.Operands {
		if r.Pairs[v] {
			et = ir.ElementTypeOf(v.Type)
		}
	}
	if rt, e, ok := complexTensor(op.Results[0].Type); ok && rt != nil {
		et = e
	}
	if _, ok := et.(*ir.FloatType); !ok {
		return ir.OpErrorf(op, "with complex elements of %v is not supported by gree yet", et)
	}
	f := func(bb *ir.Builder) fb { return fb{bb, et} }
	var body func(bb *ir.Builder, xs []complexValue) complexValue
	switch name {
	case "complex":
		body = func(bb *ir.Builder, xs []complexValue) complexValue { return complexValue{xs[0].re, xs[1].re} }
	case "real", "imag":
		if !r.Pairs[op.Operands[0]] {
			return ir.OpErrorf(op, "needs a complex operand")
		}
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			if name == "imag" {
				return complexValue{re: xs[0].im}
			}
			return complexValue{re: xs[0].re}
		}
	case "abs":
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			return complexValue{re: f(bb).hypot(xs[0].re, xs[0].im)}
		}
	case "convert":
		to := ir.ElementTypeOf(op.Results[0].Type)
		if ct, ok := to.(*ir.ComplexType); ok {
			to = ct.Elem
		}
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			re := core.ConvertScalar(bb, xs[0].re, to)
			if xs[0].im == nil {
				return complexValue{re, bb.Constant(ir.FloatAttrOf(0, to.(*ir.FloatType)))}
			}
			return complexValue{re, core.ConvertScalar(bb, xs[0].im, to)}
		}
	case "compare":
		dir := complexDirection.FindStringSubmatch(attrText(op, "comparison_direction"))
		if dir == nil || (dir[1] != "EQ" && dir[1] != "NE") {
			return ir.OpErrorf(op, "orders complex numbers (only EQ and NE compare them)")
		}
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			g := f(bb)
			if dir[1] == "EQ" {
				return complexValue{re: g.op2("arith.andi", g.cmp(fOEQ, xs[0].re, xs[1].re), g.cmp(fOEQ, xs[0].im, xs[1].im))}
			}
			return complexValue{re: g.op2("arith.ori", g.cmp(fUNE, xs[0].re, xs[1].re), g.cmp(fUNE, xs[0].im, xs[1].im))}
		}
	case "select":
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			g := f(bb)
			return complexValue{g.sel(xs[0].re, xs[1].re, xs[2].re), g.sel(xs[0].re, xs[1].im, xs[2].im)}
		}
	default:
		if !complexScalarKnown(name, len(op.Operands)) {
			return ir.OpErrorf(op, "with complex elements is not supported by gree yet")
		}
		body = func(bb *ir.Builder, xs []complexValue) complexValue {
			for i := range xs {
				if xs[i].im == nil { // a real operand of a mixed op
					xs[i].im = f(bb).c(0)
				}
			}
			y, _ := f(bb).complexScalar(name, xs)
			return y
		}
	}
	g := r.complexGeneric(b, op, n, body)
	r.replacePairs(op, g.Results)
	return nil
}

// op2 builds a two-operand op whose result has the operands' type.
func (f fb) op2(name string, a, b *ir.Value) *ir.Value {
	return f.bb.Create(name, []*ir.Value{a, b}, []ir.Type{a.Type}).Result(0)
}

// complexScalarKnown reports whether complexScalar knows name with n
// operands.
func complexScalarKnown(name string, n int) bool {
	switch name {
	case "add", "subtract", "multiply", "divide", "power":
		return n == 2
	case "negate", "conj", "exponential", "exponential_minus_one", "log", "log_plus_one", "sqrt", "rsqrt", "sine", "cosine", "tanh", "tan", "sign",
		"cosh", "sinh", "asin", "acos", "atan", "asinh", "acosh", "atanh":
		return n == 1
	}
	return false
}
