package torchonnx

import (
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// ONNX element-wise operators: numpy broadcasting over the static result
// shape, one scalar body per element.

// sc builds scalar code of one element type inside a generic body.
type sc struct {
	b *ir.Builder
	t ir.Type
}

func (s sc) op(name string, args ...*ir.Value) *ir.Value {
	return s.b.Create(name, args, []ir.Type{s.t}).Result(0)
}

func (s sc) c(v float64) *ir.Value { return scalarConst(s.b, v, s.t) }

func (s sc) isF() bool { return ir.IsFloat(s.t) }

func (s sc) add(a, c *ir.Value) *ir.Value {
	return s.op(map[bool]string{true: "arith.addf", false: "arith.addi"}[s.isF()], a, c)
}

func (s sc) sub(a, c *ir.Value) *ir.Value {
	return s.op(map[bool]string{true: "arith.subf", false: "arith.subi"}[s.isF()], a, c)
}

func (s sc) mul(a, c *ir.Value) *ir.Value {
	return s.op(map[bool]string{true: "arith.mulf", false: "arith.muli"}[s.isF()], a, c)
}

func (s sc) div(a, c *ir.Value, unsigned bool) *ir.Value {
	switch {
	case s.isF():
		return s.op("arith.divf", a, c)
	case unsigned:
		return s.op("arith.divui", a, c)
	}
	return s.op("arith.divsi", a, c)
}

func (s sc) max(a, c *ir.Value, unsigned bool) *ir.Value {
	switch {
	case s.isF():
		return s.op("arith.maximumf", a, c)
	case unsigned:
		return s.op("arith.maxui", a, c)
	}
	return s.op("arith.maxsi", a, c)
}

func (s sc) min(a, c *ir.Value, unsigned bool) *ir.Value {
	switch {
	case s.isF():
		return s.op("arith.minimumf", a, c)
	case unsigned:
		return s.op("arith.minui", a, c)
	}
	return s.op("arith.minsi", a, c)
}

func (s sc) sel(cond, a, c *ir.Value) *ir.Value { return s.op("arith.select", cond, a, c) }

// cmp compares a and c: kind is one of eq, lt, le, gt, ge.
func (s sc) cmp(kind string, a, c *ir.Value, unsigned bool) *ir.Value {
	if ir.IsFloat(a.Type) {
		p := map[string]int64{"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}[kind]
		return core.Cmp(s.b, "arith.cmpf", p, a, c)
	}
	p := map[string]int64{"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}[kind]
	if unsigned || core.IsBool(a.Type) {
		p = map[string]int64{"eq": 0, "ne": 1, "lt": 6, "le": 7, "gt": 8, "ge": 9}[kind]
	}
	return core.Cmp(s.b, "arith.cmpi", p, a, c)
}

// castScalar converts x to type to (ONNX Cast: float→int truncates,
// to bool is != 0, unsigned sources and targets as flagged).
func castScalar(bb *ir.Builder, x *ir.Value, to ir.Type, fromUnsigned, toUnsigned bool) *ir.Value {
	from := x.Type
	switch {
	case ir.TypesEqual(from, to):
		return x
	case core.IsBool(to):
		if ir.IsFloat(from) {
			return core.Cmp(bb, "arith.cmpf", 13, x, scalarConst(bb, 0, from))
		}
		return core.Cmp(bb, "arith.cmpi", 1, x, scalarConst(bb, 0, from))
	case ir.IsFloat(from) && ir.IsFloat(to):
		if (isSmallFloat(from) || isSmallFloat(to)) && !ir.TypesEqual(from, ir.F32) && !ir.TypesEqual(to, ir.F32) {
			// 8-bit floats convert through f32.
			x = core.Cast(bb, x, ir.F32)
		}
		return core.Cast(bb, x, to)
	case !ir.IsFloat(from) && ir.IsFloat(to):
		if fromUnsigned || core.IsBool(from) {
			return bb.Create("arith.uitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
		}
		return bb.Create("arith.sitofp", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case ir.IsFloat(from):
		if toUnsigned && core.Width(to) < 64 {
			// Narrow unsigned results wrap around (as numpy's astype).
			w := bb.Create("arith.fptosi", []*ir.Value{x}, []ir.Type{ir.I64}).Result(0)
			return bb.Create("arith.trunci", []*ir.Value{w}, []ir.Type{to}).Result(0)
		}
		if toUnsigned {
			return bb.Create("arith.fptoui", []*ir.Value{x}, []ir.Type{to}).Result(0)
		}
		return bb.Create("arith.fptosi", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case core.Width(to) > core.Width(from):
		if fromUnsigned || core.IsBool(from) {
			return bb.Create("arith.extui", []*ir.Value{x}, []ir.Type{to}).Result(0)
		}
		return bb.Create("arith.extsi", []*ir.Value{x}, []ir.Type{to}).Result(0)
	case core.Width(to) < core.Width(from):
		return bb.Create("arith.trunci", []*ir.Value{x}, []ir.Type{to}).Result(0)
	}
	return x
}

// unaryFloat computes an ONNX activation or math op on one float element.
func (o *onnxOp) unaryFloat(s sc, x *ir.Value) (*ir.Value, bool) {
	one := func() *ir.Value { return s.c(1) }
	switch o.kind {
	case "Relu":
		return s.max(x, s.c(0), false), true
	case "Sigmoid":
		return s.op("arith.divf", one(), s.op("arith.addf", one(), s.op("math.exp", s.op("arith.negf", x)))), true
	case "Tanh":
		return s.op("math.tanh", x), true
	case "Exp":
		return s.op("math.exp", x), true
	case "Log":
		return s.op("math.log", x), true
	case "Sqrt":
		return s.op("math.sqrt", x), true
	case "Reciprocal":
		return s.op("arith.divf", one(), x), true
	case "Floor":
		return s.op("math.floor", x), true
	case "Ceil":
		return s.op("math.ceil", x), true
	case "Round":
		return s.op("math.roundeven", x), true
	case "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf":
		return s.op("math."+lower(o.kind), x), true
	case "LeakyRelu":
		alpha := s.c(o.attrFloat("alpha", 0.01))
		return s.sel(s.cmp("gt", x, s.c(0), false), x, s.mul(x, alpha)), true
	case "Elu":
		alpha := s.c(o.attrFloat("alpha", 1))
		neg := s.mul(alpha, s.op("math.expm1", x))
		return s.sel(s.cmp("gt", x, s.c(0), false), x, neg), true
	case "Celu":
		alpha := o.attrFloat("alpha", 1)
		neg := s.mul(s.c(alpha), s.op("math.expm1", s.op("arith.divf", x, s.c(alpha))))
		return s.add(s.max(x, s.c(0), false), s.min(s.c(0), neg, false)), true
	case "Selu":
		alpha, gamma := o.attrFloat("alpha", 1.67326319217681884765625), o.attrFloat("gamma", 1.05070102214813232421875)
		neg := s.mul(s.c(alpha), s.op("math.expm1", x))
		return s.mul(s.c(gamma), s.sel(s.cmp("gt", x, s.c(0), false), x, neg)), true
	case "ThresholdedRelu":
		return s.sel(s.cmp("gt", x, s.c(o.attrFloat("alpha", 1)), false), x, s.c(0)), true
	case "Gelu":
		if o.attrStr("approximate", "none") == "tanh" {
			// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
			x3 := s.mul(x, s.mul(x, x))
			in := s.mul(s.c(math.Sqrt(2/math.Pi)), s.add(x, s.mul(s.c(0.044715), x3)))
			return s.mul(s.mul(s.c(0.5), x), s.add(one(), s.op("math.tanh", in))), true
		}
		e := s.op("math.erf", s.mul(x, s.c(1/math.Sqrt2)))
		return s.mul(s.mul(s.c(0.5), x), s.add(one(), e)), true
	case "HardSigmoid":
		y := s.add(s.mul(s.c(o.attrFloat("alpha", 0.2)), x), s.c(o.attrFloat("beta", 0.5)))
		return s.min(s.max(y, s.c(0), false), one(), false), true
	case "HardSwish":
		y := s.add(s.mul(s.c(1.0/6), x), s.c(0.5))
		return s.mul(x, s.min(s.max(y, s.c(0), false), one(), false)), true
	case "Softplus":
		// log(1 + exp(x)) computed stably: max(x, 0) + log1p(exp(-|x|)).
		ax := s.op("math.absf", x)
		return s.add(s.max(x, s.c(0), false), s.op("math.log1p", s.op("math.exp", s.op("arith.negf", ax)))), true
	case "Softsign":
		return s.op("arith.divf", x, s.add(one(), s.op("math.absf", x))), true
	case "Mish":
		ax := s.op("math.absf", x)
		sp := s.add(s.max(x, s.c(0), false), s.op("math.log1p", s.op("math.exp", s.op("arith.negf", ax))))
		return s.mul(x, s.op("math.tanh", sp)), true
	}
	return nil, false
}

// isSmallFloat reports the 8-, 6- and 4-bit float types.
func isSmallFloat(t ir.Type) bool {
	ft, ok := t.(*ir.FloatType)
	if !ok {
		return false
	}
	n := ft.String()
	return strings.HasPrefix(n, "f8E") || strings.HasPrefix(n, "f6E") || strings.HasPrefix(n, "f4E")
}

func lower(s string) string {
	b := []byte(s)
	if len(b) > 0 && b[0] >= 'A' && b[0] <= 'Z' {
		b[0] += 'a' - 'A'
	}
	return string(b)
}

func init() {
	onnxReg(onnxUnary, "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round",
		"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf",
		"LeakyRelu", "Elu", "Celu", "Selu", "ThresholdedRelu", "Gelu", "HardSigmoid", "HardSwish", "Softplus",
		"Softsign", "Mish", "Neg", "Abs", "Sign", "Not", "IsNaN", "IsInf", "BitwiseNot")
	onnxReg(onnxBinary, "Add", "Sub", "Mul", "Div", "Pow", "Mod", "PRelu", "And", "Or", "Xor",
		"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor")
	onnxReg(onnxVariadic, "Max", "Min", "Sum", "Mean")
	onnxReg(onnxWhere, "Where")
	onnxReg(onnxCast, "Cast", "CastLike")
	onnxReg(onnxClip, "Clip")
	onnxReg(onnxIdentity, "Identity", "Dropout")
}

func onnxUnary(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	rt := o.rts[0]
	et := tt(x).Elem
	var err error
	v := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		s := sc{bb, et}
		a := args[0]
		switch o.kind {
		case "Neg":
			if s.isF() {
				return s.op("arith.negf", a)
			}
			return s.sub(s.c(0), a)
		case "Abs":
			if s.isF() {
				return s.op("math.absf", a)
			}
			if o.isUnsigned(x) {
				return a
			}
			return s.op("math.absi", a)
		case "Sign":
			if s.isF() {
				return core.UnaryScalar(bb, "sign", a, et)
			}
			one := s.c(1)
			if o.isUnsigned(x) {
				return s.sel(s.cmp("eq", a, s.c(0), true), s.c(0), one)
			}
			return core.UnaryScalar(bb, "sign", a, et)
		case "Not", "BitwiseNot":
			return s.op("arith.xori", a, bb.Constant(ir.IntAttr(-1, et)))
		case "IsNaN":
			return core.Cmp(bb, "arith.cmpf", 14, a, a)
		case "IsInf":
			pos, neg := o.attrInt("detect_positive", 1) != 0, o.attrInt("detect_negative", 1) != 0
			isInf := bb.Create("math.isinf", []*ir.Value{a}, []ir.Type{ir.I1}).Result(0)
			z := s.c(0)
			switch {
			case pos && !neg:
				return core.BinOp(bb, "arith.andi", isInf, s.cmp("gt", a, z, false))
			case neg && !pos:
				return core.BinOp(bb, "arith.andi", isInf, s.cmp("lt", a, z, false))
			case !pos && !neg:
				return bb.Constant(ir.IntAttr(0, ir.I1))
			}
			return isInf
		}
		if !s.isF() {
			if o.kind == "Relu" || o.kind == "LeakyRelu" {
				return s.max(a, s.c(0), o.isUnsigned(x))
			}
			err = o.errorf("on %s elements is not supported by gree", et)
			return a
		}
		y, ok := o.unaryFloat(s, a)
		if !ok {
			err = o.errorf("is not supported by gree")
			return a
		}
		return y
	})
	return []*ir.Value{v}, err
}

func onnxBinary(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	a, c := o.in(0), o.in(1)
	if a == nil || c == nil {
		return nil, o.errorf("needs two inputs")
	}
	et := tt(a).Elem
	uns := o.isUnsigned(a)
	var err error
	v := mapGeneric(o.b, []*ir.Value{a, c}, o.rts[0], func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		s := sc{bb, et}
		x, y := args[0], args[1]
		switch o.kind {
		case "Add":
			return s.add(x, y)
		case "Sub":
			return s.sub(x, y)
		case "Mul":
			return s.mul(x, y)
		case "Div":
			return s.div(x, y, uns)
		case "Pow":
			rtElem := o.rts[0].Elem
			if !ir.IsFloat(rtElem) {
				fx := castScalar(bb, x, ir.F64, uns, false)
				fy := castScalar(bb, y, ir.F64, o.isUnsigned(c), false)
				p := bb.Create("math.powf", []*ir.Value{fx, fy}, []ir.Type{ir.F64}).Result(0)
				return castScalar(bb, p, rtElem, false, uns)
			}
			y = castScalar(bb, y, et, o.isUnsigned(c), false)
			return s.op("math.powf", x, y)
		case "Mod":
			if s.isF() || o.attrInt("fmod", 0) != 0 {
				if s.isF() {
					return s.op("arith.remf", x, y)
				}
				return s.op(map[bool]string{true: "arith.remui", false: "arith.remsi"}[uns], x, y)
			}
			if uns {
				return s.op("arith.remui", x, y)
			}
			// Python-style modulo: the result has the divisor's sign.
			r := s.op("arith.remsi", x, y)
			fix := core.BinOp(bb, "arith.andi", s.cmp("ne", r, s.c(0), false),
				s.cmp("ne", s.cmp("lt", r, s.c(0), false), s.cmp("lt", y, s.c(0), false), false))
			return s.sel(fix, s.add(r, y), r)
		case "PRelu":
			return s.sel(s.cmp("lt", x, s.c(0), false), s.mul(x, y), x)
		case "And", "BitwiseAnd":
			return s.op("arith.andi", x, y)
		case "Or", "BitwiseOr":
			return s.op("arith.ori", x, y)
		case "Xor", "BitwiseXor":
			return s.op("arith.xori", x, y)
		case "BitShift":
			if o.attrStr("direction", "") == "LEFT" {
				return s.op("arith.shli", x, y)
			}
			return s.op("arith.shrui", x, y)
		case "Equal":
			return s.cmp("eq", x, y, uns)
		case "Less":
			return s.cmp("lt", x, y, uns)
		case "LessOrEqual":
			return s.cmp("le", x, y, uns)
		case "Greater":
			return s.cmp("gt", x, y, uns)
		case "GreaterOrEqual":
			return s.cmp("ge", x, y, uns)
		}
		err = o.errorf("is not supported by gree")
		return x
	})
	return []*ir.Value{v}, err
}

func onnxVariadic(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	var ins []*ir.Value
	for _, v := range o.ins {
		if v != nil {
			ins = append(ins, v)
		}
	}
	if len(ins) == 0 {
		return nil, o.errorf("needs at least one input")
	}
	rt := o.rts[0]
	uns := o.isUnsigned(ins[0])
	v := mapGeneric(o.b, ins, rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		acc := args[0]
		for _, x := range args[1:] {
			switch o.kind {
			case "Max":
				acc = s.max(acc, x, uns)
			case "Min":
				acc = s.min(acc, x, uns)
			default:
				acc = s.add(acc, x)
			}
		}
		if o.kind == "Mean" {
			acc = s.div(acc, s.c(float64(len(args))), uns)
		}
		return acc
	})
	return []*ir.Value{v}, nil
}

func onnxWhere(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	v := mapGeneric(o.b, o.ins[:3], rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		return sc{bb, rt.Elem}.sel(args[0], args[1], args[2])
	})
	return []*ir.Value{v}, nil
}

func onnxCast(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	// Casts keep the input's shape (CastLike's second input gives only
	// the type).
	rt := ir.Tensor(tt(x).Dims, o.rts[0].Elem)
	// Casts to 8-bit floats saturate by default: finite limits for
	// out-of-range values and infinities (NaN stays NaN).
	limit := map[string]float64{"f8E4M3FN": 448, "f8E4M3FNUZ": 240, "f8E5M2": 57344, "f8E5M2FNUZ": 57344}[rt.Elem.String()]
	saturate := limit > 0 && o.attrInt("saturate", 1) != 0 && ir.IsFloat(tt(x).Elem)
	toE8M0 := isE8M0(rt.Elem) && !isE8M0(tt(x).Elem)
	roundMode := o.attrStr("round_mode", "up")
	if toE8M0 && !e8m0RoundModes[roundMode] {
		return nil, o.errorf("has round_mode '%s'; it must be 'up', 'down' or 'nearest'", roundMode)
	}
	v := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		a := args[0]
		if toE8M0 {
			return castToE8M0(bb, a, o.isUnsigned(x), roundMode, o.attrInt("saturate", 1) != 0)
		}
		if saturate {
			f := sc{bb, ir.F32}
			a = castScalar(bb, a, ir.F32, false, false)
			a = f.op("arith.minimumf", f.op("arith.maximumf", a, f.c(-limit)), f.c(limit))
		}
		return castScalar(bb, a, rt.Elem, o.isUnsigned(x), o.runs[0])
	})
	return []*ir.Value{v}, nil
}

