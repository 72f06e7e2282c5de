package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// TOSA element-wise ops with one scalar op each: float and integer
// variants ("" where the spec does not define the op).
var tosaSimple = map[string][2]string{
	"add": {"arith.addf", "arith.addi"}, "sub": {"arith.subf", "arith.subi"},
	"intdiv": {"", "arith.divsi"}, "div": {"", "arith.divsi"}, // div: older TOSA's intdiv
	"pow": {"math.powf", ""},
	"abs": {"math.absf", "math.absi"}, "reciprocal": {"", ""}, "rsqrt": {"math.rsqrt", ""},
	"exp": {"math.exp", ""}, "log": {"math.log", ""}, "floor": {"math.floor", ""},
	"ceil": {"math.ceil", ""}, "sin": {"math.sin", ""}, "cos": {"math.cos", ""},
	"tanh": {"math.tanh", ""}, "erf": {"math.erf", ""},
	"bitwise_and": {"", "arith.andi"}, "bitwise_or": {"", "arith.ori"}, "bitwise_xor": {"", "arith.xori"},
	"logical_and": {"", "arith.andi"}, "logical_or": {"", "arith.ori"}, "logical_xor": {"", "arith.xori"},
	"logical_left_shift": {"", "arith.shli"}, "logical_right_shift": {"", "arith.shrui"},
	"clz": {"", "math.ctlz"},
}

// Comparison predicates: cmpf, cmpi signed, cmpi unsigned.
var tosaCompare = map[string][3]int64{"equal": {1, 0, 0}, "greater": {2, 4, 8}, "greater_equal": {3, 5, 9}}

// tosaElementwise converts the element-wise, comparison, logical, shift,
// select, clamp and cast ops; done is false for other ops.
func (r *rewriter) tosaElementwise(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	elem := rt.Elem
	if len(op.Operands) == 0 {
		return false, nil
	}
	in0 := ir.ElementTypeOf(op.Operands[0].Type)
	isF := ir.IsFloat(in0)
	kind := 1
	if isF {
		kind = 0
	}
	switch name {
	case "equal", "greater", "greater_equal", "cast", "mul", "select":
	default:
		if _, ok := tosaSimple[name]; ok || name == "reciprocal" || name == "sigmoid" || name == "negate" || name == "clamp" ||
			name == "maximum" || name == "minimum" || name == "logical_not" || name == "bitwise_not" || name == "arithmetic_right_shift" {
			if !ir.TypesEqual(in0, elem) {
				return true, ir.OpErrorf(op, "needs the result element type %s to match its input's (%s)", elem, in0)
			}
		}
	}
	if ops, ok := tosaSimple[name]; ok && name != "reciprocal" {
		scalar := ops[kind]
		if scalar == "" {
			return true, ir.OpErrorf(op, "is not defined for elements of type %s", in0)
		}
		n := 2
		switch name {
		case "abs", "rsqrt", "exp", "log", "floor", "ceil", "sin", "cos", "tanh", "erf", "clz":
			n = 1
		}
		if len(op.Operands) < n {
			return true, ir.OpErrorf(op, "expects %d operands", n)
		}
		return true, r.tosaMapGeneric(b, op, op.Operands[:n], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			if name == "logical_right_shift" || name == "logical_left_shift" {
				// Shift amounts outside [0, width) give 0, as the shift
				// is a whole-bit move of the value.
				w := int64(core.Width(elem))
				s := a[1]
				v := bb.Create(scalar, a, []ir.Type{elem}).Result(0)
				big := bb.Create("arith.cmpi", []*ir.Value{s, core.IntConst(bb, w, elem)}, []ir.Type{ir.I1}, ir.Named("predicate", ir.IntAttr(9, ir.I64))).Result(0)
				return sel(bb, big, core.IntConst(bb, 0, elem), v)
			}
			return bb.Create(scalar, a, []ir.Type{elem}).Result(0)
		})
	}
	if p, ok := tosaCompare[name]; ok {
		if len(op.Operands) != 2 {
			return true, ir.OpErrorf(op, "expects 2 operands")
		}
		return true, r.tosaMapGeneric(b, op, op.Operands, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			if isF {
				return core.Cmp(bb, "arith.cmpf", p[0], a[0], a[1])
			}
			if isUnsignedType(in0) || core.IsBool(in0) {
				return core.Cmp(bb, "arith.cmpi", p[2], a[0], a[1])
			}
			return core.Cmp(bb, "arith.cmpi", p[1], a[0], a[1])
		})
	}
	unary := func(f func(bb *ir.Builder, x *ir.Value) *ir.Value) (bool, error) {
		return true, r.tosaMapGeneric(b, op, op.Operands[:1], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value { return f(bb, a[0]) })
	}
	switch name {
	case "reciprocal", "sigmoid":
		if !isF {
			return true, ir.OpErrorf(op, "is not defined for elements of type %s", in0)
		}
		return unary(func(bb *ir.Builder, x *ir.Value) *ir.Value {
			one := cFloat(bb, 1, elem)
			if name == "sigmoid" {
				x = bb.Create("arith.addf", []*ir.Value{one, un(bb, "math.exp", un(bb, "arith.negf", x))}, []ir.Type{elem}).Result(0)
			}
			return bb.Create("arith.divf", []*ir.Value{one, x}, []ir.Type{elem}).Result(0)
		})
	case "logical_not", "bitwise_not":
		ones := int64(-1)
		if core.IsBool(elem) {
			ones = 1
		}
		return unary(func(bb *ir.Builder, x *ir.Value) *ir.Value {
			return core.BinOp(bb, "arith.xori", x, core.IntConst(bb, ones, elem))
		})
	case "maximum", "minimum":
		nm := map[string][3]string{"maximum": {"arith.maximumf", "arith.maxnumf", "arith.maxsi"}, "minimum": {"arith.minimumf", "arith.minnumf", "arith.minsi"}}[name]
		s := nm[2]
		if isF {
			s = nm[0]
			if tosaString(op, "nan_mode") == "IGNORE" {
				s = nm[1]
			}
		} else if isUnsignedType(in0) {
			s = map[string]string{"maximum": "arith.maxui", "minimum": "arith.minui"}[name]
		}
		return true, r.tosaMapGeneric(b, op, op.Operands[:2], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return bb.Create(s, a, []ir.Type{elem}).Result(0)
		})
	case "select":
		return true, r.tosaMapGeneric(b, op, op.Operands[:3], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value { return sel(bb, a[0], a[1], a[2]) })
	case "mul":
		return true, r.tosaMul(b, op, rt)
	case "negate":
		return true, r.tosaNegate(b, op, rt)
	case "arithmetic_right_shift":
		round := tosaBool(op, "round")
		return true, r.tosaMapGeneric(b, op, op.Operands[:2], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			w := int64(core.Width(elem))
			s := core.BinOp(bb, "arith.minsi", a[1], core.IntConst(bb, w-1, elem))
			v := core.BinOp(bb, "arith.shrsi", a[0], s)
			if !round {
				return v
			}
			// Add the last bit shifted out when the shift is positive.
			one := core.IntConst(bb, 1, elem)
			sm1 := core.BinOp(bb, "arith.maxsi", core.BinOp(bb, "arith.subi", s, one), core.IntConst(bb, 0, elem))
			bit := core.BinOp(bb, "arith.andi", core.BinOp(bb, "arith.shrsi", a[0], sm1), one)
			pos := core.Cmp(bb, "arith.cmpi", 4, s, core.IntConst(bb, 0, elem))
			return core.BinOp(bb, "arith.addi", v, sel(bb, pos, bit, core.IntConst(bb, 0, elem)))
		})
	case "clamp":
		return true, r.tosaClamp(b, op, rt)
	case "cast":
		return true, r.tosaMapGeneric(b, op, op.Operands[:1], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value { return tosaCast(bb, a[0], elem) })
	}
	return false, nil
}

