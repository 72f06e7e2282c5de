package linalg

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// The core ops that are not linalg.generic: scatter and sort keep IREE's
// iree_linalg_ext form in the tensor program, each becomes a dispatch of
// its own, and codegen lowers it to loops.
const (
	// ScatterName is iree_linalg_ext.scatter: operands (updates, indices,
	// [mask,] original), one result; attributes dimension_map (i64 array),
	// unique_indices (bool) and, in gree's form, batch_rank (the number of
	// leading update dimensions that index the batch; without it the
	// update slice is rank(original) - len(dimension_map) dimensions, as
	// in IREE). The region's block takes (update, original) elements and
	// yields the new element.
	ScatterName = "iree_linalg_ext.scatter"
	// SortName is iree_linalg_ext.sort: operands are the tensors to sort
	// (outs), one result each; attribute dimension (i64). The region's
	// block takes (lhs, rhs) element pairs for every operand in order and
	// yields an i1 that is true when lhs must come before rhs. gree sorts
	// stably. A sort may have a second set of results (SortScratch): scratch
	// buffers for the merge passes.
	SortName = "iree_linalg_ext.sort"
	// TopKV2Name is iree_linalg_ext.topk_v2 as IREE defines it: operands
	// values, optional input indices, output values and optional output
	// indices (operandSegmentSizes [1, 0|1, 1, 0|1]); attributes dimension
	// and is_sorted; results are the outputs. The region orders two values
	// (true: the first comes first).
	TopKV2Name = "iree_linalg_ext.topk_v2"
	// ScanName is iree_linalg_ext.scan: operands input, output and
	// accumulator (the outputs, one result each); attributes dimension and
	// inclusive. The region combines (previous output, input element).
	ScanName = "iree_linalg_ext.scan"
	// ExtYieldName is the terminator of their regions.
	ExtYieldName = "iree_linalg_ext.yield"
)

// IsExtOp reports a core op that is not a generic and owns a dispatch.
func IsExtOp(op *ir.Operation) bool {
	return op != nil && (op.Name == ScatterName || op.Name == SortName || op.Name == TopKV2Name || op.Name == ScanName)
}

// ExtInits returns the destination operands (outs) of an ext op, one per
// result: the original of a scatter, the operands of a sort, the outputs
// of a topk_v2 or a scan.
func ExtInits(op *ir.Operation) []*ir.Value {
	switch op.Name {
	case ScatterName:
		return op.Operands[len(op.Operands)-1:]
	case SortName:
		if len(op.Results) == 2*len(op.Operands) {
			// Scratch results (SortScratch) are shaped as the operands.
			return append(append([]*ir.Value{}, op.Operands...), op.Operands...)
		}
		return op.Operands[len(op.Operands)-len(op.Results):]
	case TopKV2Name, ScanName:
		return op.Operands[len(op.Operands)-len(op.Results):]
	}
	return nil
}

// ExtBody returns the single block of an ext op's region.
func ExtBody(op *ir.Operation) *ir.Block {
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return nil
	}
	return op.Regions[0].Blocks[0]
}

// BuildScatter creates an iree_linalg_ext.scatter in gree's form at b's
// insertion point; body receives the (update, original) elements and
// returns the value to store.
func BuildScatter(b *ir.Builder, updates, indices, original *ir.Value, dimMap []int64, batchRank int, unique bool,
	body func(bb *ir.Builder, update, orig *ir.Value) *ir.Value) *ir.Operation {
	op := b.CreateWithRegions(ScatterName, []*ir.Value{updates, indices, original}, []ir.Type{original.Type}, 1,
		ir.Named("batch_rank", ir.IntAttr(int64(batchRank), ir.I64)),
		ir.Named("dimension_map", &ir.DenseArrayAttr{Elem: ir.I64, Ints: dimMap}),
		ir.Named("unique_indices", &ir.BoolAttr{Value: unique}))
	elem := ir.ElementTypeOf(original.Type)
	blk := ir.NewBlock()
	op.Regions[0].AddBlock(blk)
	u := blk.AddArgument(elem, b.Loc)
	o := blk.AddArgument(elem, b.Loc)
	bb := ir.AtEnd(blk, b.Loc)
	bb.Create(ExtYieldName, []*ir.Value{body(bb, u, o)}, nil)
	return op
}

// BuildSort creates an iree_linalg_ext.sort of operands along dim at b's
// insertion point; less receives (lhs, rhs) pairs for every operand and
// returns the i1 "lhs comes first".
func BuildSort(b *ir.Builder, operands []*ir.Value, dim int, less func(bb *ir.Builder, args []*ir.Value) *ir.Value) *ir.Operation {
	var types []ir.Type
	for _, v := range operands {
		types = append(types, v.Type)
	}
	op := b.CreateWithRegions(SortName, operands, types, 1, ir.Named("dimension", ir.IntAttr(int64(dim), ir.I64)))
	blk := ir.NewBlock()
	op.Regions[0].AddBlock(blk)
	var args []*ir.Value
	for _, v := range operands {
		e := ir.ElementTypeOf(v.Type)
		args = append(args, blk.AddArgument(e, b.Loc), blk.AddArgument(e, b.Loc))
	}
	bb := ir.AtEnd(blk, b.Loc)
	bb.Create(ExtYieldName, []*ir.Value{less(bb, args)}, nil)
	return op
}

// SortScratchMin is the shortest static slice that a sort merges through
// scratch buffers (shorter ones are insertion-sorted in place; dynamic
// ones are always merged).
const SortScratchMin = 32

// SortScratch gives a sort of dynamic slices, or static ones of
// SortScratchMin or more elements, a scratch result per operand (shaped as the operand, unused
// by the program) that codegen merges through; it returns the new op, or
// op itself when no scratch is needed. fn is the function holding op.
func SortScratch(fn, op *ir.Operation) *ir.Operation {
	d, ok := op.Attr("dimension").(*ir.IntegerAttr)
	if !ok || len(op.Results) != len(op.Operands) || len(op.Operands) == 0 {
		return op
	}
	t, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || int(d.Value) >= len(t.Dims) || d.Value < 0 || (t.Dims[d.Value] >= 0 && t.Dims[d.Value] < SortScratchMin) {
		return op
	}
	var types []ir.Type
	for _, v := range op.Operands {
		types = append(types, v.Type)
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	n := b.CreateWithRegions(SortName, op.Operands, append(append([]ir.Type{}, types...), types...), 1, op.Attrs...)
	if blk := ExtBody(op); blk != nil {
		n.Regions[0].AddBlock(blk)
	}
	for i, r := range op.Results {
		ir.ReplaceAllUsesWith(fn, r, n.Results[i])
	}
	op.Block().Remove(op)
	return n
}
