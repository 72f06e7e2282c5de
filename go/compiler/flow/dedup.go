package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// DedupInputs rewrites generics that read the same tensor through the
// same map more than once (common after fusion: x*1.5 … *x) to read it
// once, so kernels load each element once.
func DedupInputs(fn *ir.Operation) {
	var gens []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == linalg.GenericName {
			gens = append(gens, op)
			return false
		}
		return true
	})
	for _, op := range gens {
		g, _ := linalg.AsGeneric(op)
		maps := g.Maps()
		ins := g.Inputs()
		first := make([]int, len(ins))
		var keep []int
		dup := false
		for i, v := range ins {
			first[i] = i
			for _, k := range keep {
				if ins[k] == v && maps[k].String() == maps[i].String() {
					first[i] = k
					dup = true
					break
				}
			}
			if first[i] == i {
				keep = append(keep, i)
			}
		}
		if !dup {
			continue
		}
		var newIns []*ir.Value
		var newMaps []*ir.AffineMap
		pos := map[int]int{}
		for _, k := range keep {
			pos[k] = len(newIns)
			newIns = append(newIns, ins[k])
			newMaps = append(newMaps, maps[k])
		}
		newMaps = append(newMaps, maps[len(ins):]...)
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		body := g.Body()
		ng := linalg.BuildGeneric(b, newIns, g.Outputs(), newMaps, g.Iterators(), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			m := ir.Mapping{}
			for i := range ins {
				m[body.Args[i]] = args[pos[first[i]]]
			}
			for j := len(ins); j < len(body.Args); j++ {
				m[body.Args[j]] = args[len(newIns)+j-len(ins)]
			}
			for _, o := range body.Ops {
				if o.Name == "linalg.yield" {
					ys := make([]*ir.Value, len(o.Operands))
					for i, v := range o.Operands {
						ys[i] = m.Lookup(v)
					}
					return ys
				}
				bb.Clone(o, m)
			}
			return nil
		})
		for i, r := range op.Results {
			ir.ReplaceAllUsesWith(fn, r, ng.Results[i])
		}
		op.Erase()
	}
}
