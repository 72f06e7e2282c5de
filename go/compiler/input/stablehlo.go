package input

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// StableHLO element-wise ops: the scalar op for float, signed and
// unsigned integer elements ("" where undefined).
var hloElementwise = map[string][3]string{
	"abs": {"math.absf", "math.absi", ""}, "add": {"arith.addf", "arith.addi", "arith.addi"},
	"subtract": {"arith.subf", "arith.subi", "arith.subi"}, "multiply": {"arith.mulf", "arith.muli", "arith.muli"},
	"divide": {"arith.divf", "arith.divsi", "arith.divui"}, "remainder": {"arith.remf", "arith.remsi", "arith.remui"},
	"maximum": {"arith.maximumf", "arith.maxsi", "arith.maxui"}, "minimum": {"arith.minimumf", "arith.minsi", "arith.minui"},
	"exponential": {"math.exp", "", ""}, "exponential_minus_one": {"math.expm1", "", ""}, "log": {"math.log", "", ""},
	"log_plus_one": {"math.log1p", "", ""}, "sqrt": {"math.sqrt", "", ""}, "rsqrt": {"math.rsqrt", "", ""},
	"cbrt": {"math.cbrt", "", ""}, "tanh": {"math.tanh", "", ""}, "sine": {"math.sin", "", ""}, "cosine": {"math.cos", "", ""},
	"tan": {"math.tan", "", ""}, "floor": {"math.floor", "", ""}, "ceil": {"math.ceil", "", ""},
	"round_nearest_afz": {"math.round", "", ""}, "round_nearest_even": {"math.roundeven", "", ""},
	"power": {"math.powf", "", ""}, "atan2": {"math.atan2", "", ""}, "and": {"", "arith.andi", "arith.andi"},
	"or": {"", "arith.ori", "arith.ori"}, "xor": {"", "arith.xori", "arith.xori"},
	"shift_left": {"", "arith.shli", "arith.shli"}, "shift_right_arithmetic": {"", "arith.shrsi", "arith.shrsi"},
	"shift_right_logical": {"", "arith.shrui", "arith.shrui"}, "popcnt": {"", "math.ctpop", "math.ctpop"},
	"count_leading_zeros": {"", "math.ctlz", "math.ctlz"}, "erf": {"math.erf", "", ""},
}

func elemKind(t ir.Type) int {
	if ir.IsFloat(t) {
		return 0
	}
	if it, ok := t.(*ir.IntegerType); ok && it.Signedness == ir.Unsigned {
		return 2
	}
	return 1
}

// hloGeneric builds an element-wise generic over op's result shape: every
// tensor operand is read through the identity map (rank-0 operands are
// broadcast), and body computes the element.
func (r *rewriter) hloGeneric(b *ir.Builder, op *ir.Operation, body func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value) error {
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok {
		return ir.OpErrorf(op, "needs a ranked tensor result")
	}
	n := len(rt.Dims)
	var shapeSrc *ir.Value
	var maps []*ir.AffineMap
	for _, v := range op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok {
			return ir.OpErrorf(op, "has a non-tensor operand")
		}
		if len(t.Dims) == n {
			maps = append(maps, linalg.Identity(n))
			if shapeSrc == nil {
				shapeSrc = v
			}
		} else if len(t.Dims) == 0 {
			maps = append(maps, &ir.AffineMap{NumDims: n})
		} else {
			return ir.OpErrorf(op, "mixes operand ranks")
		}
	}
	var out *ir.Value
	if shapeSrc != nil {
		out = linalg.EmptyLike(b, shapeSrc, rt.Elem)
	} else {
		out = b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	}
	maps = append(maps, linalg.Identity(n))
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{out}, maps, parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{body(bb, args[:len(op.Operands)], rt.Elem)}
	})
	r.replace(op, g.Results)
	return nil
}

var hloDirections = map[string][2]int64{ // direction → cmpf, cmpi (signed) predicates
	"EQ": {1, 0}, "NE": {13, 1}, "LT": {4, 2}, "LE": {5, 3}, "GT": {2, 4}, "GE": {3, 5},
}

var hloUnsignedCmp = map[string]int64{"LT": 6, "LE": 7, "GT": 8, "GE": 9}

