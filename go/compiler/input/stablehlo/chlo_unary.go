package stablehlo

import (
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// CHLO's element-wise ops beyond the broadcasting binary ones (what JAX
// emits for jax.numpy and jax.scipy.special): the ones with a math-dialect
// counterpart map to it; the special functions (erf_inv, lgamma, digamma,
// polygamma, zeta, bessel_i1e) are computed in f64 (chlo_special.go) and
// rounded to the element type.

var chloMath = map[string]string{
	"acos": "math.acos", "acosh": "math.acosh", "asin": "math.asin", "asinh": "math.asinh", "atan": "math.atan",
	"atanh": "math.atanh", "cosh": "math.cosh", "sinh": "math.sinh", "tan": "math.tan", "erf": "math.erf",
	"erfc": "math.erfc",
}

// chloSpecial are the f64 special functions of one or two arguments.
var chloSpecial = map[string]func(f fb, xs []*ir.Value) *ir.Value{
	"erf_inv":    func(f fb, xs []*ir.Value) *ir.Value { return f.erfInv(xs[0]) },
	"lgamma":     func(f fb, xs []*ir.Value) *ir.Value { return f.lgamma(xs[0]) },
	"digamma":    func(f fb, xs []*ir.Value) *ir.Value { return f.digamma(xs[0]) },
	"bessel_i1e": func(f fb, xs []*ir.Value) *ir.Value { return f.besselI1e(xs[0]) },
	"polygamma":  func(f fb, xs []*ir.Value) *ir.Value { return f.polygamma(xs[0], xs[1]) },
	"zeta":       func(f fb, xs []*ir.Value) *ir.Value { return f.zeta(xs[0], xs[1]) },
}

// chloExtra converts CHLO's unary ops, next_after, polygamma, zeta and
// constant_like; done is false for other CHLO ops.
func (r *rewriter) chloExtra(b *ir.Builder, op *ir.Operation) (bool, error) {
	name := strings.TrimPrefix(op.Name, "chlo.")
	if len(op.Results) != 1 {
		return false, nil
	}
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok {
		return false, nil
	}
	elem := ir.ElementTypeOf(op.Operands[0].Type)
	ft, isFloat := elem.(*ir.FloatType)
	needFloat := func() error {
		return ir.OpErrorf(op, "is not defined for elements of type %v", elem)
	}
	switch {
	case chloMath[name] != "":
		if !isFloat {
			return true, needFloat()
		}
		return true, r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, e ir.Type) *ir.Value {
			return bb.Create(chloMath[name], args, []ir.Type{e}).Result(0)
		})
	case chloSpecial[name] != nil:
		if !isFloat {
			return true, needFloat()
		}
		if want := map[bool]int{true: 2, false: 1}[name == "polygamma" || name == "zeta"]; len(op.Operands) != want {
			return true, ir.OpErrorf(op, "needs %d operands", want)
		}
		fn := chloSpecial[name]
		return true, r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, e ir.Type) *ir.Value {
			f := fb{bb, ir.F64}
			var xs []*ir.Value
			for _, a := range args {
				xs = append(xs, core.Cast(bb, a, ir.F64))
			}
			return core.Cast(bb, fn(f, xs), ft)
		})
	}
	switch name {
	case "square":
		return true, r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, e ir.Type) *ir.Value {
			if isFloat {
				return bb.Create("arith.mulf", []*ir.Value{args[0], args[0]}, []ir.Type{e}).Result(0)
			}
			return core.BinOp(bb, "arith.muli", args[0], args[0])
		})
	case "is_inf", "is_pos_inf", "is_neg_inf":
		if !isFloat {
			return true, needFloat()
		}
		return true, r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, e ir.Type) *ir.Value {
			f := fb{bb, ft}
			pos := f.cmp(fOEQ, args[0], f.c(math.Inf(1)))
			neg := f.cmp(fOEQ, args[0], f.c(math.Inf(-1)))
			switch name {
			case "is_pos_inf":
				return pos
			case "is_neg_inf":
				return neg
			}
			return bb.Create("arith.ori", []*ir.Value{pos, neg}, []ir.Type{ir.I1}).Result(0)
		})
	case "next_after":
		if !isFloat || (ft.Kind != ir.KindF32 && ft.Kind != ir.KindF64) {
			return true, ir.OpErrorf(op, "on %v elements is not supported by gree (f32 and f64 only)", elem)
		}
		return true, r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, e ir.Type) *ir.Value {
			return fb{bb, ft}.nextAfter(args[0], args[1])
		})
	case "constant_like":
		v, ok := op.Attr("value").(ir.TypedAttr)
		if !ok {
			return true, ir.OpErrorf(op, "needs a value attribute")
		}
		var c ir.TypedAttr = v
		if fa, ok := v.(*ir.FloatAttr); ok {
			if et, ok := rt.Elem.(*ir.FloatType); ok {
				c = ir.FloatAttrOf(fa.Value, et)
			}
		} else if ia, ok := v.(*ir.IntegerAttr); ok {
			c = ir.IntAttr(ia.Value, rt.Elem)
		}
		n := len(rt.Dims)
		out := linalg.EmptyLike(b, op.Operands[0], rt.Elem)
		g := linalg.BuildGeneric(b, []*ir.Value{b.Constant(c)}, []*ir.Value{out}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, rt))
		r.Replace(op, g.Results)
		return true, nil
	}
	return false, nil
}

// nextAfter is the float after x in the direction of y (IEEE nextafter).
func (f fb) nextAfter(x, y *ir.Value) *ir.Value {
	it := &ir.IntegerType{Width: core.Width(f.t)}
	g := ib{f.bb}
	bits := g.cast("arith.bitcast", x, it)
	// Away from zero when y lies beyond x on x's side, else toward it.
	away := f.bb.Create("arith.xori", []*ir.Value{f.cmp(fOGT, y, x), f.cmp(fOLT, x, f.c(0))}, []ir.Type{ir.I1}).Result(0)
	step := f.bb.Create("arith.select", []*ir.Value{away, g.c(1, it), g.c(-1, it)}, []ir.Type{it}).Result(0)
	moved := g.cast("arith.bitcast", g.add(bits, step), f.t)
	// From ±0 the next float is the smallest subnormal with y's sign.
	tiny := f.op("math.copysign", g.cast("arith.bitcast", g.c(1, it), f.t), y)
	v := f.sel(f.cmp(fOEQ, x, f.c(0)), tiny, moved)
	v = f.sel(f.cmp(fOEQ, x, y), y, v)
	return f.sel(f.cmp(fUNO, x, y), f.add(x, y), v)
}
