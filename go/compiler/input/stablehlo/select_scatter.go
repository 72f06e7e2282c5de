package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloSelectAndScatter lowers stablehlo.select_and_scatter in two steps:
// a generic over source × window loops picks, for every window, the
// operand position that the select region chooses (padding is never
// chosen; a window of padding only chooses nothing), and a core scatter
// then combines each source element into the init-filled result at its
// window's chosen position with the scatter region.
func (r *rewriter) hloSelectAndScatter(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) != 3 || len(op.Results) != 1 || len(op.Regions) != 2 {
		return ir.OpErrorf(op, "needs operand, source, init value and two regions")
	}
	operand, source, init := op.Operands[0], op.Operands[1], op.Operands[2]
	ot, ok1 := operand.Type.(*ir.RankedTensorType)
	st, ok2 := source.Type.(*ir.RankedTensorType)
	rt, ok3 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || !ir.HasStaticShape(ot) || !ir.HasStaticShape(st) {
		return ir.OpErrorf(op, "with dynamic shapes is not supported by gree yet")
	}
	sel, sct := op.Regions[0].Entry(), op.Regions[1].Entry()
	if sel == nil || sct == nil || len(sel.Args) != 2 || len(sct.Args) != 2 {
		return ir.OpErrorf(op, "needs select and scatter regions of two arguments")
	}
	O := len(ot.Dims)
	win := core.IntsOf(op, "window_dimensions")
	strides := fill1(core.IntsOf(op, "window_strides"), O)
	padLow := make([]int64, O)
	if p, ok := op.Attr("padding").(*ir.DenseElementsAttr); ok {
		for i := 0; i < O && int64(2*i) < p.NumElements(); i++ {
			padLow[i] = p.IntAt(int64(2 * i))
		}
	}
	if len(win) != O || len(st.Dims) != O || len(strides) != O {
		return ir.OpErrorf(op, "has window attributes that do not match its operand rank")
	}
	rowStride := make([]int64, O)
	s := int64(1)
	for i := O - 1; i >= 0; i-- {
		rowStride[i] = s
		s *= ot.Dims[i]
	}
	total := s
	// Step 1: the chosen (value, flat position) of every window.
	n := 2 * O
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	shape := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(win, ot.Elem)}).Result(0)
	wm := &ir.AffineMap{NumDims: n}
	for i := 0; i < O; i++ {
		wm.Results = append(wm.Results, &ir.AffineDimExpr{Pos: O + i})
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	valT, posT := ir.Tensor(st.Dims, ot.Elem), ir.Tensor(st.Dims, ir.I64)
	fillWith := func(t *ir.RankedTensorType, v *ir.Value) *ir.Value {
		e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
		k := len(t.Dims)
		return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, t)).Result(0)
	}
	var zero *ir.Value
	if ft, ok := ot.Elem.(*ir.FloatType); ok {
		zero = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		zero = b.Constant(ir.IntAttr(0, ot.Elem))
	}
	accV := fillWith(valT, zero)
	accP := fillWith(posT, b.Constant(ir.IntAttr(-1, ir.I64)))
	var err error
	g := linalg.BuildGeneric(b, []*ir.Value{shape}, []*ir.Value{accV, accP}, []*ir.AffineMap{wm, om, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		ix := make([]*ir.Value, O)
		var inside, flat *ir.Value
		for i := 0; i < O; i++ {
			pos := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, i), c(strides[i])), core.LoopIndex(bb, O+i)), c(padLow[i]))
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, pos, c(0)), core.CmpI(bb, core.PredSLT, pos, c(ot.Dims[i])))
			cl := core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.maxsi", pos, c(0)), c(ot.Dims[i]-1))
			ix[i] = cl
			term := core.BinOp(bb, "arith.muli", cl, c(rowStride[i]))
			if inside == nil {
				inside, flat = ok, term
			} else {
				inside, flat = core.BinOp(bb, "arith.andi", inside, ok), core.BinOp(bb, "arith.addi", flat, term)
			}
		}
		x := bb.Create("tensor.extract", append([]*ir.Value{operand}, ix...), []ir.Type{ot.Elem}).Result(0)
		ys, e := hloScalarBody(bb, sel, []*ir.Value{args[1], x})
		if e == nil && (len(ys) != 1 || !core.IsBool(ys[0].Type)) {
			e = ir.OpErrorf(op, "needs a select region that returns one i1")
		}
		if e != nil {
			err = e
			return args[1:]
		}
		// Take x when the window has chosen nothing yet or select keeps
		// the new element.
		none := bb.Create("arith.cmpi", []*ir.Value{args[2], bb.Constant(ir.IntAttr(0, ir.I64))}, []ir.Type{ir.I1}, ir.Named("predicate", ir.IntAttr(2, ir.I64))).Result(0)
		keep := core.BinOp(bb, "arith.xori", ys[0], bb.Constant(ir.IntAttr(1, ir.I1)))
		take := core.BinOp(bb, "arith.andi", inside, core.BinOp(bb, "arith.ori", none, keep))
		f := bb.Create("arith.index_cast", []*ir.Value{flat}, []ir.Type{ir.I64}).Result(0)
		v := bb.Create("arith.select", []*ir.Value{take, x, args[1]}, []ir.Type{ot.Elem}).Result(0)
		p := bb.Create("arith.select", []*ir.Value{take, f, args[2]}, []ir.Type{ir.I64}).Result(0)
		return []*ir.Value{v, p}
	})
	if err != nil {
		return err
	}
	// Step 2: scatter the source into the flattened, init-filled result.
	flatT := ir.Tensor([]int64{total}, rt.Elem)
	orig := fillWith(flatT, idxScalarOf(b, init, rt.Elem))
	idxT := ir.Tensor(append(append([]int64{}, st.Dims...), 1), ir.I64)
	idx := b.Create("tensor.reshape", []*ir.Value{g.Result(1), core.ShapeConst(b, idxT.Dims)}, []ir.Type{idxT}).Result(0)
	upd := b.Create("tensor.reshape", []*ir.Value{source, core.ShapeConst(b, append(append([]int64{}, st.Dims...), 1))}, []ir.Type{ir.Tensor(append(append([]int64{}, st.Dims...), 1), st.Elem)}).Result(0)
	sc := linalg.BuildScatter(b, upd, idx, orig, []int64{0}, O, false, func(bb *ir.Builder, u, o *ir.Value) *ir.Value {
		ys, e := hloScalarBody(bb, sct, []*ir.Value{o, u})
		if e == nil && len(ys) != 1 {
			e = ir.OpErrorf(op, "needs a scatter region that returns one value")
		}
		if e != nil {
			err = e
			return o
		}
		return ys[0]
	})
	if err != nil {
		return err
	}
	res := b.Create("tensor.reshape", []*ir.Value{sc.Result(0), core.ShapeConst(b, rt.Dims)}, []ir.Type{rt}).Result(0)
	r.Replace(op, []*ir.Value{res})
	return nil
}

// idxScalarOf returns the scalar of a rank-0 tensor (or a scalar) value.
func idxScalarOf(b *ir.Builder, v *ir.Value, elem ir.Type) *ir.Value {
	if _, ok := v.Type.(*ir.RankedTensorType); ok {
		return b.Create("tensor.extract", []*ir.Value{v}, []ir.Type{elem}).Result(0)
	}
	return v
}