// stablehlo converts a StableHLO op to core tensor ops.
func (r *rewriter) stablehlo(b *ir.Builder, op *ir.Operation) error {
	name := strings.TrimPrefix(op.Name, "stablehlo.")
	if name == "custom_call" {
		return ir.OpErrorf(op, "calls the custom target %s, which gree cannot run (custom calls are opaque to the compiler)", attrText(op, "call_target_name"))
	}
	if done, err := r.stablehloExtra(b, op, name); done || err != nil {
		return err
	}
	if len(op.Results) == 0 {
		return ir.OpErrorf(op, "is not supported by gree yet")
	}
	if ops, ok := hloElementwise[name]; ok {
		scalar := ops[elemKind(ir.ElementTypeOf(op.Operands[0].Type))]
		if scalar == "" {
			return ir.OpErrorf(op, "is not defined for elements of type %s", ir.ElementTypeOf(op.Operands[0].Type))
		}
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return bb.Create(scalar, args, []ir.Type{elem}).Result(0)
		})
	}
	switch name {
	case "constant":
		c := b.Create("arith.constant", nil, []ir.Type{op.Results[0].Type}, ir.Named("value", op.Attr("value")))
		r.replace(op, c.Results)
		return nil
	case "optimization_barrier":
		var ts []ir.Type
		for _, v := range op.Results {
			ts = append(ts, v.Type)
		}
		bar := b.Create("util.optimization_barrier", op.Operands, ts)
		r.replace(op, bar.Results)
		return nil
	case "negate", "not", "sign", "logistic", "is_finite":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return hloUnary(bb, name, args[0], elem)
		})
	case "compare":
		dir := regexp.MustCompile(`comparison_direction ([A-Z]+)`).FindStringSubmatch(attrText(op, "comparison_direction"))
		if dir == nil {
			return ir.OpErrorf(op, "has no comparison_direction")
		}
		et := ir.ElementTypeOf(op.Operands[0].Type)
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			if ir.IsFloat(et) {
				return cmpOp(bb, "arith.cmpf", hloDirections[dir[1]][0], args[0], args[1])
			}
			p := hloDirections[dir[1]][1]
			if u, ok := hloUnsignedCmp[dir[1]]; ok && (elemKind(et) == 2 || isBool(et)) {
				p = u
			}
			return cmpOp(bb, "arith.cmpi", p, args[0], args[1])
		})
	case "select":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return bb.Create("arith.select", args, []ir.Type{elem}).Result(0)
		})
	case "clamp":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			mx := hloElementwise["maximum"][elemKind(elem)]
			mn := hloElementwise["minimum"][elemKind(elem)]
			lo := bb.Create(mx, []*ir.Value{args[1], args[0]}, []ir.Type{elem}).Result(0)
			return bb.Create(mn, []*ir.Value{lo, args[2]}, []ir.Type{elem}).Result(0)
		})
	case "convert":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return hloConvert(bb, args[0], elem)
		})
	case "bitcast_convert":
		if width(ir.ElementTypeOf(op.Operands[0].Type)) != width(ir.ElementTypeOf(op.Results[0].Type)) {
			return r.hloBitcastResize(b, op)
		}
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return bb.Create("arith.bitcast", args, []ir.Type{elem}).Result(0)
		})
	}
	if done, err := r.stablehloIndexing(b, op, name); done || err != nil {
		return err
	}
	return r.stablehloStructural(b, op, name)
}

func isBool(t ir.Type) bool { it, ok := t.(*ir.IntegerType); return ok && it.Width == 1 }

func attrText(op *ir.Operation, name string) string {
	if a := op.Attr(name); a != nil {
		return a.String()
	}
	return ""
}

func cmpOp(bb *ir.Builder, name string, pred int64, a, c *ir.Value) *ir.Value {
	return bb.Create(name, []*ir.Value{a, c}, []ir.Type{ir.I1}, ir.Named("predicate", ir.IntAttr(pred, ir.I64))).Result(0)
}

