package linalgext

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// extArgCompare lowers iree_linalg_ext.arg_compare to a reduction generic
// carrying (value, index): a candidate replaces the best so far when the
// region, applied to (candidate, best), yields true. The candidate's index
// is its position along the dimension (plus index_base) or, with a second
// input, that input's element.
func (r *rewriter) extArgCompare(b *ir.Builder, op *ir.Operation, nIn int) error {
	da, ok := op.Attr("dimension").(*ir.IntegerAttr)
	if !ok || (nIn != 1 && nIn != 2) || len(op.Results) != 2 || len(op.Operands) < nIn+2 {
		return ir.OpErrorf(op, "needs a dimension, one or two inputs and two outputs")
	}
	vals := op.Operands[0]
	vt, ok := vals.Type.(*ir.RankedTensorType)
	if !ok || da.Value < 0 || int(da.Value) >= len(vt.Dims) {
		return ir.OpErrorf(op, "has a dimension outside its input's rank")
	}
	outV, outI := op.Operands[nIn], op.Operands[nIn+1]
	var base *ir.Value
	if len(op.Operands) > nIn+2 {
		base = op.Operands[nIn+2]
	}
	n, dim := len(vt.Dims), int(da.Value)
	its := make([]linalg.Iterator, n)
	its[dim] = linalg.Reduction
	om := &ir.AffineMap{NumDims: n}
	for d := 0; d < n; d++ {
		if d != dim {
			om.Results = append(om.Results, &ir.AffineDimExpr{Pos: d})
		}
	}
	var maps []*ir.AffineMap
	for i := 0; i < nIn; i++ {
		maps = append(maps, linalg.Identity(n))
	}
	maps = append(maps, om, om)
	ie := ir.ElementTypeOf(outI.Type)
	var err error
	g := linalg.BuildGeneric(b, op.Operands[:nIn], []*ir.Value{outV, outI}, maps, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		x, accV, accI := a[0], a[nIn], a[nIn+1]
		c, e := extComparator(bb, op, x, accV)
		if e != nil {
			err = e
			return []*ir.Value{accV, accI}
		}
		var xi *ir.Value
		if nIn == 2 {
			xi = core.Cast(bb, a[1], ie)
		} else {
			p := core.LoopIndex(bb, dim)
			if base != nil {
				p = core.BinOp(bb, "arith.addi", p, base)
			}
			xi = core.Cast(bb, p, ie)
		}
		return []*ir.Value{
			bb.Create("arith.select", []*ir.Value{c, x, accV}, []ir.Type{accV.Type}).Result(0),
			bb.Create("arith.select", []*ir.Value{c, xi, accI}, []ir.Type{ie}).Result(0),
		}
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}

// extTopK lowers iree_linalg_ext.topk: the outputs' initial (value,
// index) pairs and the inputs are joined along the dimension, sorted
// stably by the region (equal values by index, as IREE selects the first
// occurrence), and the first K (the outputs' size) are the results.
func (r *rewriter) extTopK(b *ir.Builder, op *ir.Operation, nIn int) error {
	da, ok := op.Attr("dimension").(*ir.IntegerAttr)
	if !ok || (nIn != 1 && nIn != 2) || len(op.Results) != 2 || len(op.Operands) != nIn+2 {
		return ir.OpErrorf(op, "needs a dimension, one or two inputs and two outputs")
	}
	vals, outV, outI := op.Operands[0], op.Operands[nIn], op.Operands[nIn+1]
	vt, ok1 := vals.Type.(*ir.RankedTensorType)
	ovt, ok2 := outV.Type.(*ir.RankedTensorType)
	oit, ok3 := outI.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || !ir.HasStaticShape(vt) || !ir.HasStaticShape(ovt) || len(ovt.Dims) != len(vt.Dims) {
		return ir.OpErrorf(op, "needs statically shaped inputs and outputs of one rank")
	}
	n, dim := len(vt.Dims), int(da.Value)
	if dim < 0 || dim >= n {
		return ir.OpErrorf(op, "has a dimension outside its input's rank")
	}
	K, N := ovt.Dims[dim], vt.Dims[dim]
	if K < 1 || N < 1 {
		return ir.OpErrorf(op, "needs non-empty inputs and outputs")
	}
	joined := append([]int64{}, vt.Dims...)
	joined[dim] = K + N
	join := func(first, second *ir.Value, elem ir.Type, iota bool) *ir.Value {
		t := ir.Tensor(joined, elem)
		e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
		return linalg.BuildGeneric(b, nil, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
			ix := make([]*ir.Value, n)
			for d := range ix {
				ix[d] = core.LoopIndex(bb, d)
			}
			p := ix[dim]
			inFirst := core.CmpI(bb, core.PredSLT, p, c(K))
			ix[dim] = core.BinOp(bb, "arith.minsi", p, c(K-1))
			a := bb.Create("tensor.extract", append([]*ir.Value{first}, ix...), []ir.Type{elem}).Result(0)
			q := core.BinOp(bb, "arith.maxsi", core.BinOp(bb, "arith.subi", p, c(K)), c(0))
			var s *ir.Value
			if iota {
				s = core.Cast(bb, q, elem)
			} else {
				ix[dim] = q
				s = bb.Create("tensor.extract", append([]*ir.Value{second}, ix...), []ir.Type{elem}).Result(0)
			}
			return []*ir.Value{bb.Create("arith.select", []*ir.Value{inFirst, a, s}, []ir.Type{elem}).Result(0)}
		}).Result(0)
	}
	jv := join(outV, vals, vt.Elem, false)
	var ji *ir.Value
	if nIn == 2 {
		ji = join(outI, op.Operands[1], oit.Elem, false)
	} else {
		ji = join(outI, nil, oit.Elem, true)
	}
	var err error
	s := linalg.BuildSort(b, []*ir.Value{jv, ji}, dim, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		f, e := extComparator(bb, op, a[0], a[1])
		if e != nil {
			err = e
			return bb.Constant(ir.IntAttr(0, ir.I1))
		}
		rev, _ := extComparator(bb, op, a[1], a[0])
		same := core.CmpI(bb, 0, f, rev)
		first := core.CmpI(bb, core.PredSLT, a[2], a[3])
		return core.BinOp(bb, "arith.ori", f, core.BinOp(bb, "arith.andi", same, first))
	})
	if err != nil {
		return err
	}
	var outs []*ir.Value
	for i, t := range []*ir.RankedTensorType{ovt, oit} {
		e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
		g := linalg.BuildGeneric(b, []*ir.Value{s.Result(i)}, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n),
			func(bb *ir.Builder, a []*ir.Value) []*ir.Value { return a[:1] })
		outs = append(outs, g.Result(0))
	}
	r.Replace(op, outs)
	return nil
}

