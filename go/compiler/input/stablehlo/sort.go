package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloSort lowers stablehlo.sort (any number of operands, any comparator,
// any dimension) to the core sort, which is always stable (so is_stable
// holds either way).
func (r *rewriter) hloSort(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) == 0 || len(op.Operands) != len(op.Results) {
		return ir.OpErrorf(op, "needs as many results as operands")
	}
	rank := len(idxDims(op.Operands[0]))
	dim := 0
	if a, ok := op.Attr("dimension").(*ir.IntegerAttr); ok {
		dim = int(a.Value)
	}
	if dim < 0 {
		dim += rank
	}
	if dim < 0 || dim >= rank {
		return ir.OpErrorf(op, "has dimension %d outside the operand rank %d", dim, rank)
	}
	blk := core.RegionBlock(op)
	if blk == nil || len(blk.Args) != 2*len(op.Operands) {
		return ir.OpErrorf(op, "needs a comparator with two arguments per operand")
	}
	var err error
	s := linalg.BuildSort(b, op.Operands, dim, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		ys, e := hloScalarBody(bb, blk, args)
		if e == nil && (len(ys) != 1 || !core.IsBool(ys[0].Type)) {
			e = ir.OpErrorf(op, "needs a comparator that returns one i1")
		}
		if e != nil {
			err = e
			return bb.Constant(ir.IntAttr(0, ir.I1))
		}
		return ys[0]
	})
	if err != nil {
		return err
	}
	r.Replace(op, s.Results)
	return nil
}

// idxDims returns the dimensions of a ranked tensor value (nil for
// anything else).
func idxDims(v *ir.Value) []int64 {
	if t, ok := v.Type.(*ir.RankedTensorType); ok {
		if t.Dims == nil {
			return []int64{}
		}
		return t.Dims
	}
	return nil
}

// chloTopK lowers chlo.top_k: a stable sort of the operand, descending
// along the last dimension, together with an iota of positions, and the
// first k of both.
func (r *rewriter) chloTopK(b *ir.Builder, op *ir.Operation) error {
	ka, ok := op.Attr("k").(*ir.IntegerAttr)
	if !ok || len(op.Operands) != 1 || len(op.Results) != 2 {
		return ir.OpErrorf(op, "needs one operand, a k attribute and two results")
	}
	vt, ok1 := op.Results[0].Type.(*ir.RankedTensorType)
	xt, ok2 := op.Operands[0].Type.(*ir.RankedTensorType)
	it, ok3 := op.Results[1].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || len(xt.Dims) == 0 {
		return ir.OpErrorf(op, "needs a ranked operand of rank at least 1")
	}
	n := len(xt.Dims)
	if ka.Value < 0 || (xt.Dims[n-1] >= 0 && ka.Value > xt.Dims[n-1]) {
		return ir.OpErrorf(op, "has k = %d outside the last dimension's size %d", ka.Value, xt.Dims[n-1])
	}
	return r.topK(b, op, op.Operands[0], vt, it)
}

// topK replaces op's two results with the largest elements of x along its
// last dimension (ties keep their order) and their positions. Floats are
// ordered totally, as XLA does: NaN first, +0 before -0.
func (r *rewriter) topK(b *ir.Builder, op *ir.Operation, x *ir.Value, vt, it *ir.RankedTensorType) error {
	xt := x.Type.(*ir.RankedTensorType)
	n := len(xt.Dims)
	e := linalg.EmptyLike(b, x, it.Elem)
	iota := linalg.BuildGeneric(b, nil, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		return []*ir.Value{core.Cast(bb, core.LoopIndex(bb, n-1), it.Elem)}
	})
	s := linalg.BuildSort(b, []*ir.Value{x, iota.Result(0)}, n-1, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		if ir.IsFloat(xt.Elem) {
			return core.Cmp(bb, "arith.cmpi", 4, totalOrderKey(bb, a[0]), totalOrderKey(bb, a[1])) // sgt
		}
		p := int64(4) // sgt
		if core.ElemKind(xt.Elem) == 2 || core.IsBool(xt.Elem) {
			p = 8 // ugt
		}
		return core.Cmp(bb, "arith.cmpi", p, a[0], a[1])
	})
	var outs []*ir.Value
	var dyn []*ir.Value
	for d := 0; d < n-1; d++ {
		if vt.Dims[d] < 0 {
			dyn = append(dyn, linalg.Dim(b, x, d))
		}
	}
	for i, t := range []*ir.RankedTensorType{vt, it} {
		o := b.Create("tensor.empty", dyn, []ir.Type{t}).Result(0)
		g := linalg.BuildGeneric(b, []*ir.Value{s.Result(i)}, []*ir.Value{o}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n),
			func(bb *ir.Builder, a []*ir.Value) []*ir.Value { return a[:1] })
		outs = append(outs, g.Result(0))
	}
	r.Replace(op, outs)
	return nil
}
