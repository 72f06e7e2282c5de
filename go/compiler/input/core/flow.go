package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// elementBits returns the bit width of a tensor's element type.
func elementBits(t ir.Type) int {
	switch e := ir.ElementTypeOf(t).(type) {
	case *ir.IntegerType:
		return e.Width
	case *ir.FloatType:
		return e.Kind.Width()
	}
	return 0
}

// flowBitcast lowers flow.tensor.bitcast: same-width element types become
// an element-wise arith.bitcast; 8-bit ↔ 4-bit (along the innermost
// dimension, two 4-bit elements per byte, low nibble first) becomes a
// pack or unpack kernel, since gree stores one 4-bit element per byte.
func (r *Rewriter) flowBitcast(b *ir.Builder, op *ir.Operation) error {
	if done, err := r.bitcastToPackedBits(b, op); done || err != nil {
		return err
	}
	src := op.Operands[0]
	st, ok1 := src.Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ir.HasStaticShape(st) || !ir.HasStaticShape(rt) || len(st.Dims) != len(rt.Dims) || len(rt.Dims) == 0 {
		return ir.OpErrorf(op, "is supported for static shapes of the same rank only")
	}
	sb, rb := elementBits(src.Type), elementBits(rt)
	n := len(rt.Dims)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	var g *ir.Operation
	switch {
	case sb == rb:
		g = linalg.BuildGeneric(b, []*ir.Value{src}, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, Parallel(n),
			func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
				return []*ir.Value{bb.Create("arith.bitcast", args[:1], []ir.Type{rt.Elem}).Result(0)}
			})
	case sb == 8 && rb == 4 && rt.Dims[n-1] == 2*st.Dims[n-1]:
		i4 := ir.Int(4)
		g = linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for d := 0; d < n; d++ {
				ix = append(ix, LoopIndex(bb, d))
			}
			two := bb.Constant(ir.IntAttr(2, ir.Index))
			j := ix[n-1]
			ix[n-1] = BinOp(bb, "arith.divui", j, two)
			byteV := bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{st.Elem}).Result(0)
			shift := BinOp(bb, "arith.muli", BinOp(bb, "arith.remui", j, two), bb.Constant(ir.IntAttr(4, ir.Index)))
			sh := bb.Create("arith.index_cast", []*ir.Value{shift}, []ir.Type{st.Elem}).Result(0)
			nib := bb.Create("arith.trunci", []*ir.Value{BinOp(bb, "arith.shrui", byteV, sh)}, []ir.Type{i4}).Result(0)
			if ir.IsFloat(rt.Elem) {
				nib = bb.Create("arith.bitcast", []*ir.Value{nib}, []ir.Type{rt.Elem}).Result(0)
			}
			return []*ir.Value{nib}
		})
	case sb == 4 && rb == 8 && st.Dims[n-1] == 2*rt.Dims[n-1]:
		i4 := ir.Int(4)
		g = linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for d := 0; d < n; d++ {
				ix = append(ix, LoopIndex(bb, d))
			}
			two := bb.Constant(ir.IntAttr(2, ir.Index))
			lo := BinOp(bb, "arith.muli", ix[n-1], two)
			hi := BinOp(bb, "arith.addi", lo, bb.Constant(ir.IntAttr(1, ir.Index)))
			code := func(k *ir.Value) *ir.Value {
				jx := append(append([]*ir.Value{src}, ix[:n-1]...), k)
				v := bb.Create("tensor.extract", jx, []ir.Type{st.Elem}).Result(0)
				if ir.IsFloat(st.Elem) {
					v = bb.Create("arith.bitcast", []*ir.Value{v}, []ir.Type{i4}).Result(0)
				}
				return bb.Create("arith.extui", []*ir.Value{v}, []ir.Type{rt.Elem}).Result(0)
			}
			four := bb.Constant(ir.IntAttr(4, rt.Elem))
			return []*ir.Value{BinOp(bb, "arith.ori", code(lo), BinOp(bb, "arith.shli", code(hi), four))}
		})
	default:
		return ir.OpErrorf(op, "from %s to %s is not supported (same element width, or 8-bit to/from 4-bit packing)", st, rt)
	}
	r.Replace(op, g.Results)
	return nil
}

// flowReshape lowers a static flow.tensor.reshape to tensor.reshape.
func (r *Rewriter) flowReshape(b *ir.Builder, op *ir.Operation) error {
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	st, ok2 := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || !ir.HasStaticShape(rt) || !ir.HasStaticShape(st) || len(op.Operands) != 1 {
		return ir.OpErrorf(op, "with dynamic shapes is not supported by gree yet")
	}
	res := b.Create("tensor.reshape", []*ir.Value{op.Operands[0], ShapeConst(b, rt.Dims)}, []ir.Type{rt})
	r.Replace(op, res.Results)
	return nil
}

// ShapeConst is a 1-D i64 constant holding dims (tensor.reshape's shape).
func ShapeConst(b *ir.Builder, dims []int64) *ir.Value {
	return b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(dims))}, ir.I64), Ints: dims})
}