// checkTopKV2 checks an iree_linalg_ext.topk_v2, which stays a core op
// (codegen runs IREE's algorithm: each input is inserted into the
// outputs, and with is_sorted the outputs are bubble-sorted after each
// insertion, which fixes the order among equal values).
func checkTopKV2(op *ir.Operation) error {
	seg, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr)
	da, ok2 := op.Attr("dimension").(*ir.IntegerAttr)
	if !ok || !ok2 || len(seg.Ints) != 4 || seg.Ints[0] != 1 || seg.Ints[2] != 1 || linalg.ExtBody(op) == nil {
		return ir.OpErrorf(op, "needs a dimension, values, optional indices, output values, optional output indices and a region")
	}
	if seg.Ints[1] == 1 && seg.Ints[3] == 0 {
		return ir.OpErrorf(op, "has input indices but no output indices")
	}
	if int(seg.Ints[2]+seg.Ints[3]) != len(op.Results) {
		return ir.OpErrorf(op, "needs one result per output")
	}
	vt, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || da.Value < 0 || int(da.Value) >= len(vt.Dims) {
		return ir.OpErrorf(op, "has a dimension outside its input's rank")
	}
	for _, v := range op.Operands {
		if t, ok := v.Type.(*ir.RankedTensorType); !ok || len(t.Dims) != len(vt.Dims) {
			return ir.OpErrorf(op, "needs ranked operands of one rank")
		}
	}
	return nil
}
