package linalgext

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Winograd F(6×6, 3×3) transform matrices (Liu et al., "Optimizing
// Winograd-Based Convolution with Tensor Cores", ICPP 2021), the ones
// IREE's winograd ops are defined with: the input transform is Bᵀ·d·B for
// an 8×8 input tile d, the output transform Aᵀ·m·A for an 8×8 tile m.
var (
	winogradBT = [8][8]float64{
		{1, 0, -21.0 / 4, 0, 21.0 / 4, 0, -1, 0},
		{0, 1, 1, -17.0 / 4, -17.0 / 4, 1, 1, 0},
		{0, -1, 1, 17.0 / 4, -17.0 / 4, -1, 1, 0},
		{0, 1.0 / 2, 1.0 / 4, -5.0 / 2, -5.0 / 4, 2, 1, 0},
		{0, -1.0 / 2, 1.0 / 4, 5.0 / 2, -5.0 / 4, -2, 1, 0},
		{0, 2, 4, -5.0 / 2, -5, 1.0 / 2, 1, 0},
		{0, -2, 4, 5.0 / 2, -5, -1.0 / 2, 1, 0},
		{0, -1, 0, 21.0 / 4, 0, -21.0 / 4, 0, 1},
	}
	winogradAT = [6][8]float64{
		{1, 1, 1, 1, 1, 1, 1, 0},
		{0, 1, -1, 2, -2, 1.0 / 2, -1.0 / 2, 0},
		{0, 1, 1, 4, 4, 1.0 / 4, 1.0 / 4, 0},
		{0, 1, -1, 8, -8, 1.0 / 8, -1.0 / 8, 0},
		{0, 1, 1, 16, 16, 1.0 / 16, 1.0 / 16, 0},
		{0, 1, -1, 32, -32, 1.0 / 32, -1.0 / 32, 1},
	}
)

// winogradConst returns a rows×8 matrix as an f32 constant tensor.
func winogradConst(b *ir.Builder, rows [][8]float64) *ir.Value {
	var fs []float64
	for _, r := range rows {
		fs = append(fs, r[:]...)
	}
	t := ir.Tensor([]int64{int64(len(rows)), 8}, ir.F32)
	return b.Constant(&ir.DenseElementsAttr{Type: t, Floats: fs})
}

// winogradLayout checks a winograd transform and returns the image
// dimensions (h, w) and the batch and channel dimensions of its image.
func winogradLayout(op *ir.Operation, image *ir.Value) (h, w, n, c int, err error) {
	ts, ok1 := op.Attr("output_tile_size").(*ir.IntegerAttr)
	ks, ok2 := op.Attr("kernel_size").(*ir.IntegerAttr)
	dims, ok3 := op.Attr("image_dimensions").(*ir.DenseArrayAttr)
	it, ok4 := image.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || !ok4 || len(op.Operands) != 2 || len(op.Results) != 1 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "needs output_tile_size, kernel_size, image_dimensions, one input and one output")
	}
	if ts.Value != 6 || ks.Value != 3 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "with output tile size %d and kernel size %d is not supported (6 and 3 are)", ts.Value, ks.Value)
	}
	if len(it.Dims) != 4 || len(dims.Ints) != 2 || !ir.HasStaticShape(it) {
		return 0, 0, 0, 0, ir.OpErrorf(op, "needs a static rank-4 image and two image dimensions")
	}
	h, w = int(dims.Ints[0]), int(dims.Ints[1])
	var rest []int
	for d := 0; d < 4; d++ {
		if d != h && d != w {
			rest = append(rest, d)
		}
	}
	if len(rest) != 2 || h < 0 || w < 0 || h > 3 || w > 3 {
		return 0, 0, 0, 0, ir.OpErrorf(op, "has image dimensions outside the image's rank")
	}
	return h, w, rest[0], rest[1], nil
}

