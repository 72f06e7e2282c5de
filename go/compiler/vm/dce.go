package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// deadRegions returns the dispatch regions whose results nothing needs:
// after codegen a consumer may have absorbed a producer (a fill folded
// into a matmul's initialization), leaving the producer's region with no
// reader on the host and no binding in any kernel. It also returns the
// tensor constants of the function's body that no host op, binding or
// push constant reads: those only kernels use (folded into their code),
// and those nothing uses.
func deadRegions(fn *ir.Operation, refs map[*ir.Operation]DispatchRef) map[*ir.Operation]bool {
	dead := map[*ir.Operation]bool{}
	for {
		needed := map[*ir.Value]bool{}
		fn.Walk(func(op *ir.Operation) bool {
			if ref, ok := refs[op]; ok {
				if dead[op] {
					return false
				}
				for _, b := range ref.Bindings {
					if b.Owner() != op {
						needed[b] = true
					}
				}
				for _, p := range ref.Push {
					needed[p.Value] = true
				}
				return false
			}
			for _, v := range op.Operands {
				needed[v] = true
			}
			return true
		})
		changed := false
		fn.Walk(func(op *ir.Operation) bool {
			if _, ok := refs[op]; ok && !dead[op] {
				used := false
				for _, r := range op.Results {
					if needed[r] {
						used = true
					}
				}
				if !used {
					dead[op] = true
					changed = true
				}
				return false
			}
			return true
		})
		if !changed {
			for _, op := range fn.Regions[0].Blocks[0].Ops {
				if op.Name == "arith.constant" && len(op.Results) == 1 && !needed[op.Results[0]] {
					if _, ok := op.Results[0].Type.(*ir.RankedTensorType); ok {
						dead[op] = true
					}
				}
			}
			return dead
		}
	}
}
