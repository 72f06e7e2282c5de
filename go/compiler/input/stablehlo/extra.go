package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// stablehloExtra converts the StableHLO ops outside the element-wise and
// structural tables: random numbers, region control flow, tuples,
// composites, the dynamic-shape ops and a few decompositions. done is
// false for other ops.
func (r *rewriter) stablehloExtra(b *ir.Builder, op *ir.Operation, name string) (bool, error) {
	if extraOps[name] && !rankedOperands(op, name == "tuple" || name == "get_tuple_element") {
		return true, ir.OpErrorf(op, "with unranked or non-tensor values is not supported by gree")
	}
	if collectiveOps[name] {
		return true, r.hloCollective(b, op, name)
	}
	switch name {
	case "rng":
		rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
		if !ok || !ir.HasStaticShape(rt) {
			return true, ir.OpErrorf(op, "with a dynamic result shape is not supported by gree yet")
		}
		return true, r.hloRng(b, op, rt)
	case "rng_bit_generator":
		return true, r.hloRngBitGenerator(b, op)
	case "while":
		return true, r.hloWhile(b, op)
	case "if":
		return true, r.hloIf(b, op)
	case "case":
		return true, r.hloCase(b, op)
	case "reduce_precision":
		return true, r.hloReducePrecision(b, op)
	case "batch_norm_training":
		return true, r.hloBatchNormTraining(b, op)
	case "batch_norm_grad":
		return true, r.hloBatchNormGrad(b, op)
	case "tuple":
		return true, r.hloTuple(op)
	case "get_tuple_element":
		return true, r.hloGetTupleElement(op)
	case "map":
		rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
		if !ok {
			return true, ir.OpErrorf(op, "needs a ranked result")
		}
		return true, r.hloMap(b, op, rt)
	case "einsum", "unary_einsum":
		rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
		if !ok || !ir.HasStaticShape(rt) {
			return true, ir.OpErrorf(op, "needs a static result shape")
		}
		return true, r.hloEinsum(b, op, rt)
	case "composite":
		return true, ir.OpErrorf(op, "has no decomposition function gree can inline")
	}
	return r.stablehloDynamic(b, op, name)
}

// extraOps are the ops stablehloExtra converts.
var extraOps = map[string]bool{
	"rng": true, "rng_bit_generator": true, "while": true, "if": true, "case": true, "reduce_precision": true,
	"batch_norm_training": true, "batch_norm_grad": true, "einsum": true, "unary_einsum": true, "tuple": true, "get_tuple_element": true, "map": true, "composite": true,
	"get_dimension_size": true, "dynamic_iota": true, "dynamic_broadcast_in_dim": true, "dynamic_reshape": true,
	"dynamic_pad": true, "real_dynamic_slice": true,
}

// rankedOperands reports whether every operand and result of op is a
// ranked tensor (or, with tuples, a tuple type).
func rankedOperands(op *ir.Operation, tuples bool) bool {
	for _, vs := range [][]*ir.Value{op.Operands, op.Results} {
		for _, v := range vs {
			switch v.Type.(type) {
			case *ir.RankedTensorType:
			case *ir.TupleType:
				if !tuples {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}
