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
	}
	return false, nil
}
