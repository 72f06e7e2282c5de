package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX DeformConv (2-D): a grouped convolution whose kernel taps sample
// the input bilinearly at positions moved by per-output offsets (zero
// outside the image, as GridSample with align_corners and zero padding),
// each tap scaled by an optional mask. One generic: the result's dims,
// then the group's input channels and the kernel's taps (reductions).

func init() {
	onnxReg(onnxDeformConv, "DeformConv")
}

func onnxDeformConv(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, w, off, bias, mask, rt := o.in(0), o.in(1), o.in(2), o.in(3), o.in(4), o.rts[0]
	xt, wt, ot := tt(x), tt(w), tt(off)
	if len(xt.Dims) != 4 || len(wt.Dims) != 4 || len(ot.Dims) != 4 || len(rt.Dims) != 4 || !ir.IsFloat(xt.Elem) {
		return nil, o.errorf("is supported by gree for 2-D float inputs only")
	}
	group, og := o.attrInt("group", 1), o.attrInt("offset_group", 1)
	IC, OC, ICG := xt.Dims[1], wt.Dims[0], wt.Dims[1]
	KH, KW := wt.Dims[2], wt.Dims[3]
	if group < 1 || og < 1 || IC != ICG*group || OC%group != 0 || IC%og != 0 || ot.Dims[1] != og*KH*KW*2 ||
		rt.Dims[1] != OC || ot.Dims[2] != rt.Dims[2] || ot.Dims[3] != rt.Dims[3] {
		return nil, o.errorf("has inconsistent shapes (X %v, W %v, offset %v, group %d, offset_group %d)", xt.Dims, wt.Dims, ot.Dims, group, og)
	}
	strides, dil := o.ints1("strides", 2), o.ints1("dilations", 2)
	pads := make([]int64, 4)
	if p, ok := o.attrInts("pads"); ok && len(p) == 4 {
		pads = p
	}
	H, W := xt.Dims[2], xt.Dims[3]
	OCG, ICO := OC/group, IC/og
	elem := rt.Elem
	bnd := empty(o.b, ir.Tensor([]int64{ICG, KH, KW}, elem))
	om := &ir.AffineMap{NumDims: 7, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(3)}}
	bm := &ir.AffineMap{NumDims: 7, Results: []ir.AffineExpr{dimExpr(4), dimExpr(5), dimExpr(6)}}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction, linalg.Reduction, linalg.Reduction}
	y := linalg.BuildGeneric(o.b, []*ir.Value{bnd}, []*ir.Value{filled(o.b, rt, 0)}, []*ir.AffineMap{bm, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		mul := func(p, q *ir.Value) *ir.Value { return core.BinOp(bb, "arith.muli", p, q) }
		add := func(p, q *ir.Value) *ir.Value { return core.BinOp(bb, "arith.addi", p, q) }
		div := func(p, q *ir.Value) *ir.Value { return core.BinOp(bb, "arith.divui", p, q) }
		n, oc, oh, ow, icg, kh, kw := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1), core.LoopIndex(bb, 2), core.LoopIndex(bb, 3), core.LoopIndex(bb, 4), core.LoopIndex(bb, 5), core.LoopIndex(bb, 6)
		ic := add(mul(div(oc, c(OCG)), c(ICG)), icg)
		g := div(ic, c(ICO))
		tap := add(mul(add(mul(g, c(KH)), kh), c(KW)), kw)
		offH := castScalar(bb, extractAt(bb, off, []*ir.Value{n, mul(tap, c(2)), oh, ow}), elem, false, false)
		offW := castScalar(bb, extractAt(bb, off, []*ir.Value{n, add(mul(tap, c(2)), c(1)), oh, ow}), elem, false, false)
		toF := func(i *ir.Value) *ir.Value {
			v := bb.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.I64}).Result(0)
			return bb.Create("arith.sitofp", []*ir.Value{v}, []ir.Type{elem}).Result(0)
		}
		h := s.add(s.add(s.c(float64(-pads[0])), s.add(s.mul(toF(oh), s.c(float64(strides[0]))), s.mul(toF(kh), s.c(float64(dil[0]))))), offH)
		wv := s.add(s.add(s.c(float64(-pads[1])), s.add(s.mul(toF(ow), s.c(float64(strides[1]))), s.mul(toF(kw), s.c(float64(dil[1]))))), offW)
		h0, w0 := s.op("math.floor", h), s.op("math.floor", wv)
		lh, lw := s.sub(h, h0), s.sub(wv, w0)
		corner := func(hc, wc, wt *ir.Value) *ir.Value {
			in := core.BinOp(bb, "arith.andi", core.BinOp(bb, "arith.andi", s.cmp("ge", hc, s.c(0), false), s.cmp("le", hc, s.c(float64(H-1)), false)),
				core.BinOp(bb, "arith.andi", s.cmp("ge", wc, s.c(0), false), s.cmp("le", wc, s.c(float64(W-1)), false)))
			clampI := func(v *ir.Value, n int64) *ir.Value {
				v = s.min(s.max(v, s.c(0), false), s.c(float64(n-1)), false)
				i := bb.Create("arith.fptosi", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0)
				return bb.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.Index}).Result(0)
			}
			v := castScalar(bb, extractAt(bb, x, []*ir.Value{n, ic, clampI(hc, H), clampI(wc, W)}), elem, false, false)
			return s.sel(in, s.mul(v, wt), s.c(0))
		}
		one := s.c(1)
		h1, w1 := s.add(h0, one), s.add(w0, one)
		val := s.add(s.add(corner(h0, w0, s.mul(s.sub(one, lh), s.sub(one, lw))), corner(h0, w1, s.mul(s.sub(one, lh), lw))),
			s.add(corner(h1, w0, s.mul(lh, s.sub(one, lw))), corner(h1, w1, s.mul(lh, lw))))
		k := castScalar(bb, extractAt(bb, w, []*ir.Value{oc, icg, kh, kw}), elem, false, false)
		v := s.mul(val, k)
		if mask != nil {
			v = s.mul(v, castScalar(bb, extractAt(bb, mask, []*ir.Value{n, tap, oh, ow}), elem, false, false))
		}
		return []*ir.Value{s.add(a[1], v)}
	}).Result(0)
	if bias != nil {
		cm := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(1)}}
		y = mapGenericMaps(o.b, []*ir.Value{y, bias}, []*ir.AffineMap{linalg.Identity(4), cm}, rt, func(s sc, a []*ir.Value) *ir.Value {
			return s.add(a[0], castScalar(s.b, a[1], s.t, false, false))
		})
	}
	return []*ir.Value{y}, nil
}