func hloUnary(bb *ir.Builder, name string, x *ir.Value, elem ir.Type) *ir.Value {
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
		return iop(bb, "arith.subi", zero(), x)
	case "not":
		return iop(bb, "arith.xori", x, bb.Constant(ir.IntAttr(-1, elem)))
	case "sign":
		if f {
			// copysign(1, x) for non-zero x, 0 for ±0, NaN for NaN.
			one := bb.Constant(ir.FloatAttrOf(1, elem.(*ir.FloatType)))
			s := bb.Create("math.copysign", []*ir.Value{one, x}, []ir.Type{elem}).Result(0)
			isZero := cmpOp(bb, "arith.cmpf", 1, x, zero())
			s = bb.Create("arith.select", []*ir.Value{isZero, x, s}, []ir.Type{elem}).Result(0)
			isNaN := cmpOp(bb, "arith.cmpf", 14, x, x)
			return bb.Create("arith.select", []*ir.Value{isNaN, x, s}, []ir.Type{elem}).Result(0)
		}
		pos := bb.Create("arith.extui", []*ir.Value{cmpOp(bb, "arith.cmpi", 4, x, zero())}, []ir.Type{elem}).Result(0)
		neg := bb.Create("arith.extui", []*ir.Value{cmpOp(bb, "arith.cmpi", 2, x, zero())}, []ir.Type{elem}).Result(0)
		return iop(bb, "arith.subi", pos, neg)
	case "logistic":
		one := bb.Constant(ir.FloatAttrOf(1, elem.(*ir.FloatType)))
		e := bb.Create("math.exp", []*ir.Value{bb.Create("arith.negf", []*ir.Value{x}, []ir.Type{elem}).Result(0)}, []ir.Type{elem}).Result(0)
		return bb.Create("arith.divf", []*ir.Value{one, bb.Create("arith.addf", []*ir.Value{one, e}, []ir.Type{elem}).Result(0)}, []ir.Type{elem}).Result(0)
	case "is_finite":
		return bb.Create("math.isfinite", []*ir.Value{x}, []ir.Type{elem}).Result(0)
	}
	return x
}

// hloConvert is stablehlo.convert on one element: float/int/bool in any
// direction (bools convert as 0/1; to bool is "!= 0").
func hloConvert(bb *ir.Builder, x *ir.Value, to ir.Type) *ir.Value {
	from := x.Type
	switch {
	case ir.TypesEqual(from, to):
		return x
	case isBool(to):
		if ir.IsFloat(from) {
			return cmpOp(bb, "arith.cmpf", 13, x, bb.Constant(ir.FloatAttrOf(0, from.(*ir.FloatType))))
		}
		return cmpOp(bb, "arith.cmpi", 1, x, bb.Constant(ir.IntAttr(0, from)))
	case isBool(from) && ir.IsFloat(to):
		return bb.Create("arith.uitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case isBool(from):
		return bb.Create("arith.extui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case !ir.IsFloat(from) && ir.IsFloat(to) && elemKind(from) == 2:
		return bb.Create("arith.uitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case ir.IsFloat(from) && !ir.IsFloat(to) && elemKind(to) == 2:
		return bb.Create("arith.fptoui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case !ir.IsFloat(from) && !ir.IsFloat(to) && elemKind(from) == 2 && width(to) > width(from):
		return bb.Create("arith.extui", []*ir.Value{x}, []ir.Type{to}).Result(0)
	}
	return convert(bb, x, to)
}

// intsOf reads an integer list attribute (array<i64: …> or dense<…>).
func intsOf(op *ir.Operation, name string) []int64 {
	v, _ := intList(op, name)
	return v
}

var dotDims = regexp.MustCompile(`(lhs|rhs)_(batching|contracting)_dimensions = \[([0-9, ]*)\]`)

// dotDimensionNumbers parses #stablehlo.dot<…>.
func dotDimensionNumbers(text string) map[string][]int {
	out := map[string][]int{}
	for _, m := range dotDims.FindAllStringSubmatch(text, -1) {
		var ds []int
		for _, f := range strings.Split(m[3], ",") {
			if f = strings.TrimSpace(f); f != "" {
				n, _ := strconv.Atoi(f)
				ds = append(ds, n)
			}
		}
		out[m[1]+"_"+m[2]] = ds
	}
	return out
}
