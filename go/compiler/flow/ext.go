package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// FormExtDispatches wraps every scatter and sort of fn (linalg.IsExtOp) in
// a flow.dispatch.region of its own: they do not fuse with anything.
func FormExtDispatches(fn *ir.Operation) {
	var exts []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if linalg.IsExtOp(op) {
			exts = append(exts, op)
			return false
		}
		return op.Name != RegionName && op.Name != linalg.GenericName
	})
	for _, op := range exts {
		if op.Name == linalg.SortName {
			op = linalg.SortScratch(fn, op)
		}
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		var types []ir.Type
		for _, r := range op.Results {
			types = append(types, r.Type)
		}
		region := b.CreateWithRegions(RegionName, nil, types, 1)
		blk := ir.NewBlock()
		region.Regions[0].AddBlock(blk)
		for i, r := range op.Results {
			ir.ReplaceAllUsesWith(fn, r, region.Results[i])
		}
		op.Block().Remove(op)
		blk.Append(op)
		ir.AtEnd(blk, op.Loc).Create("flow.return", op.Results, nil)
	}
}

// readsByIndex reports a generic whose body uses linalg.index or
// tensor.extract (a gather): codegen cannot run such a body as a fused
// epilogue, so it keeps a dispatch of its own.
func readsByIndex(g linalg.Generic) bool {
	for _, op := range g.Body().Ops {
		if op.Name == "linalg.index" || op.Name == "tensor.extract" {
			return true
		}
	}
	return false
}
