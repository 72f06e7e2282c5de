package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloReduceWindowVariadic lowers a reduce_window of N inputs and N inits
// (argmax-style windows: the body compares and selects across the
// inputs) to one generic with N outputs over output × window loops; the
// body is the region on scalars, its first N arguments the accumulators.
// Padding, strides and dilations as in the one-input form.
func (r *rewriter) hloReduceWindowVariadic(b *ir.Builder, op *ir.Operation) error {
	nIn := len(op.Operands) / 2
	blk := core.RegionBlock(op)
	if blk == nil || len(op.Operands) != 2*nIn || len(op.Results) != nIn || len(blk.Args) != 2*nIn {
		return ir.OpErrorf(op, "has a malformed body or operand list")
	}
	ins, inits := op.Operands[:nIn], op.Operands[nIn:]
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "needs static result shapes")
	}
	O := len(rt.Dims)
	var its0 []*ir.RankedTensorType
	for _, v := range ins {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || !ir.HasStaticShape(t) || len(t.Dims) != O {
			return ir.OpErrorf(op, "needs static inputs of the result's rank")
		}
		its0 = append(its0, t)
	}
	win := core.IntsOf(op, "window_dimensions")
	if len(win) != O {
		return ir.OpErrorf(op, "has window dimensions that do not match its operand rank")
	}
	strides := fill1(core.IntsOf(op, "window_strides"), O)
	baseDil, winDil := fill1(core.IntsOf(op, "base_dilations"), O), fill1(core.IntsOf(op, "window_dilations"), O)
	padLow := make([]int64, O)
	if p, ok := op.Attr("padding").(*ir.DenseElementsAttr); ok {
		for i := 0; i < O; i++ {
			padLow[i] = p.IntAt(int64(2 * i))
		}
	}
	n := 2 * O
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	shape := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(win, ir.F32)}).Result(0)
	wm := &ir.AffineMap{NumDims: n}
	for i := 0; i < O; i++ {
		wm.Results = append(wm.Results, &ir.AffineDimExpr{Pos: O + i})
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	var outs []*ir.Value
	maps := []*ir.AffineMap{wm}
	for i, init := range inits {
		t := op.Results[i].Type.(*ir.RankedTensorType)
		e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
		outs = append(outs, linalg.BuildGeneric(b, []*ir.Value{init}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: O}, linalg.Identity(O)}, core.Parallel(O), core.YieldArg(0, t)).Result(0))
		maps = append(maps, om)
	}
	var err error
	g := linalg.BuildGeneric(b, []*ir.Value{shape}, outs, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		var inside *ir.Value
		ix := make([]*ir.Value, O)
		for i := 0; i < O; i++ {
			w := core.LoopIndex(bb, O+i)
			if winDil[i] > 1 {
				w = core.BinOp(bb, "arith.muli", w, c(winDil[i]))
			}
			pos := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, i), c(strides[i])), w), c(padLow[i]))
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, pos, c(0)), core.CmpI(bb, core.PredSLT, pos, c((its0[0].Dims[i]-1)*baseDil[i]+1)))
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
			ix[i] = bb.Create("arith.minsi", []*ir.Value{cl, c(its0[0].Dims[i] - 1)}, []ir.Type{ir.Index}).Result(0)
		}
		accs := args[1:]
		var xs []*ir.Value
		for j, v := range ins {
			et := its0[j].Elem
			x := bb.Create("tensor.extract", append([]*ir.Value{v}, ix...), []ir.Type{et}).Result(0)
			iv := bb.Create("tensor.extract", []*ir.Value{inits[j]}, []ir.Type{et}).Result(0)
			xs = append(xs, bb.Create("arith.select", []*ir.Value{inside, x, iv}, []ir.Type{et}).Result(0))
		}
		vals, e := hloScalarBody(bb, blk, append(append([]*ir.Value{}, accs...), xs...))
		if e != nil || len(vals) != nIn {
			if e == nil {
				e = ir.OpErrorf(op, "has a body that does not return one value per input")
			}
			err = e
			return accs
		}
		return vals
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}
