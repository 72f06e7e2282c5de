package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Col2Im: input [N, C·K, L] (K = the block's size, L = the number of
// block positions) summed back into an image [N, C, image_shape…]. The
// image shape is the static result's; the block shape, a run-time input,
// must be one whose size and position count fit the static shapes: every
// fitting block shape (at most maxAxesChoices) is computed and the input's
// value selects one at run time (a block shape that fits none gives NaN).

func init() {
	onnxReg(onnxCol2Im, "Col2Im")
}

func onnxCol2Im(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, blk, rt := o.in(0), o.in(2), o.rts[0]
	xt := tt(x)
	ns := len(rt.Dims) - 2
	if ns < 1 || len(xt.Dims) != 3 || xt.Dims[0] != rt.Dims[0] || tt(blk) == nil || len(tt(blk).Dims) != 1 || tt(blk).Dims[0] != int64(ns) {
		return nil, o.errorf("needs input [N, C*K, L], a block shape of %d values and a result [N, C, image...]", ns)
	}
	if !ir.IsFloat(xt.Elem) {
		return nil, o.errorf("on %s is not supported (floats only)", xt.Elem)
	}
	C := rt.Dims[1]
	if C <= 0 || xt.Dims[1]%C != 0 {
		return nil, o.errorf("has %d input channels, not a multiple of the %d result channels", xt.Dims[1], C)
	}
	K, L := xt.Dims[1]/C, xt.Dims[2]
	img := rt.Dims[2:]
	strides, dil := o.ints1("strides", ns), o.ints1("dilations", ns)
	pads := make([]int64, 2*ns)
	if p, ok := o.attrInts("pads"); ok && len(p) == 2*ns {
		pads = p
	}
	positions := func(bs []int64) ([]int64, bool) {
		ls := make([]int64, ns)
		for d, b := range bs {
			span := img[d] + pads[d] + pads[ns+d] - dil[d]*(b-1) - 1
			if span < 0 {
				return nil, false
			}
			ls[d] = span/strides[d] + 1
		}
		return ls, true
	}
	// The block shapes whose size is K and whose positions number L.
	var cands [][]int64
	var walk func(d int, left int64, cur []int64)
	walk = func(d int, left int64, cur []int64) {
		if len(cands) > maxAxesChoices {
			return
		}
		if d == ns {
			if left != 1 {
				return
			}
			if ls, ok := positions(cur); ok {
				p := int64(1)
				for _, l := range ls {
					p *= l
				}
				if p == L {
					cands = append(cands, append([]int64{}, cur...))
				}
			}
			return
		}
		for b := int64(1); b <= left; b++ {
			if left%b == 0 {
				walk(d+1, left/b, append(cur, b))
			}
		}
	}
	walk(0, K, nil)
	if len(cands) == 0 || len(cands) > maxAxesChoices {
		return nil, o.errorf("has shapes that %d block shapes fit (want 1 to %d)", len(cands), maxAxesChoices)
	}
	var outs []*ir.Value
	for _, bs := range cands {
		ls, _ := positions(bs)
		outs = append(outs, col2im(o.b, x, rt, bs, ls, strides, dil, pads[:ns], K))
	}
	if len(cands) == 1 {
		return outs[:1], nil
	}
	// Select by the block shape's code Σ b[d]·(K+1)^d.
	code := linalg.BuildGeneric(o.b, []*ir.Value{blk}, []*ir.Value{filledInt(o.b, ir.Tensor(nil, ir.I64), 0)},
		[]*ir.AffineMap{linalg.Identity(1), {NumDims: 1}}, []linalg.Iterator{linalg.Reduction},
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			d := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			w := bb.Constant(ir.IntAttr(1, ir.I64))
			p := int64(1)
			for k := 0; k < ns; k++ {
				is := core.CmpI(bb, core.PredEQ, d, bb.Constant(ir.IntAttr(int64(k), ir.I64)))
				w = bb.Create("arith.select", []*ir.Value{is, bb.Constant(ir.IntAttr(p, ir.I64)), w}, []ir.Type{ir.I64}).Result(0)
				p *= K + 1
			}
			v := castScalar(bb, a[0], ir.I64, false, false)
			return []*ir.Value{core.BinOp(bb, "arith.addi", a[1], core.BinOp(bb, "arith.muli", v, w))}
		}).Result(0)
	var codes []int64
	for _, bs := range cands {
		c, p := int64(0), int64(1)
		for _, b := range bs {
			c += b * p
			p *= K + 1
		}
		codes = append(codes, c)
	}
	y := mapGeneric(o.b, append([]*ir.Value{code}, outs...), rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		v := s.c(math.NaN())
		for i := len(codes) - 1; i >= 0; i-- {
			v = s.sel(core.CmpI(bb, core.PredEQ, a[0], bb.Constant(ir.IntAttr(codes[i], ir.I64))), a[i+1], v)
		}
		return v
	})
	return []*ir.Value{y}, nil
}

// col2im sums x [N, C·K, L] into rt for one static block shape bs with
// position counts ls.
func col2im(b *ir.Builder, x *ir.Value, rt *ir.RankedTensorType, bs, ls, strides, dil, padLo []int64, K int64) *ir.Value {
	r := len(rt.Dims)
	ns := r - 2
	nl := r + ns // result dims, then the block's dims (reduction)
	om := linalg.Identity(nl)
	om.Results = om.Results[:r]
	its := core.Parallel(nl)
	for d := r; d < nl; d++ {
		its[d] = linalg.Reduction
	}
	// A dummy input carries the block's loop bounds.
	bnd := empty(b, ir.Tensor(bs, rt.Elem))
	bm := &ir.AffineMap{NumDims: nl}
	for d := r; d < nl; d++ {
		bm.Results = append(bm.Results, dimExpr(d))
	}
	xt := tt(x)
	return linalg.BuildGeneric(b, []*ir.Value{bnd}, []*ir.Value{filled(b, rt, 0)}, []*ir.AffineMap{bm, om}, its,
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
			var ok *ir.Value
			kidx, lidx := c(0), c(0)
			for d := 0; d < ns; d++ {
				k := core.LoopIndex(bb, r+d)
				t := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", core.LoopIndex(bb, 2+d), c(padLo[d])), core.BinOp(bb, "arith.muli", k, c(dil[d])))
				q := core.BinOp(bb, "arith.divsi", t, c(strides[d]))
				ok = andAll(bb, ok, core.CmpI(bb, core.PredSGE, t, c(0)))
				ok = andAll(bb, ok, core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remsi", t, c(strides[d])), c(0)))
				ok = andAll(bb, ok, core.CmpI(bb, core.PredSLT, q, c(ls[d])))
				kidx = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", kidx, c(bs[d])), k)
				q = bb.Create("arith.maxsi", []*ir.Value{q, c(0)}, []ir.Type{ir.Index}).Result(0)
				q = bb.Create("arith.minsi", []*ir.Value{q, c(ls[d] - 1)}, []ir.Type{ir.Index}).Result(0)
				lidx = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", lidx, c(ls[d])), q)
			}
			ch := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, 1), c(K)), kidx)
			v := bb.Create("tensor.extract", []*ir.Value{x, core.LoopIndex(bb, 0), ch, lidx}, []ir.Type{xt.Elem}).Result(0)
			s := sc{bb, rt.Elem}
			return []*ir.Value{s.add(a[1], s.sel(ok, v, s.c(0)))}
		}).Result(0)
}
