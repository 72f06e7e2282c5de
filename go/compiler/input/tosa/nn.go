package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaNN converts the convolutions, matmul, fully_connected, poolings
// and resize; done is false for other ops.
func (r *rewriter) tosaNN(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	switch name {
	case "conv2d", "conv3d", "depthwise_conv2d", "transpose_conv2d", "matmul", "fully_connected",
		"avg_pool2d", "max_pool2d", "resize":
	default:
		return false, nil
	}
	// Only the first operand's leading (batch) size may be dynamic, and
	// the result's with it; matmul and fully_connected allow dynamic rows.
	dynRows := name == "matmul" || name == "fully_connected"
	batchOnly := func(t *ir.RankedTensorType) bool {
		for i, d := range t.Dims {
			if d < 0 && (i != 0 || dynRows) {
				return false
			}
		}
		return true
	}
	for i, v := range op.Operands {
		if t, ok := v.Type.(*ir.RankedTensorType); ok && !ir.HasStaticShape(t) && !(i == 0 && (dynRows || batchOnly(t))) {
			return true, ir.OpErrorf(op, "with dynamic shapes is not supported by gree yet")
		}
	}
	if !ir.HasStaticShape(rt) && !dynRows && !batchOnly(rt) {
		return true, ir.OpErrorf(op, "with dynamic shapes is not supported by gree yet")
	}
	switch name {
	case "conv2d":
		return true, r.tosaConv(b, op, rt, 2, false)
	case "conv3d":
		return true, r.tosaConv(b, op, rt, 3, false)
	case "depthwise_conv2d":
		return true, r.tosaConv(b, op, rt, 2, true)
	case "transpose_conv2d":
		return true, r.tosaTransposeConv(b, op, rt)
	case "matmul", "fully_connected":
		return true, r.tosaMatmul(b, op, rt, name == "fully_connected")
	case "avg_pool2d", "max_pool2d":
		return true, r.tosaPool(b, op, rt, name == "max_pool2d")
	case "resize":
		return true, r.tosaResize(b, op, rt)
	}
	return false, nil
}

// accType is the accumulator of a contraction producing elem: elem
// itself, or a wider float acc_type (f16 convolutions accumulating in
// f32).
func accType(op *ir.Operation, elem ir.Type) ir.Type {
	if a, ok := op.Attr("acc_type").(*ir.TypeAttr); ok && ir.IsFloat(a.Type) && ir.IsFloat(elem) && core.Width(a.Type) > core.Width(elem) {
		return a.Type
	}
	return elem
}

func fill1n(xs []int64, n int, def int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = def
		if i < len(xs) {
			out[i] = xs[i]
		}
	}
	return out
}

// affLin returns d_o·s + d_k·dil.
func affLin(o, k int, s, dil int64) ir.AffineExpr {
	a := ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: o}, &ir.AffineConstantExpr{Value: s})
	c := ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: k}, &ir.AffineConstantExpr{Value: dil})
	return ir.AffineBinary(ir.AffineAdd, a, c)
}

// biasInit broadcasts bias (one value, or one per output channel read
// through chanMap) into an accumulator of type t.
func biasInit(b *ir.Builder, bias *ir.Value, t *ir.RankedTensorType, chanMap *ir.AffineMap, size func(int) *ir.Value) *ir.Value {
	n := len(t.Dims)
	e := core.EmptyFor(b, t, size)
	if bias == nil {
		return core.FillLike(b, t, b.Constant(core.ScalarAttr(t.Elem, 0)), size)
	}
	m := chanMap
	if bt := bias.Type.(*ir.RankedTensorType); len(bt.Dims) == 1 && bt.Dims[0] == 1 {
		m = &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{&ir.AffineConstantExpr{Value: 0}}}
	}
	return linalg.BuildGeneric(b, []*ir.Value{bias}, []*ir.Value{e}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{core.Widen(bb, a[0], t.Elem)}
	}).Result(0)
}

