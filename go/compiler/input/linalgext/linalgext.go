package linalgext

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// rewriter is core's Rewriter with the iree_linalg_ext conversions as
// methods.
type rewriter struct{ *core.Rewriter }

// Lower converts one iree_linalg_ext op (other than its yield) in place.
func Lower(r *core.Rewriter, b *ir.Builder, op *ir.Operation) error {
	return (&rewriter{r}).linalgExt(b, op)
}

// linalgExt converts IREE's iree_linalg_ext ops: scatter, sort, topk_v2
// and scan are core ops already (they are checked here), gather,
// arg_compare, map_load, attention and the winograd transforms become
// generics, topk a sort, and map_store a scatter.
func (r *rewriter) linalgExt(b *ir.Builder, op *ir.Operation) error {
	nIn, nOut := extSegments(op)
	switch op.Name {
	case linalg.ScatterName:
		if nOut != 1 || (nIn != 2 && nIn != 3) || linalg.ExtBody(op) == nil {
			return ir.OpErrorf(op, "needs updates, indices, an optional mask, original and a region")
		}
		if _, ok := op.Attr("dimension_map").(*ir.DenseArrayAttr); !ok {
			return ir.OpErrorf(op, "needs a dimension_map")
		}
		return nil
	case linalg.SortName:
		if nIn != 0 {
			return ir.OpErrorf(op, "with ins operands is not supported by gree (sort its outs)")
		}
		if _, ok := op.Attr("dimension").(*ir.IntegerAttr); !ok || linalg.ExtBody(op) == nil {
			return ir.OpErrorf(op, "needs a dimension and a comparator region")
		}
		op.RemoveAttr("operandSegmentSizes")
		return nil
	case "iree_linalg_ext.gather":
		return r.extGather(b, op, nIn)
	case "iree_linalg_ext.arg_compare":
		return r.extArgCompare(b, op, nIn)
	case "iree_linalg_ext.topk":
		return r.extTopK(b, op, nIn)
	case linalg.TopKV2Name:
		return checkTopKV2(op)
	case linalg.ScanName:
		return checkScan(op, nIn, nOut)
	case "iree_linalg_ext.attention", "iree_linalg_ext.online_attention":
		return r.extAttention(b, op, nIn, nOut)
	case "iree_linalg_ext.winograd.input_transform":
		return r.extWinogradInput(b, op)
	case "iree_linalg_ext.winograd.output_transform":
		return r.extWinogradOutput(b, op)
	case "iree_linalg_ext.map_load":
		return r.extMapLoad(b, op)
	case "iree_linalg_ext.map_store":
		return r.extMapStore(b, op)
	}
	return ir.OpErrorf(op, "is not supported by gree yet")
}

// extSegments returns the ins and outs counts of an iree_linalg_ext op.
func extSegments(op *ir.Operation) (int, int) {
	if a, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr); ok && len(a.Ints) >= 2 {
		return int(a.Ints[0]), int(a.Ints[1])
	}
	return len(op.Operands) - len(op.Results), len(op.Results)
}