// onnxClip clamps to [min, max]: inputs from opset 11, attributes before.
func onnxClip(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	rt := o.rts[0]
	ins := []*ir.Value{x}
	var lo, hi *float64
	if o.c.opset < 11 {
		l, h := o.attrFloat("min", math.Inf(-1)), o.attrFloat("max", math.Inf(1))
		lo, hi = &l, &h
	}
	hasMin, hasMax := o.in(1) != nil, o.in(2) != nil
	if hasMin {
		ins = append(ins, o.in(1))
	}
	if hasMax {
		ins = append(ins, o.in(2))
	}
	uns := o.isUnsigned(x)
	v := mapGeneric(o.b, ins, rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		y := args[0]
		k := 1
		if hasMin {
			y = s.max(y, args[k], uns)
			k++
		} else if lo != nil && !math.IsInf(*lo, -1) {
			y = s.max(y, s.c(*lo), uns)
		}
		if hasMax {
			y = s.min(y, args[k], uns)
		} else if hi != nil && !math.IsInf(*hi, 1) {
			y = s.min(y, s.c(*hi), uns)
		}
		return y
	})
	return []*ir.Value{v}, nil
}

// onnxIdentity passes its input through (Dropout in inference mode also
// returns an all-true mask when asked).
func onnxIdentity(o *onnxOp) ([]*ir.Value, error) {
	if o.kind == "Dropout" {
		if err := dropoutIsIdentity(o); err != nil {
			return nil, err
		}
	}
	out := []*ir.Value{o.in(0)}
	if len(o.rts) > 1 && o.rts[1] != nil {
		if err := o.static(); err != nil {
			return nil, err
		}
		out = append(out, filledInt(o.b, o.rts[1], 1))
	}
	return out, nil
}
