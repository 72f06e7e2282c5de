package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// bitcastToPackedBits lowers flow.tensor.bitcast from i8 to i1 (any
// static shapes, IREE's packed_storage: eight i1 elements per byte, the
// first in the lowest bit, in row-major order); done is false for other
// bitcasts.
func (r *Rewriter) bitcastToPackedBits(b *ir.Builder, op *ir.Operation) (bool, error) {
	st, ok1 := op.Operands[0].Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || elementBits(st) != 8 || !IsBool(rt.Elem) {
		return false, nil
	}
	ns, ok3 := ir.NumElements(st.Dims)
	nr, ok4 := ir.NumElements(rt.Dims)
	if !ok3 || !ok4 || !ir.HasStaticShape(st) || !ir.HasStaticShape(rt) || nr > 8*ns {
		return true, ir.OpErrorf(op, "from %s to %s needs static shapes with at most 8 bits per byte", st, rt)
	}
	src := op.Operands[0]
	n := len(rt.Dims)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		flat := c(0)
		for d := 0; d < n; d++ {
			flat = BinOp(bb, "arith.addi", BinOp(bb, "arith.muli", flat, c(rt.Dims[d])), LoopIndex(bb, d))
		}
		byteIdx := BinOp(bb, "arith.divui", flat, c(8))
		bit := BinOp(bb, "arith.remui", flat, c(8))
		ix := make([]*ir.Value, len(st.Dims))
		for d := len(st.Dims) - 1; d >= 0; d-- {
			ix[d] = BinOp(bb, "arith.remui", byteIdx, c(st.Dims[d]))
			byteIdx = BinOp(bb, "arith.divui", byteIdx, c(st.Dims[d]))
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{st.Elem}).Result(0)
		sh := bb.Create("arith.index_cast", []*ir.Value{bit}, []ir.Type{st.Elem}).Result(0)
		v = BinOp(bb, "arith.shrui", v, sh)
		return []*ir.Value{bb.Create("arith.trunci", []*ir.Value{v}, []ir.Type{ir.I1}).Result(0)}
	})
	r.Replace(op, g.Results)
	return true, nil
}