// extGather lowers iree_linalg_ext.gather (IREE's semantics: the output is
// [batch…, slice…], the slice covers the trailing source dimensions, index
// i of a batch entry adds to source dimension dimension_map[i]) to a
// generic reading the source with tensor.extract. Indices are clamped into
// the source; a false mask keeps the output's initial element.
func (r *rewriter) extGather(b *ir.Builder, op *ir.Operation, nIn int) error {
	dm, ok := op.Attr("dimension_map").(*ir.DenseArrayAttr)
	if !ok || (nIn != 2 && nIn != 3) || len(op.Results) != 1 || len(op.Operands) != nIn+1 {
		return ir.OpErrorf(op, "needs source, indices, an optional mask, an output and a dimension_map")
	}
	src, idx, out := op.Operands[0], op.Operands[1], op.Operands[nIn]
	st, ok1 := src.Type.(*ir.RankedTensorType)
	it, ok2 := idx.Type.(*ir.RankedTensorType)
	ot, ok3 := out.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || !ir.IsIntOrIndex(it.Elem) {
		return ir.OpErrorf(op, "needs ranked tensors and integer indices")
	}
	rs, ro, depth := len(st.Dims), len(ot.Dims), len(dm.Ints)
	slice := rs - depth
	batch := ro - slice
	depthDim := len(it.Dims) == batch+1
	if slice < 0 || batch < 0 || (!depthDim && (len(it.Dims) != batch || depth != 1)) {
		return ir.OpErrorf(op, "has source, indices and output ranks that do not fit its dimension_map")
	}
	for _, d := range dm.Ints {
		if d < 0 || int(d) >= rs {
			return ir.OpErrorf(op, "has dimension_map entry %d outside the source's rank", d)
		}
	}
	last := make([]*ir.Value, rs) // dim - 1, for clamping
	for d := range last {
		if st.Dims[d] >= 0 {
			last[d] = b.Constant(ir.IntAttr(st.Dims[d]-1, ir.Index))
		} else {
			last[d] = core.BinOp(b, "arith.subi", linalg.Dim(b, src, d), b.Constant(ir.IntAttr(1, ir.Index)))
		}
	}
	var ins []*ir.Value
	maps := []*ir.AffineMap{}
	if nIn == 3 {
		ins = append(ins, op.Operands[2])
		m := &ir.AffineMap{NumDims: ro}
		for d := 0; d < batch; d++ {
			m.Results = append(m.Results, &ir.AffineDimExpr{Pos: d})
		}
		maps = append(maps, m)
	}
	maps = append(maps, linalg.Identity(ro))
	g := linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, core.Parallel(ro), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		zero := bb.Constant(ir.IntAttr(0, ir.Index))
		starts := make([]*ir.Value, rs)
		for j := 0; j < slice; j++ {
			starts[depth+j] = core.LoopIndex(bb, batch+j)
		}
		var bx []*ir.Value
		for d := 0; d < batch; d++ {
			bx = append(bx, core.LoopIndex(bb, d))
		}
		for i, d := range dm.Ints {
			ix := bx
			if depthDim {
				ix = append(append([]*ir.Value{}, bx...), bb.Constant(ir.IntAttr(int64(i), ir.Index)))
			}
			v := core.ToIndex(bb, bb.Create("tensor.extract", append([]*ir.Value{idx}, ix...), []ir.Type{it.Elem}).Result(0))
			if starts[d] != nil {
				v = core.BinOp(bb, "arith.addi", v, starts[d])
			}
			starts[d] = v
		}
		for d := range starts {
			if starts[d] == nil {
				starts[d] = zero
				continue
			}
			starts[d] = core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.maxsi", starts[d], zero), last[d])
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{src}, starts...), []ir.Type{ot.Elem}).Result(0)
		if nIn == 3 {
			on := args[0]
			if !core.IsBool(on.Type) {
				on = core.CmpI(bb, 1, on, bb.Constant(ir.IntAttr(0, on.Type)))
			}
			v = bb.Create("arith.select", []*ir.Value{on, v, args[1]}, []ir.Type{ot.Elem}).Result(0)
		}
		return []*ir.Value{v}
	})
	r.Replace(op, g.Results)
	return nil
}

// extComparator inlines an iree_linalg_ext region of two scalar arguments
// (a, b) at bb and returns its i1.
func extComparator(bb *ir.Builder, op *ir.Operation, a, c *ir.Value) (*ir.Value, error) {
	blk := linalg.ExtBody(op)
	if blk == nil || len(blk.Args) != 2 {
		return nil, ir.OpErrorf(op, "needs a comparator region of two arguments")
	}
	m := ir.Mapping{blk.Args[0]: a, blk.Args[1]: c}
	for _, o := range blk.Ops {
		if o.Name == linalg.ExtYieldName {
			if len(o.Operands) != 1 || !core.IsBool(o.Operands[0].Type) {
				return nil, ir.OpErrorf(o, "must yield one i1")
			}
			return m.Lookup(o.Operands[0]), nil
		}
		bb.Clone(o, m)
	}
	return nil, ir.OpErrorf(op, "has a region without %s", linalg.ExtYieldName)
}

// checkScan checks an iree_linalg_ext.scan, which stays a core op.
func checkScan(op *ir.Operation, nIn, nOut int) error {
	da, ok := op.Attr("dimension").(*ir.IntegerAttr)
	_, ok2 := op.Attr("inclusive").(*ir.BoolAttr)
	if !ok || !ok2 || nIn != 1 || nOut != 2 || len(op.Results) != 2 || linalg.ExtBody(op) == nil {
		return ir.OpErrorf(op, "needs a dimension, inclusive, one input, an output, an accumulator and a region")
	}
	it, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	at, ok2 := op.Operands[2].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || da.Value < 0 || int(da.Value) >= len(it.Dims) || len(at.Dims) != len(it.Dims)-1 {
		return ir.OpErrorf(op, "has a dimension or accumulator rank that does not fit its input")
	}
	op.RemoveAttr("operandSegmentSizes")
	return nil
}
