package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Scalar builders for generic bodies and host code, shared by the input
// dialects: element kinds, comparisons, casts and constants.

// ElemKind classifies an element type: 0 float, 1 signed or signless
// integer, 2 unsigned integer.
func ElemKind(t ir.Type) int {
	if ir.IsFloat(t) {
		return 0
	}
	if it, ok := t.(*ir.IntegerType); ok && it.Signedness == ir.Unsigned {
		return 2
	}
	return 1
}

// IsBool reports i1.
func IsBool(t ir.Type) bool { it, ok := t.(*ir.IntegerType); return ok && it.Width == 1 }

// Cmp creates the comparison name (arith.cmpi or arith.cmpf) with
// predicate pred.
func Cmp(bb *ir.Builder, name string, pred int64, a, c *ir.Value) *ir.Value {
	return bb.Create(name, []*ir.Value{a, c}, []ir.Type{ir.I1}, ir.Named("predicate", ir.IntAttr(pred, ir.I64))).Result(0)
}

// UnaryScalar applies the StableHLO element-wise op name (negate, not,
// sign, logistic, is_finite) to one element of type elem; other names
// return x.
func UnaryScalar(bb *ir.Builder, name string, x *ir.Value, elem ir.Type) *ir.Value {
	f := ir.IsFloat(elem)
	zero := func() *ir.Value {
		if f {
			return bb.Constant(ir.FloatAttrOf(0, elem.(*ir.FloatType)))
		}
		return bb.Constant(ir.IntAttr(0, elem))
	}
	switch name {
	case "negate":
		if f {
			return bb.Create("arith.negf", []*ir.Value{x}, []ir.Type{elem}).Result(0)
		}
		return BinOp(bb, "arith.subi", zero(), x)
	case "not":
		return BinOp(bb, "arith.xori", x, bb.Constant(ir.IntAttr(-1, elem)))
	case "sign":
		if f {
			// copysign(1, x) for non-zero x, 0 for ±0, NaN for NaN.
			one := bb.Constant(ir.FloatAttrOf(1, elem.(*ir.FloatType)))
			s := bb.Create("math.copysign", []*ir.Value{one, x}, []ir.Type{elem}).Result(0)
			isZero := Cmp(bb, "arith.cmpf", 1, x, zero())
			s = bb.Create("arith.select", []*ir.Value{isZero, x, s}, []ir.Type{elem}).Result(0)
			isNaN := Cmp(bb, "arith.cmpf", 14, x, x)
			return bb.Create("arith.select", []*ir.Value{isNaN, x, s}, []ir.Type{elem}).Result(0)
		}
		pos := bb.Create("arith.extui", []*ir.Value{Cmp(bb, "arith.cmpi", 4, x, zero())}, []ir.Type{elem}).Result(0)
		neg := bb.Create("arith.extui", []*ir.Value{Cmp(bb, "arith.cmpi", 2, x, zero())}, []ir.Type{elem}).Result(0)
		return BinOp(bb, "arith.subi", pos, neg)
	case "logistic":
		one := bb.Constant(ir.FloatAttrOf(1, elem.(*ir.FloatType)))
		e := bb.Create("math.exp", []*ir.Value{bb.Create("arith.negf", []*ir.Value{x}, []ir.Type{elem}).Result(0)}, []ir.Type{elem}).Result(0)
		return bb.Create("arith.divf", []*ir.Value{one, bb.Create("arith.addf", []*ir.Value{one, e}, []ir.Type{elem}).Result(0)}, []ir.Type{elem}).Result(0)
	case "is_finite":
		return bb.Create("math.isfinite", []*ir.Value{x}, []ir.Type{elem}).Result(0)
	}
	return x
}

// ConvertScalar is stablehlo.convert on one element: float/int/bool in any
// direction (bools convert as 0/1; to bool is "!= 0").
func ConvertScalar(bb *ir.Builder, x *ir.Value, to ir.Type) *ir.Value {
	from := x.Type
	switch {
	case ir.TypesEqual(from, to):
		return x
	case IsBool(to):
		if ir.IsFloat(from) {
			return Cmp(bb, "arith.cmpf", 13, x, bb.Constant(ir.FloatAttrOf(0, from.(*ir.FloatType))))
		}
		return Cmp(bb, "arith.cmpi", 1, x, bb.Constant(ir.IntAttr(0, from)))
	case IsBool(from) && ir.IsFloat(to):
		return bb.Create("arith.uitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case IsBool(from):
		return bb.Create("arith.extui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case !ir.IsFloat(from) && ir.IsFloat(to) && ElemKind(from) == 2:
		return bb.Create("arith.uitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case ir.IsFloat(from) && !ir.IsFloat(to) && ElemKind(to) == 2:
		return bb.Create("arith.fptoui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case !ir.IsFloat(from) && !ir.IsFloat(to) && ElemKind(from) == 2 && Width(to) > Width(from):
		return bb.Create("arith.extui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	}
	return Cast(bb, x, to)
}

// ToIndex casts an integer scalar to index (unsigned elements zero-extend).
func ToIndex(bb *ir.Builder, v *ir.Value) *ir.Value {
	if ElemKind(v.Type) == 2 && Width(v.Type) < 64 {
		v = bb.Create("arith.extui", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0)
	}
	return bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.Index}).Result(0)
}

// ClampStart clamps a slice start to [0, dim - size], as StableHLO does.
func ClampStart(bb *ir.Builder, start *ir.Value, dim, size int64) *ir.Value {
	lo := bb.Create("arith.maxsi", []*ir.Value{start, bb.Constant(ir.IntAttr(0, ir.Index))}, []ir.Type{ir.Index}).Result(0)
	return bb.Create("arith.minsi", []*ir.Value{lo, bb.Constant(ir.IntAttr(dim-size, ir.Index))}, []ir.Type{ir.Index}).Result(0)
}

// IntConst creates the integer constant v of type t.
func IntConst(bb *ir.Builder, v int64, t ir.Type) *ir.Value { return bb.Constant(ir.IntAttr(v, t)) }

// CastTo applies the cast op name to x unless x already has type t.
func CastTo(bb *ir.Builder, name string, x *ir.Value, t ir.Type) *ir.Value {
	if ir.TypesEqual(x.Type, t) {
		return x
	}
	return bb.Create(name, []*ir.Value{x}, []ir.Type{t}).Result(0)
}

// ExtendInt sign-extends (or zero-extends when unsigned) an integer to t.
func ExtendInt(bb *ir.Builder, x *ir.Value, t ir.Type, unsigned bool) *ir.Value {
	if Width(x.Type) >= Width(t) {
		return CastTo(bb, "arith.trunci", x, t)
	}
	if unsigned || IsBool(x.Type) {
		return CastTo(bb, "arith.extui", x, t)
	}
	return CastTo(bb, "arith.extsi", x, t)
}

// Widen widens a float or a signed integer to t.
func Widen(bb *ir.Builder, x *ir.Value, t ir.Type) *ir.Value {
	if ir.IsFloat(t) {
		return Cast(bb, x, t)
	}
	return ExtendInt(bb, x, t, false)
}

// ScalarAttr is the constant v as an attribute of the float or integer
// type t.
func ScalarAttr(t ir.Type, v int64) ir.TypedAttr {
	if ft, ok := t.(*ir.FloatType); ok {
		return ir.FloatAttrOf(float64(v), ft)
	}
	return ir.IntAttr(v, t)
}
