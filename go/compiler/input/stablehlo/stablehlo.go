package stablehlo

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// rewriter is core's Rewriter with the StableHLO, CHLO and complex-value
// conversions as methods.
type rewriter struct{ *core.Rewriter }

// Lower converts one StableHLO op (other than stablehlo.return) in place.
func Lower(r *core.Rewriter, b *ir.Builder, op *ir.Operation) error {
	return (&rewriter{r}).stablehlo(b, op)
}

// LowerCHLO converts one CHLO op in place.
func LowerCHLO(r *core.Rewriter, b *ir.Builder, op *ir.Operation) error {
	return (&rewriter{r}).chlo(b, op)
}

// TouchesComplex reports ops, of any dialect, with a complex result or a
// complex (or complex-pair) operand: LowerComplex converts them.
func TouchesComplex(r *core.Rewriter, op *ir.Operation) bool {
	return (&rewriter{r}).touchesComplex(op)
}

// LowerComplex converts an op on complex values, which are carried as
// real tensors with a trailing dimension of 2 (see complex.go).
func LowerComplex(r *core.Rewriter, b *ir.Builder, op *ir.Operation) error {
	return (&rewriter{r}).complexOp(b, op)
}

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
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{body(bb, args[:len(op.Operands)], rt.Elem)}
	})
	r.Replace(op, g.Results)
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
		scalar := ops[core.ElemKind(ir.ElementTypeOf(op.Operands[0].Type))]
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
		r.Replace(op, c.Results)
		return nil
	case "optimization_barrier":
		var ts []ir.Type
		for _, v := range op.Results {
			ts = append(ts, v.Type)
		}
		bar := b.Create("util.optimization_barrier", op.Operands, ts)
		r.Replace(op, bar.Results)
		return nil
	case "negate", "not", "sign", "logistic", "is_finite":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return core.UnaryScalar(bb, name, args[0], elem)
		})
	case "compare":
		dir := regexp.MustCompile(`comparison_direction ([A-Z]+)`).FindStringSubmatch(attrText(op, "comparison_direction"))
		if dir == nil {
			return ir.OpErrorf(op, "has no comparison_direction")
		}
		et := ir.ElementTypeOf(op.Operands[0].Type)
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			if ir.IsFloat(et) {
				return core.Cmp(bb, "arith.cmpf", hloDirections[dir[1]][0], args[0], args[1])
			}
			p := hloDirections[dir[1]][1]
			if u, ok := hloUnsignedCmp[dir[1]]; ok && (core.ElemKind(et) == 2 || core.IsBool(et)) {
				p = u
			}
			return core.Cmp(bb, "arith.cmpi", p, args[0], args[1])
		})
	case "select":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return bb.Create("arith.select", args, []ir.Type{elem}).Result(0)
		})
	case "clamp":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			mx := hloElementwise["maximum"][core.ElemKind(elem)]
			mn := hloElementwise["minimum"][core.ElemKind(elem)]
			lo := bb.Create(mx, []*ir.Value{args[1], args[0]}, []ir.Type{elem}).Result(0)
			return bb.Create(mn, []*ir.Value{lo, args[2]}, []ir.Type{elem}).Result(0)
		})
	case "convert":
		return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
			return core.ConvertScalar(bb, args[0], elem)
		})
	case "bitcast_convert":
		if core.Width(ir.ElementTypeOf(op.Operands[0].Type)) != core.Width(ir.ElementTypeOf(op.Results[0].Type)) {
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

func attrText(op *ir.Operation, name string) string {
	if a := op.Attr(name); a != nil {
		return a.String()
	}
	return ""
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
