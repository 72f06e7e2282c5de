package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloReduceWindow lowers a single-input stablehlo.reduce_window (window
// dimensions, strides, padding, base and window dilations) to a generic
// over output × window loops. Padded positions and the holes of a base
// dilation read the init value, as in StableHLO.
func (r *rewriter) hloReduceWindow(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	blk := core.RegionBlock(op)
	if len(op.Operands) > 2 {
		return r.hloReduceWindowVariadic(b, op)
	}
	if blk == nil || len(op.Operands) != 2 || len(op.Results) != 1 || len(blk.Args) != 2 {
		return ir.OpErrorf(op, "has a malformed body or operand list")
	}
	in, init := op.Operands[0], op.Operands[1]
	it := in.Type.(*ir.RankedTensorType)
	O := len(rt.Dims)
	win := core.IntsOf(op, "window_dimensions")
	strides := fill1(core.IntsOf(op, "window_strides"), O)
	baseDil, winDil := fill1(core.IntsOf(op, "base_dilations"), O), fill1(core.IntsOf(op, "window_dilations"), O)
	padLow := make([]int64, O)
	if p, ok := op.Attr("padding").(*ir.DenseElementsAttr); ok {
		for i := 0; i < O; i++ {
			padLow[i] = p.IntAt(int64(2 * i))
		}
	}
	if len(win) != O || len(it.Dims) != O || !ir.HasStaticShape(it) {
		return ir.OpErrorf(op, "has window dimensions that do not match its operand rank")
	}
	n := 2 * O
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	// A rank-O tensor of the window's shape gives the window loops their
	// sizes.
	winT := ir.Tensor(win, rt.Elem)
	shape := b.Create("tensor.empty", nil, []ir.Type{winT}).Result(0)
	wm := &ir.AffineMap{NumDims: n}
	for i := 0; i < O; i++ {
		wm.Results = append(wm.Results, &ir.AffineDimExpr{Pos: O + i})
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	e := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	filled := linalg.BuildGeneric(b, []*ir.Value{init}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: O}, linalg.Identity(O)}, core.Parallel(O), core.YieldArg(0, rt))
	var err error
	g := linalg.BuildGeneric(b, []*ir.Value{shape}, filled.Results, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		ix := make([]*ir.Value, O)
		var inside *ir.Value
		for i := 0; i < O; i++ {
			// pos is in the base-dilated input, whose holes read the init value.
			base := core.BinOp(bb, "arith.muli", core.LoopIndex(bb, i), c(strides[i]))
			w := core.LoopIndex(bb, O+i)
			if winDil[i] > 1 {
				w = core.BinOp(bb, "arith.muli", w, c(winDil[i]))
			}
			pos := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", base, w), c(padLow[i]))
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, pos, c(0)), core.CmpI(bb, core.PredSLT, pos, c((it.Dims[i]-1)*baseDil[i]+1)))
			if baseDil[i] > 1 {
				ok = core.BinOp(bb, "arith.andi", ok, core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remsi", pos, c(baseDil[i])), c(0)))
				pos = core.BinOp(bb, "arith.divsi", pos, c(baseDil[i]))
			}
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			cl := bb.Create("arith.maxsi", []*ir.Value{pos, c(0)}, []ir.Type{ir.Index}).Result(0)
			ix[i] = bb.Create("arith.minsi", []*ir.Value{cl, c(it.Dims[i] - 1)}, []ir.Type{ir.Index}).Result(0)
		}
		x := bb.Create("tensor.extract", append([]*ir.Value{in}, ix...), []ir.Type{rt.Elem}).Result(0)
		iv := bb.Create("tensor.extract", []*ir.Value{init}, []ir.Type{rt.Elem}).Result(0)
		x = bb.Create("arith.select", []*ir.Value{inside, x, iv}, []ir.Type{rt.Elem}).Result(0)
		vals, e := hloScalarBody(bb, blk, []*ir.Value{args[1], x})
		if e != nil {
			err = e
			return args[1:]
		}
		return vals
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}
