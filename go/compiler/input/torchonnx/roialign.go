package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX RoiAlign: for each ROI r, channel c and output cell (ph, pw), the
// average (or max) of sampling_ratio² bilinear samples of X[batch[r], c]
// inside the cell, with ONNX's edge rules (samples beyond [-1, size] are
// 0; coordinates clamp at 0 and size-1). sampling_ratio must be static and
// positive: the adaptive form (0) takes a sample count from the ROI values.

func init() {
	onnxReg(onnxRoiAlign, "RoiAlign")
}

func onnxRoiAlign(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rois, bidx, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	xt := tt(x)
	if len(xt.Dims) != 4 || len(tt(rois).Dims) != 2 || tt(rois).Dims[1] != 4 || len(tt(bidx).Dims) != 1 || len(rt.Dims) != 4 {
		return nil, o.errorf("needs X [N, C, H, W], rois [R, 4], batch_indices [R] and a result [R, C, h, w]")
	}
	if !ir.IsFloat(xt.Elem) {
		return nil, o.errorf("on %s is not supported (floats only)", xt.Elem)
	}
	sr := o.attrInt("sampling_ratio", 0)
	if sr <= 0 {
		return nil, o.errorf("with sampling_ratio %d (adaptive: the sample count depends on the ROI values) is not supported by gree", sr)
	}
	mode := o.attrStr("mode", "avg")
	if mode != "avg" && mode != "max" {
		return nil, o.errorf("mode '%s' is not one of avg, max", mode)
	}
	half := true
	switch m := o.attrStr("coordinate_transformation_mode", "half_pixel"); m {
	case "half_pixel":
	case "output_half_pixel":
		half = false
	default:
		return nil, o.errorf("coordinate_transformation_mode '%s' is not supported", m)
	}
	scale := o.attrFloat("spatial_scale", 1)
	H, W := xt.Dims[2], xt.Dims[3]
	PH, PW := rt.Dims[2], rt.Dims[3]
	elem := rt.Elem
	init := 0.0
	if mode == "max" {
		init = math.Inf(-1)
	}
	bnd := empty(o.b, ir.Tensor([]int64{sr, sr}, elem))
	om := &ir.AffineMap{NumDims: 6, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(3)}}
	bm := &ir.AffineMap{NumDims: 6, Results: []ir.AffineExpr{dimExpr(4), dimExpr(5)}}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction, linalg.Reduction}
	g := linalg.BuildGeneric(o.b, []*ir.Value{bnd}, []*ir.Value{filled(o.b, rt, init)}, []*ir.AffineMap{bm, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		r, c := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1)
		roi := func(k int64) *ir.Value {
			v := castScalar(bb, extractAt(bb, rois, []*ir.Value{r, cIdx(bb, k)}), elem, false, false)
			v = s.mul(v, s.c(scale))
			if half {
				v = s.sub(v, s.c(0.5))
			}
			return v
		}
		x0, y0, x1, y1 := roi(0), roi(1), roi(2), roi(3)
		rw, rh := s.sub(x1, x0), s.sub(y1, y0)
		if !half {
			rw, rh = s.max(rw, s.c(1), false), s.max(rh, s.c(1), false)
		}
		bh, bw := s.div(rh, s.c(float64(PH)), false), s.div(rw, s.c(float64(PW)), false)
		fl := func(d int) *ir.Value { return indexF(bb, d, elem) }
		// sample = start + p·bin + (i + 0.5)·bin/sr
		coord := func(start, bin, p, i *ir.Value) *ir.Value {
			return s.add(s.add(start, s.mul(p, bin)), s.div(s.mul(s.add(i, s.c(0.5)), bin), s.c(float64(sr)), false))
		}
		y := coord(y0, bh, fl(2), fl(4))
		xx := coord(x0, bw, fl(3), fl(5))
		outside := core.BinOp(bb, "arith.ori", core.BinOp(bb, "arith.ori", s.cmp("lt", y, s.c(-1), false), s.cmp("gt", y, s.c(float64(H)), false)),
			core.BinOp(bb, "arith.ori", s.cmp("lt", xx, s.c(-1), false), s.cmp("gt", xx, s.c(float64(W)), false)))
		// low, high and the fraction along one axis of size n.
		axis := func(v *ir.Value, n int64) (lo, hi, frac *ir.Value) {
			v = s.max(v, s.c(0), false)
			lo = s.op("math.floor", v)
			atEnd := s.cmp("ge", lo, s.c(float64(n-1)), false)
			lo = s.sel(atEnd, s.c(float64(n-1)), lo)
			hi = s.sel(atEnd, lo, s.add(lo, s.c(1)))
			v = s.sel(atEnd, lo, v)
			return lo, hi, s.sub(v, lo)
		}
		yl, yh, ly := axis(y, H)
		xl, xh, lx := axis(xx, W)
		hy, hx := s.sub(s.c(1), ly), s.sub(s.c(1), lx)
		b := normIndex(bb, extractAt(bb, bidx, []*ir.Value{r}), xt.Dims[0])
		toIdx := func(v *ir.Value) *ir.Value {
			i := bb.Create("arith.fptosi", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0)
			return bb.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.Index}).Result(0)
		}
		at := func(yv, xv *ir.Value) *ir.Value { return extractAt(bb, x, []*ir.Value{b, c, toIdx(yv), toIdx(xv)}) }
		t1, t2 := s.mul(s.mul(hy, hx), at(yl, xl)), s.mul(s.mul(hy, lx), at(yl, xh))
		t3, t4 := s.mul(s.mul(ly, hx), at(yh, xl)), s.mul(s.mul(ly, lx), at(yh, xh))
		if mode == "max" {
			v := s.max(s.max(t1, t2, false), s.max(t3, t4, false), false)
			return []*ir.Value{s.max(a[1], s.sel(outside, s.c(0), v), false)}
		}
		v := s.add(s.add(t1, t2), s.add(t3, t4))
		v = s.div(s.sel(outside, s.c(0), v), s.c(float64(sr*sr)), false)
		return []*ir.Value{s.add(a[1], v)}
	})
	return []*ir.Value{g.Result(0)}, nil
}
