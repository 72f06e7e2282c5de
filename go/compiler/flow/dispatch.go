package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// RegionName is the dispatch-region op.
const RegionName = "flow.dispatch.region"

func init() {
	ir.RegisterOp(RegionName, ir.OpInfo{})
	ir.RegisterOp("flow.return", ir.OpInfo{Terminator: true})
}

// FormDispatches wraps every linalg.generic of fn in its own
// flow.dispatch.region (the generic moves inside; the values it captures
// stay outside).
func FormDispatches(fn *ir.Operation) {
	var gens []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == linalg.GenericName {
			gens = append(gens, op)
			return false
		}
		return op.Name != RegionName
	})
	uses := users(fn)
	inRegion := map[*ir.Operation]bool{}
	var roots []*ir.Operation
	for _, g := range gens {
		root, _ := EpilogueRoot(g, uses)
		if root != nil && !inRegion[root] {
			inRegion[root] = true
		} else {
			root = nil
		}
		roots = append(roots, root)
	}
	for gi, g := range gens {
		if inRegion[g] {
			continue // moved into its consumer's region
		}
		b := ir.NewBuilder(g.Loc)
		b.SetInsertionPointBefore(g)
		// A contraction root's result is returned too: codegen may map the
		// root to a tile op that needs it in memory before the epilogue,
		// unless the epilogue can run in place over g's own result.
		rets := append([]*ir.Value(nil), g.Results...)
		if r := roots[gi]; r != nil && isContraction(linalg.Generic{Op: r}) && !EpilogueInPlace(r, g) {
			rets = append(rets, r.Results...)
		}
		var types []ir.Type
		for _, r := range rets {
			types = append(types, r.Type)
		}
		region := b.CreateWithRegions(RegionName, nil, types, 1)
		blk := ir.NewBlock()
		region.Regions[0].AddBlock(blk)
		for i, r := range g.Results {
			ir.ReplaceAllUsesWith(fn, r, region.Results[i])
		}
		if r := roots[gi]; r != nil {
			blk.Append(r) // the root runs first; g is its epilogue
		}
		blk.Append(g)
		ir.AtEnd(blk, g.Loc).Create("flow.return", rets, nil)
	}
}

// Run fuses and forms dispatches in every function of m.
func Run(m *ir.Module) error { return RunWith(m, Options{}) }

// RunWith is Run with the target's choices o.
func RunWith(m *ir.Module, o Options) error {
	var err error
	for _, op := range m.Body().Ops {
		if op.Name == "func.func" || op.Name == "util.func" {
			foldConstantReshapes(op)
			foldConstantCopies(m, op)
			collapseContracts(op)
			if o.Untap {
				untapContracts(op)
			}
			groupedConvsAsGEMM(op)
			packConstantGEMVs(m, op)
			if err = FuseElementwise(op); err != nil {
				return err
			}
			DedupInputs(op)
			FormRecurrences(op, o.Recurrence)
			FormDispatches(op)
			MergeChains(op, o.Chain)
			FormExtDispatches(op)
		}
	}
	return nil
}
