package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// StripShardingAnnotations removes what JAX adds to a program for running
// it over several devices and that means nothing to its result: Shardy's
// mesh declarations (sdy.mesh), sharding constraints and reshards
// (sdy.sharding_constraint, sdy.reshard), the GSPMD annotation
// stablehlo.custom_call @Sharding, memory-placement annotations
// (@annotate_device_placement, @MoveToHost, @MoveToDevice) and collectives
// over groups of one device (shard_map on a one-device mesh). JAX's
// programs are written in the global view, so each of these is the
// identity on its operand; one whose result type differs from its
// operand's is left for the conversion to reject. Other custom calls
// (@SPMDFullToShardShape, …) change values and stay errors. The custom
// call @shape_assertion (jax.export's checks of symbolic dimensions) has
// no results and is dropped, as IREE drops it. lax.approx_max_k's
// @ApproxTopK becomes an exact top-k (jax_topk.go), and the LAPACK
// Cholesky and triangular solve calls become loops (jax_lapack.go).
func StripShardingAnnotations(m *ir.Module) {
	var drop []*ir.Operation
	var comparators []string
	m.Op.Walk(func(op *ir.Operation) bool {
		switch {
		case op.Name == "sdy.mesh":
			drop = append(drop, op)
		case op.Name == "func.func" || op.Name == "util.func":
			comparators = append(comparators, rewriteApproxTopK(m, op)...)
			rewriteLAPACK(op)
			stripInFunc(op)
			return false
		}
		return true
	})
	for _, op := range drop {
		op.Erase()
	}
	eraseUnusedFuncs(m, comparators)
}

func stripInFunc(fn *ir.Operation) {
	var ids, asserts []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if isIdentityAnnotation(op) || isSingleDeviceCollective(op) {
			ids = append(ids, op)
		}
		if op.Name == "stablehlo.custom_call" && len(op.Results) == 0 && callTarget(op) == "shape_assertion" {
			asserts = append(asserts, op)
		}
		return true
	})
	for _, op := range ids {
		for i, res := range op.Results {
			ir.ReplaceAllUsesWith(fn, res, op.Operands[i])
		}
		op.Erase()
	}
	for _, op := range asserts {
		op.Erase()
	}
}

func callTarget(op *ir.Operation) string {
	if s, ok := op.Attr("call_target_name").(*ir.StringAttr); ok {
		return s.Value
	}
	return ""
}

func isIdentityAnnotation(op *ir.Operation) bool {
	switch op.Name {
	case "sdy.sharding_constraint", "sdy.reshard":
	case "stablehlo.custom_call":
		switch callTarget(op) {
		case "Sharding", "annotate_device_placement", "MoveToHost", "MoveToDevice":
			// Placement annotations (host offloading) move no values
			// on one device either.
		default:
			return false
		}
	default:
		return false
	}
	return len(op.Operands) == 1 && len(op.Results) == 1 && ir.TypesEqual(op.Operands[0].Type, op.Results[0].Type)
}

// isSingleDeviceCollective reports a collective (lax.psum, all_gather, …
// inside shard_map) over replica groups of one device each: it returns its
// operands unchanged. A collective_permute is such an identity only when
// every device sends to itself.
func isSingleDeviceCollective(op *ir.Operation) bool {
	switch op.Name {
	case "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter", "stablehlo.all_to_all",
		"stablehlo.collective_broadcast":
		g, ok := op.Attr("replica_groups").(*ir.DenseElementsAttr)
		if !ok {
			return false
		}
		gt, ok := g.Type.(*ir.RankedTensorType)
		if !ok || len(gt.Dims) != 2 || gt.Dims[1] != 1 {
			return false
		}
	case "stablehlo.collective_permute":
		pairs, ok := op.Attr("source_target_pairs").(*ir.DenseElementsAttr)
		if !ok || pairs.NumElements() == 0 {
			return false
		}
		for i := int64(0); i+1 < pairs.NumElements(); i += 2 {
			if pairs.IntAt(i) != pairs.IntAt(i+1) {
				return false
			}
		}
	default:
		return false
	}
	if len(op.Operands) != len(op.Results) {
		return false
	}
	for i, v := range op.Operands {
		if !ir.TypesEqual(v.Type, op.Results[i].Type) {
			return false
		}
	}
	return true
}