// zpMulAdd is the body of a quantized contraction: acc + (x - xzp)·(w - wzp).
func zpMulAdd(xzp, wzp int64) linalg.BodyFunc {
	return func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		acc := a[len(a)-1]
		t := acc.Type
		if ir.IsFloat(t) || (xzp == 0 && wzp == 0) {
			return core.MulAdd(bb, a)
		}
		x := core.BinOp(bb, "arith.subi", core.ExtendInt(bb, a[0], t, false), core.IntConst(bb, xzp, t))
		w := core.BinOp(bb, "arith.subi", core.ExtendInt(bb, a[1], t, false), core.IntConst(bb, wzp, t))
		return []*ir.Value{core.BinOp(bb, "arith.addi", acc, core.BinOp(bb, "arith.muli", x, w))}
	}
}

// castResult converts an accumulator tensor to the result type when they
// differ (acc_type wider than the result).
func castResult(b *ir.Builder, v *ir.Value, rt *ir.RankedTensorType) *ir.Value {
	if ir.TypesEqual(v.Type, rt) {
		return v
	}
	n := len(rt.Dims)
	e := linalg.EmptyLike(b, v, rt.Elem)
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{tosaCast(bb, a[0], rt.Elem)}
	}).Result(0)
}

// tosaConv lowers conv2d/conv3d (input N…C, weight [OC, K…, IC]) and
// depthwise_conv2d (weight [KH, KW, C, M], output channel c·M+m): the
// input is padded with its zero point, then one generic accumulates
// (x - input_zp)·(w - weight_zp) onto the broadcast bias.
func (r *rewriter) tosaConv(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, s int, depthwise bool) error {
	if len(op.Operands) < 3 {
		return ir.OpErrorf(op, "expects input, weight and bias operands")
	}
	in, w, bias := op.Operands[0], op.Operands[1], op.Operands[2]
	it, wt := in.Type.(*ir.RankedTensorType), w.Type.(*ir.RankedTensorType)
	if len(it.Dims) != s+2 || len(wt.Dims) != s+2 || len(rt.Dims) != s+2 {
		return ir.OpErrorf(op, "needs rank-%d input, weight and result", s+2)
	}
	pad := fill1n(core.IntsOf(op, "pad"), 2*s, 0)
	stride := fill1n(core.IntsOf(op, "stride"), s, 1)
	dil := fill1n(core.IntsOf(op, "dilation"), s, 1)
	izp, err := tosaZP(op, 3, "input_zp")
	if err != nil {
		return err
	}
	wzp, err := tosaZP(op, 4, "weight_zp")
	if err != nil {
		return err
	}
	lo, hi := make([]int64, s+2), make([]int64, s+2)
	for i := 0; i < s; i++ {
		lo[i+1], hi[i+1] = pad[2*i], pad[2*i+1]
		if lo[i+1] < 0 || hi[i+1] < 0 {
			return ir.OpErrorf(op, "has negative padding %v", pad)
		}
	}
	ks := wt.Dims[1 : s+1]
	oc, icw := wt.Dims[0], wt.Dims[s+1]
	if depthwise {
		ks, oc, icw = wt.Dims[:s], wt.Dims[s]*wt.Dims[s+1], wt.Dims[s]
	}
	ok := rt.Dims[0] == it.Dims[0] && rt.Dims[s+1] == oc && it.Dims[s+1] == icw
	for i := 0; i < s && ok; i++ {
		span := it.Dims[i+1] + lo[i+1] + hi[i+1] - (ks[i]-1)*dil[i] - 1
		ok = stride[i] > 0 && span >= 0 && span/stride[i]+1 == rt.Dims[i+1]
	}
	if !ok {
		return ir.OpErrorf(op, "has a result shape %v that does not match its input %v, weight %v, pad %v, stride %v and dilation %v", rt.Dims, it.Dims, wt.Dims, pad, stride, dil)
	}
	var pv *ir.Value
	if ft, ok := it.Elem.(*ir.FloatType); ok {
		pv = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		pv = b.Constant(ir.IntAttr(izp, it.Elem))
	}
	pin := padded(b, in, lo, hi, pv)
	acc := accType(op, rt.Elem)
	batch := func(int) *ir.Value { return linalg.Dim(b, in, 0) }
	if !depthwise {
		// im2col + A·Bᵀ: the windows as rows, the weight [OC, K…·IC] as
		// columns; codegen maps the product to its GEMM kernels.
		col := im2col(b, pin, rt.Dims[1:s+1], ks, stride, dil)
		wm := reshapeTo(b, w, ir.Tensor([]int64{oc, col.Type.(*ir.RankedTensorType).Dims[1]}, wt.Elem))
		res := core.GemmABt(b, col, wm, bias, acc, izp, wzp)
		res = castResult(b, res, ir.Tensor(res.Type.(*ir.RankedTensorType).Dims, rt.Elem))
		r.Replace(op, []*ir.Value{reshapeLike(b, res, rt, batch)})
		return nil
	}
	// Depthwise, loops: n, o…, c, m, k…; the result is computed as
	// [N, O…, C, M] and reshaped.
	C, M := wt.Dims[s], wt.Dims[s+1]
	nl := 2*s + 3
	c, m := s+1, s+2
	im := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{&ir.AffineDimExpr{Pos: 0}}}
	wm := &ir.AffineMap{NumDims: nl}
	for i := 0; i < s; i++ {
		im.Results = append(im.Results, affLin(1+i, s+3+i, stride[i], dil[i]))
		wm.Results = append(wm.Results, &ir.AffineDimExpr{Pos: s + 3 + i})
	}
	im.Results = append(im.Results, &ir.AffineDimExpr{Pos: c})
	wm.Results = append(wm.Results, &ir.AffineDimExpr{Pos: c}, &ir.AffineDimExpr{Pos: m})
	om := linalg.DimMap(nl)
	for i := 0; i <= s+2; i++ {
		om.Results = append(om.Results, &ir.AffineDimExpr{Pos: i})
	}
	its := make([]linalg.Iterator, nl)
	for i := s + 3; i < nl; i++ {
		its[i] = linalg.Reduction
	}
	dims := append(append([]int64{}, rt.Dims[:s+1]...), C, M)
	accT := ir.Tensor(dims, acc)
	bt := bias.Type.(*ir.RankedTensorType)
	if len(bt.Dims) == 1 && bt.Dims[0] == C*M && C*M != 1 {
		bias = reshapeTo(b, bias, ir.Tensor([]int64{C, M}, bt.Elem))
	}
	init := biasInit(b, bias, accT, linalg.DimMap(s+3, s+1, s+2), batch)
	g := linalg.BuildGeneric(b, []*ir.Value{pin, w}, []*ir.Value{init}, []*ir.AffineMap{im, wm, om}, its, zpMulAdd(izp, wzp))
	res := castResult(b, g.Result(0), ir.Tensor(dims, rt.Elem))
	r.Replace(op, []*ir.Value{reshapeLike(b, res, rt, batch)})
	return nil
}

