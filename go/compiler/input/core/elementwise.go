package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// elementwiseNamed maps linalg's element-wise named ops to a scalar body
// builder: fl is the float op, in the integer op ("" if none).
var elementwiseNamed = map[string][]string{
	"add": {"arith.addf", "arith.addi"}, "sub": {"arith.subf", "arith.subi"},
	"mul": {"arith.mulf", "arith.muli"}, "div": {"arith.divf", "arith.divsi"},
	"div_unsigned": {"", "arith.divui"}, "max": {"arith.maximumf", "arith.maxsi"},
	"min": {"arith.minimumf", "arith.minsi"}, "exp": {"math.exp", ""}, "log": {"math.log", ""},
	"abs": {"math.absf", "math.absi"}, "ceil": {"math.ceil", ""}, "floor": {"math.floor", ""},
	"negf": {"arith.negf", ""}, "round": {"math.round", ""}, "sqrt": {"math.sqrt", ""},
	"rsqrt": {"math.rsqrt", ""}, "tanh": {"math.tanh", ""}, "erf": {"math.erf", ""},
	"powf": {"math.powf", ""}, "reciprocal": {"reciprocal", ""}, "square": {"square", "square"},
	"select": {"arith.select", "arith.select"},
}

func elementwiseNamedOp(b *ir.Builder, op *ir.Operation, name string, ins, outs []*ir.Value) (*ir.Operation, error) {
	n := linalg.Rank(outs[0].Type)
	maps := make([]*ir.AffineMap, len(ins)+1)
	for i := range maps {
		maps[i] = linalg.Identity(n)
	}
	elem := ir.ElementTypeOf(outs[0].Type)
	names := elementwiseNamed[name]
	scalar := names[0]
	if !ir.IsFloat(elem) {
		scalar = names[1]
	}
	if scalar == "" {
		return nil, ir.OpErrorf(op, "is not defined for elements of type %s", elem)
	}
	return linalg.BuildGeneric(b, ins, outs, maps, Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		var vals []*ir.Value
		for i := range ins {
			v := args[i]
			if !(scalar == "arith.select" && i == 0) {
				v = Cast(bb, v, elem)
			}
			vals = append(vals, v)
		}
		switch scalar {
		case "reciprocal":
			one := bb.Constant(ir.FloatAttrOf(1, elem.(*ir.FloatType)))
			return []*ir.Value{bb.Create("arith.divf", []*ir.Value{one, vals[0]}, []ir.Type{elem}).Result(0)}
		case "square":
			mul := map[bool]string{true: "arith.mulf", false: "arith.muli"}[ir.IsFloat(elem)]
			return []*ir.Value{bb.Create(mul, []*ir.Value{vals[0], vals[0]}, []ir.Type{elem}).Result(0)}
		}
		return []*ir.Value{bb.Create(scalar, vals, []ir.Type{elem}).Result(0)}
	}), nil
}