// tosaMul: floats multiply; integers multiply in the result type, and an
// i32 product with shift > 0 is computed in 64 bits and rounded:
// (a·b + 2^(shift-1)) >> shift.
func (r *rewriter) tosaMul(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	elem := rt.Elem
	shift, _, err := tosaIntParam(op, 2, "shift")
	if err != nil {
		return err
	}
	return r.tosaMapGeneric(b, op, op.Operands[:2], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		if ir.IsFloat(elem) {
			return bb.Create("arith.mulf", a, []ir.Type{elem}).Result(0)
		}
		if shift <= 0 {
			return core.BinOp(bb, "arith.muli", core.ExtendInt(bb, a[0], elem, false), core.ExtendInt(bb, a[1], elem, false))
		}
		p := core.BinOp(bb, "arith.muli", core.ExtendInt(bb, a[0], ir.I64, false), core.ExtendInt(bb, a[1], ir.I64, false))
		p = core.BinOp(bb, "arith.addi", p, core.IntConst(bb, int64(1)<<(shift-1), ir.I64))
		p = core.BinOp(bb, "arith.shrsi", p, core.IntConst(bb, shift, ir.I64))
		return core.CastTo(bb, "arith.trunci", p, elem)
	})
}

// tosaNegate: floats negate; integers compute output_zp - (x - input_zp)
// in 32 bits (64 for i32 with zero points) clipped to the type; i32
// without zero points wraps as the spec's 32-bit accumulator does.
func (r *rewriter) tosaNegate(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	elem := rt.Elem
	izp, err := tosaZP(op, 1, "input1_zp", "input_zp")
	if err != nil {
		return err
	}
	ozp, err := tosaZP(op, 2, "output_zp")
	if err != nil {
		return err
	}
	return r.tosaMapGeneric(b, op, op.Operands[:1], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		x := a[0]
		if ir.IsFloat(elem) {
			return un(bb, "arith.negf", x)
		}
		if izp == 0 && ozp == 0 && core.Width(elem) >= 32 {
			// The 32-bit accumulator wraps; narrower types clip below
			// (-(-128) is 127 in i8, as the spec's apply_clip gives).
			return core.BinOp(bb, "arith.subi", core.IntConst(bb, 0, elem), x)
		}
		acc := ir.Type(ir.I32)
		if core.Width(elem) >= 32 {
			acc = ir.I64
		}
		v := core.ExtendInt(bb, x, acc, false)
		v = core.BinOp(bb, "arith.subi", core.IntConst(bb, ozp+izp, acc), v)
		lo, hi := intRange(elem, false)
		return core.CastTo(bb, "arith.trunci", clip(bb, v, lo, hi), elem)
	})
}

