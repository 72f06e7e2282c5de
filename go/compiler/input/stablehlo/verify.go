package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// verifyHLOShape checks the attributes of StableHLO's data-movement ops
// against their operand and result shapes before they are converted (the
// checks StableHLO's verifier makes), so a malformed program is an error
// naming the op rather than a crash of the conversion.
func verifyHLOShape(op *ir.Operation, name string, rt *ir.RankedTensorType) error {
	if len(op.Operands) == 0 {
		return nil
	}
	in, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	n := len(rt.Dims)
	inRange := func(d int64, r int) bool { return d >= 0 && d < int64(r) }
	switch name {
	case "broadcast_in_dim":
		dims := core.IntsOf(op, "broadcast_dimensions")
		if len(dims) != len(in.Dims) {
			return ir.OpErrorf(op, "has %d broadcast_dimensions for an operand of rank %d", len(dims), len(in.Dims))
		}
		seen := map[int64]bool{}
		for i, d := range dims {
			if !inRange(d, n) || seen[d] {
				return ir.OpErrorf(op, "has broadcast_dimensions %v that are not distinct dimensions of its rank-%d result", dims, n)
			}
			seen[d] = true
			if in.Dims[i] >= 0 && rt.Dims[d] >= 0 && in.Dims[i] != 1 && in.Dims[i] != rt.Dims[d] {
				return ir.OpErrorf(op, "broadcasts operand dimension %d of size %d to a result dimension of size %d", i, in.Dims[i], rt.Dims[d])
			}
		}
	case "transpose":
		perm := core.IntsOf(op, "permutation")
		seen := map[int64]bool{}
		for _, p := range perm {
			if !inRange(p, n) || seen[p] {
				return ir.OpErrorf(op, "has a permutation %v that is not a permutation of its %d dimensions", perm, n)
			}
			seen[p] = true
		}
		if len(perm) != n || len(in.Dims) != n {
			return ir.OpErrorf(op, "has a permutation %v that is not a permutation of its %d dimensions", perm, n)
		}
	case "concatenate":
		d := int64(0)
		if a, ok := op.Attr("dimension").(*ir.IntegerAttr); ok {
			d = a.Value
		}
		if !inRange(d, n) {
			return ir.OpErrorf(op, "concatenates along dimension %d of rank-%d tensors", d, n)
		}
		sum, known := int64(0), true
		for _, v := range op.Operands {
			t, ok := v.Type.(*ir.RankedTensorType)
			if !ok || len(t.Dims) != n {
				return ir.OpErrorf(op, "needs operands of rank %d", n)
			}
			for i, x := range t.Dims {
				if int64(i) != d && x >= 0 && rt.Dims[i] >= 0 && x != rt.Dims[i] {
					return ir.OpErrorf(op, "has an operand of type %s that does not fit its result type %s", t, rt)
				}
			}
			known = known && t.Dims[d] >= 0
			sum += t.Dims[d]
		}
		if known && rt.Dims[d] >= 0 && sum != rt.Dims[d] {
			return ir.OpErrorf(op, "concatenates %d elements along dimension %d into a result of size %d", sum, d, rt.Dims[d])
		}
	case "reverse":
		for _, d := range core.IntsOf(op, "dimensions") {
			if !inRange(d, n) {
				return ir.OpErrorf(op, "reverses dimension %d of a rank-%d tensor", d, n)
			}
		}
	case "slice":
		start, limit, strides := core.IntsOf(op, "start_indices"), core.IntsOf(op, "limit_indices"), core.IntsOf(op, "strides")
		if len(start) != n || len(limit) != n || len(strides) != n || len(in.Dims) != n {
			return ir.OpErrorf(op, "needs start_indices, limit_indices and strides for each of its %d dimensions", n)
		}
		for i := 0; i < n; i++ {
			if start[i] < 0 || strides[i] <= 0 || limit[i] < start[i] || (in.Dims[i] >= 0 && limit[i] > in.Dims[i]) ||
				(rt.Dims[i] >= 0 && rt.Dims[i] != (limit[i]-start[i]+strides[i]-1)/strides[i]) {
				return ir.OpErrorf(op, "has slice bounds [%d:%d:%d] that do not fit dimension %d (operand size %d, result size %d)",
					start[i], limit[i], strides[i], i, in.Dims[i], rt.Dims[i])
			}
		}
	}
	return nil
}