// extWinogradInput lowers winograd.input_transform: out[a, b, n, th, tw,
// c] = Σ_ij Bᵀ[a][i]·x[n, 6·th+i, 6·tw+j, c]·Bᵀ[b][j], reading zero
// outside the image (in the image's own layout).
func (r *rewriter) extWinogradInput(b *ir.Builder, op *ir.Operation) error {
	x, out := op.Operands[0], op.Operands[1]
	h, w, nd, cd, err := winogradLayout(op, x)
	if err != nil {
		return err
	}
	xt := x.Type.(*ir.RankedTensorType)
	bt := winogradConst(b, winogradBT[:])
	// Loops: a, b, n, th, tw, c (the output), then i, j.
	its := core.Parallel(8)
	its[6], its[7] = linalg.Reduction, linalg.Reduction
	d := func(i int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: i} }
	maps := []*ir.AffineMap{
		{NumDims: 8, Results: []ir.AffineExpr{d(0), d(6)}},
		{NumDims: 8, Results: []ir.AffineExpr{d(1), d(7)}},
		{NumDims: 8, Results: []ir.AffineExpr{d(0), d(1), d(2), d(3), d(4), d(5)}},
	}
	ot := out.Type.(*ir.RankedTensorType)
	zero := b.Constant(ir.FloatAttrOf(0, ir.F32))
	e := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(ot.Dims, ir.F32)}).Result(0)
	acc := linalg.BuildGeneric(b, []*ir.Value{zero}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: 6}, linalg.Identity(6)}, core.Parallel(6), core.YieldArg(0, e.Type)).Result(0)
	g := linalg.BuildGeneric(b, []*ir.Value{bt, bt}, []*ir.Value{acc}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		ix := make([]*ir.Value, 4)
		ix[nd], ix[cd] = core.LoopIndex(bb, 2), core.LoopIndex(bb, 5)
		var inside *ir.Value
		for k, p := range [][3]int{{h, 3, 6}, {w, 4, 7}} {
			pos := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, p[1]), c(6)), core.LoopIndex(bb, p[2]))
			ok := core.CmpI(bb, core.PredSLT, pos, c(xt.Dims[p[0]]))
			if k == 0 {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			ix[p[0]] = core.BinOp(bb, "arith.minsi", pos, c(xt.Dims[p[0]]-1))
		}
		v := attnF32(bb, bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0))
		v = bb.Create("arith.select", []*ir.Value{inside, v, bb.Constant(ir.FloatAttrOf(0, ir.F32))}, []ir.Type{ir.F32}).Result(0)
		p := bb.Create("arith.mulf", []*ir.Value{args[0], v}, []ir.Type{ir.F32}).Result(0)
		p = bb.Create("arith.mulf", []*ir.Value{p, args[1]}, []ir.Type{ir.F32}).Result(0)
		return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[2], p}, []ir.Type{ir.F32}).Result(0)}
	}).Result(0)
	r.Replace(op, []*ir.Value{r.castInto(b, g, out)})
	return nil
}

// extWinogradOutput lowers winograd.output_transform: y[n, h, w, c] (in
// the image's layout) = Σ_ij Aᵀ[h mod 6][i]·m[i, j, n, h/6, w/6, c]·Aᵀ[w
// mod 6][j].
func (r *rewriter) extWinogradOutput(b *ir.Builder, op *ir.Operation) error {
	m, out := op.Operands[0], op.Operands[1]
	h, w, nd, cd, err := winogradLayout(op, out)
	if err != nil {
		return err
	}
	mt, ok := m.Type.(*ir.RankedTensorType)
	if !ok || len(mt.Dims) != 6 {
		return ir.OpErrorf(op, "needs a rank-6 transformed input")
	}
	at := winogradConst(b, winogradAT[:])
	ones := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{8, 8}, ir.F32), Floats: []float64{1}, Splat: true})
	its := core.Parallel(6)
	its[4], its[5] = linalg.Reduction, linalg.Reduction
	d := func(i int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: i} }
	maps := []*ir.AffineMap{
		{NumDims: 6, Results: []ir.AffineExpr{d(4), d(5)}},
		{NumDims: 6, Results: []ir.AffineExpr{d(0), d(1), d(2), d(3)}},
	}
	ot := out.Type.(*ir.RankedTensorType)
	zero := b.Constant(ir.FloatAttrOf(0, ir.F32))
	e := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(ot.Dims, ir.F32)}).Result(0)
	acc := linalg.BuildGeneric(b, []*ir.Value{zero}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: 4}, linalg.Identity(4)}, core.Parallel(4), core.YieldArg(0, e.Type)).Result(0)
	g := linalg.BuildGeneric(b, []*ir.Value{ones}, []*ir.Value{acc}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		i, j := core.LoopIndex(bb, 4), core.LoopIndex(bb, 5)
		hv, wv := core.LoopIndex(bb, h), core.LoopIndex(bb, w)
		th, tw := core.BinOp(bb, "arith.divui", hv, c(6)), core.BinOp(bb, "arith.divui", wv, c(6))
		ah, aw := core.BinOp(bb, "arith.remui", hv, c(6)), core.BinOp(bb, "arith.remui", wv, c(6))
		v := attnF32(bb, bb.Create("tensor.extract", []*ir.Value{m, i, j, core.LoopIndex(bb, nd), th, tw, core.LoopIndex(bb, cd)}, []ir.Type{mt.Elem}).Result(0))
		l := bb.Create("tensor.extract", []*ir.Value{at, ah, i}, []ir.Type{ir.F32}).Result(0)
		rr := bb.Create("tensor.extract", []*ir.Value{at, aw, j}, []ir.Type{ir.F32}).Result(0)
		p := bb.Create("arith.mulf", []*ir.Value{l, v}, []ir.Type{ir.F32}).Result(0)
		p = bb.Create("arith.mulf", []*ir.Value{p, rr}, []ir.Type{ir.F32}).Result(0)
		return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[1], p}, []ir.Type{ir.F32}).Result(0)}
	}).Result(0)
	r.Replace(op, []*ir.Value{r.castInto(b, g, out)})
	return nil
}

// castInto converts an f32 result to the element type of out (it is
// returned as it is when out is f32).
func (r *rewriter) castInto(b *ir.Builder, v, out *ir.Value) *ir.Value {
	elem := ir.ElementTypeOf(out.Type)
	if ir.TypesEqual(elem, ir.F32) {
		return v
	}
	n := len(out.Type.(*ir.RankedTensorType).Dims)
	e := b.Create("tensor.empty", nil, []ir.Type{out.Type}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{core.ConvertScalar(bb, a[0], elem)}
		}).Result(0)
}
