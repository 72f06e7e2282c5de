package input

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// stablehloExtra converts the StableHLO ops outside the element-wise and
// structural tables: random numbers, region control flow, tuples,
// composites, the dynamic-shape ops and a few decompositions. done is
// false for other ops.
func (r *rewriter) stablehloExtra(b *ir.Builder, op *ir.Operation, name string) (bool, error) {
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
	case "composite":
		return true, ir.OpErrorf(op, "has no decomposition function gree can inline")
	}
	return r.stablehloDynamic(b, op, name)
}