// tosaMatmul: matmul a [N,H,C] × b [N,C,W] → [N,H,W] with zero points;
// fully_connected (older TOSA) input [N,IC] × weight [OC,IC] + bias [OC].
func (r *rewriter) tosaMatmul(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, fc bool) error {
	x, w := op.Operands[0], op.Operands[1]
	acc := accType(op, rt.Elem)
	accT := ir.Tensor(rt.Dims, acc)
	if fc {
		if len(op.Operands) < 3 || linalg.Rank(x.Type) != 2 || linalg.Rank(w.Type) != 2 || len(rt.Dims) != 2 {
			return ir.OpErrorf(op, "needs input [N,IC], weight [OC,IC] and bias [OC]")
		}
		xd, wd := x.Type.(*ir.RankedTensorType).Dims, w.Type.(*ir.RankedTensorType).Dims
		if xd[1] != wd[1] || rt.Dims[0] != xd[0] || rt.Dims[1] != wd[0] {
			return ir.OpErrorf(op, "has shapes %v × %v → %v that do not match", xd, wd, rt.Dims)
		}
		izp, err := tosaZP(op, 3, "input_zp")
		if err != nil {
			return err
		}
		wzp, err := tosaZP(op, 4, "weight_zp")
		if err != nil {
			return err
		}
		_ = accT
		r.Replace(op, []*ir.Value{castResult(b, core.GemmABt(b, x, w, op.Operands[2], acc, izp, wzp), rt)})
		return nil
	}
	if linalg.Rank(x.Type) != 3 || linalg.Rank(w.Type) != 3 || len(rt.Dims) != 3 {
		return ir.OpErrorf(op, "needs a [N,H,C] × [N,C,W] → [N,H,W] product")
	}
	xd, wd := x.Type.(*ir.RankedTensorType).Dims, w.Type.(*ir.RankedTensorType).Dims
	if xd[0] != wd[0] || xd[2] != wd[1] || rt.Dims[0] != xd[0] || rt.Dims[1] != xd[1] || rt.Dims[2] != wd[2] {
		return ir.OpErrorf(op, "has shapes %v × %v → %v that do not match", xd, wd, rt.Dims)
	}
	azp, err := tosaZP(op, 2, "a_zp")
	if err != nil {
		return err
	}
	bzp, err := tosaZP(op, 3, "b_zp")
	if err != nil {
		return err
	}
	outSize := func(i int) *ir.Value {
		if i == 2 {
			return linalg.Dim(b, w, 2)
		}
		return linalg.Dim(b, x, i)
	}
	init := core.FillLike(b, accT, b.Constant(core.ScalarAttr(acc, 0)), outSize)
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}
	if !ir.IsFloat(acc) && (azp != 0 || bzp != 0) {
		if xd[2] < 0 {
			return ir.OpErrorf(op, "with zero points and a dynamic reduction size is not supported by gree yet")
		}
		// init[n,h,w] = -azp·Σ_c b[n,c,w] - bzp·Σ_c a[n,h,c] + C·azp·bzp, so
		// the product keeps a plain multiply-accumulate body.
		sum := func(v *ir.Value, keep []int, red int, dims []int64) *ir.Value {
			z := core.FillLike(b, ir.Tensor(dims, acc), b.Constant(core.ScalarAttr(acc, 0)), func(j int) *ir.Value { return linalg.Dim(b, v, keep[j]) })
			it := []linalg.Iterator{0, 0, 0}
			it[red] = linalg.Reduction
			return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{z}, []*ir.AffineMap{linalg.Identity(3), linalg.DimMap(3, keep...)}, it, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
				return []*ir.Value{core.BinOp(bb, "arith.addi", a[1], core.ExtendInt(bb, a[0], acc, false))}
			}).Result(0)
		}
		colB := sum(w, []int{0, 2}, 1, []int64{wd[0], wd[2]})
		rowA := sum(x, []int{0, 1}, 2, []int64{xd[0], xd[1]})
		e := core.EmptyFor(b, accT, outSize)
		cm := []*ir.AffineMap{linalg.DimMap(3, 0, 2), linalg.DimMap(3, 0, 1), linalg.Identity(3)}
		init = linalg.BuildGeneric(b, []*ir.Value{colB, rowA}, []*ir.Value{e}, cm, core.Parallel(3), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			v := core.BinOp(bb, "arith.muli", a[0], core.IntConst(bb, -azp, acc))
			v = core.BinOp(bb, "arith.subi", v, core.BinOp(bb, "arith.muli", a[1], core.IntConst(bb, bzp, acc)))
			return []*ir.Value{core.BinOp(bb, "arith.addi", v, core.IntConst(bb, xd[2]*azp*bzp, acc))}
		}).Result(0)
		azp, bzp = 0, 0
	}
	maps := []*ir.AffineMap{linalg.DimMap(4, 0, 1, 3), linalg.DimMap(4, 0, 3, 2), linalg.DimMap(4, 0, 1, 2)}
	g := linalg.BuildGeneric(b, []*ir.Value{x, w}, []*ir.Value{init}, maps, its, zpMulAdd(azp, bzp))
	r.Replace(op, []*ir.Value{castResult(b, g.Result(0), rt)})
	return nil
}
