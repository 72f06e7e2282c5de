package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloBitcastResize lowers stablehlo.bitcast_convert between element types
// of different widths (lax.bitcast_convert_type(f32 → u8), JAX's rbg PRNG
// keys): the narrow side has an extra trailing dimension of
// wide/narrow elements, element 0 holding the least significant bits (the
// memory order of a little-endian machine, as XLA's CPU backend gives).
func (r *rewriter) hloBitcastResize(b *ir.Builder, op *ir.Operation) error {
	it, ok1 := op.Operands[0].Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ir.HasStaticShape(it) || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "with dynamic shapes is not supported by gree yet")
	}
	iw, ow := core.Width(it.Elem), core.Width(rt.Elem)
	wide, narrow := it, rt
	if iw < ow {
		wide, narrow = rt, it
	}
	ww, nw := core.Width(wide.Elem), core.Width(narrow.Elem)
	k := int64(ww / nw)
	if ww%nw != 0 || len(narrow.Dims) != len(wide.Dims)+1 || narrow.Dims[len(narrow.Dims)-1] != k {
		return ir.OpErrorf(op, "bitcasts %s to %s: the narrow side needs a last dimension of %d/%d elements", it, rt, ww, nw)
	}
	for i, d := range wide.Dims {
		if narrow.Dims[i] != d {
			return ir.OpErrorf(op, "bitcasts %s to %s, whose leading dimensions differ", it, rt)
		}
	}
	wi, ni := ir.Int(ww), ir.Int(nw)
	toInt := func(bb *ir.Builder, v *ir.Value, t ir.Type) *ir.Value {
		if ir.TypesEqual(v.Type, t) {
			return v
		}
		return bb.Create("arith.bitcast", []*ir.Value{v}, []ir.Type{t}).Result(0)
	}
	n := len(rt.Dims)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	var g *ir.Operation
	if iw > ow {
		// Split: result[..., j] is bits [j*nw, (j+1)*nw) of operand[...].
		m := linalg.Identity(n)
		m.Results = m.Results[:n-1]
		g = linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n),
			func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
				x := toInt(bb, args[0], wi)
				j := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, n-1)}, []ir.Type{wi}).Result(0)
				sh := core.BinOp(bb, "arith.muli", j, bb.Constant(ir.IntAttr(int64(nw), wi)))
				x = core.BinOp(bb, "arith.shrui", x, sh)
				x = bb.Create("arith.trunci", []*ir.Value{x}, []ir.Type{ni}).Result(0)
				return []*ir.Value{toInt(bb, x, rt.Elem)}
			})
	} else {
		// Merge: result[...] ORs operand[..., j] shifted by j*nw.
		src := op.Operands[0]
		g = linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n),
			func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
				var ix []*ir.Value
				for d := 0; d < n; d++ {
					ix = append(ix, core.LoopIndex(bb, d))
				}
				acc := bb.Constant(ir.IntAttr(0, wi))
				for j := int64(0); j < k; j++ {
					e := bb.Create("tensor.extract", append(append([]*ir.Value{src}, ix...), bb.Constant(ir.IntAttr(j, ir.Index))), []ir.Type{it.Elem}).Result(0)
					x := bb.Create("arith.extui", []*ir.Value{toInt(bb, e, ni)}, []ir.Type{wi}).Result(0)
					if j > 0 {
						x = core.BinOp(bb, "arith.shli", x, bb.Constant(ir.IntAttr(j*int64(nw), wi)))
					}
					acc = core.BinOp(bb, "arith.ori", acc, x)
				}
				return []*ir.Value{toInt(bb, acc, rt.Elem)}
			})
	}
	r.Replace(op, g.Results)
	return nil
}
