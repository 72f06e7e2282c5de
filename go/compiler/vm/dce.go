package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// deadRegions returns the dispatch regions whose results nothing needs:
// after codegen a consumer may have absorbed a producer (a fill folded
// into a matmul's initialization), leaving the producer's region with no
// reader on the host and no binding in any kernel.
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
			return dead
		}
	}
}