// tosaClamp reads min_val/max_val (TOSA 1.0) or min_int/max_int and
// min_fp/max_fp (older); NaN propagates unless nan_mode = IGNORE.
func (r *rewriter) tosaClamp(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	elem := rt.Elem
	num := func(names ...string) (float64, int64, bool) {
		for _, n := range names {
			switch a := op.Attr(n).(type) {
			case *ir.FloatAttr:
				return a.Value, int64(a.Value), true
			case *ir.IntegerAttr:
				return float64(a.Value), a.Value, true
			}
		}
		return 0, 0, false
	}
	var loF, hiF float64
	var loI, hiI int64
	var ok1, ok2 bool
	if ir.IsFloat(elem) {
		loF, _, ok1 = num("min_val", "min_fp")
		hiF, _, ok2 = num("max_val", "max_fp")
	} else {
		_, loI, ok1 = num("min_val", "min_int")
		_, hiI, ok2 = num("max_val", "max_int")
		lo, hi := intRange(elem, isUnsignedType(elem))
		loI, hiI = max(loI, lo), min(hiI, hi)
	}
	if !ok1 || !ok2 {
		return ir.OpErrorf(op, "needs min_val and max_val attributes")
	}
	ignore := tosaString(op, "nan_mode") == "IGNORE"
	return r.tosaMapGeneric(b, op, op.Operands[:1], rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		x := a[0]
		if ir.IsFloat(elem) {
			mx, mn := "arith.maximumf", "arith.minimumf"
			if ignore {
				mx, mn = "arith.maxnumf", "arith.minnumf"
			}
			x = bb.Create(mx, []*ir.Value{x, cFloat(bb, loF, elem)}, []ir.Type{elem}).Result(0)
			return bb.Create(mn, []*ir.Value{x, cFloat(bb, hiF, elem)}, []ir.Type{elem}).Result(0)
		}
		if isUnsignedType(elem) {
			x = core.BinOp(bb, "arith.maxui", x, core.IntConst(bb, loI, elem))
			return core.BinOp(bb, "arith.minui", x, core.IntConst(bb, hiI, elem))
		}
		return clip(bb, x, loI, hiI)
	})
}

// tosaCast is tosa.cast on one element: bool ↔ int as 0/1 and != 0;
// int → int wraps or extends; int → float exact or nearest; float → int
// rounds to nearest even and saturates (NaN gives 0); float → float
// rounds to nearest even.
func tosaCast(bb *ir.Builder, x *ir.Value, to ir.Type) *ir.Value {
	from := x.Type
	switch {
	case ir.TypesEqual(from, to):
		return x
	case core.IsBool(to) && ir.IsFloat(from):
		return core.Cmp(bb, "arith.cmpf", 13, x, cFloat(bb, 0, from))
	case core.IsBool(to):
		return core.Cmp(bb, "arith.cmpi", 1, x, core.IntConst(bb, 0, from))
	case ir.IsFloat(from) && ir.IsFloat(to):
		if core.Width(to) > core.Width(from) {
			return core.CastTo(bb, "arith.extf", x, to)
		}
		return core.CastTo(bb, "arith.truncf", x, to)
	case ir.IsFloat(to):
		if core.IsBool(from) || isUnsignedType(from) {
			return core.CastTo(bb, "arith.uitofp", x, to)
		}
		return core.CastTo(bb, "arith.sitofp", x, to)
	case ir.IsFloat(from):
		unsigned := isUnsignedType(to)
		lo, hi := intRange(to, unsigned)
		rx := un(bb, "math.roundeven", x)
		// Compare in f64 when the source is narrower: the bounds are exact there.
		cx := rx
		if core.Width(from) < 64 {
			cx = core.CastTo(bb, "arith.extf", rx, ir.F64)
		}
		tooBig := core.Cmp(bb, "arith.cmpf", 3, cx, cFloat(bb, float64(hi)+1, cx.Type))
		tooSmall := core.Cmp(bb, "arith.cmpf", 4, cx, cFloat(bb, float64(lo), cx.Type))
		isNaN := core.Cmp(bb, "arith.cmpf", 14, x, x)
		safe := sel(bb, core.BinOp(bb, "arith.ori", core.BinOp(bb, "arith.ori", tooBig, tooSmall), isNaN), cFloat(bb, 0, from), rx)
		name := "arith.fptosi"
		if unsigned {
			name = "arith.fptoui"
		}
		v := core.CastTo(bb, name, safe, to)
		v = sel(bb, tooBig, core.IntConst(bb, hi, to), v)
		return sel(bb, tooSmall, core.IntConst(bb, lo, to), v)
	}
	return core.ExtendInt(bb, x, to, isUnsignedType(from))
}
