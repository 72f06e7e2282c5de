package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX STFT: out[b, f, k] = Σ_n x[b, f·step + n]·w[n]·e^{-2πi·k·n/L}
// (real and imaginary parts in the last dimension), as one generic with
// a reduction over n. The frame count and bin count are the static
// result's; frame_step and frame_length are read at run time (the
// reduction runs over the largest frame length the bin count allows and
// masks the rest), so the result is exact for any values consistent with
// the static shapes.

func init() {
	onnxReg(onnxSTFT, "STFT")
}

func onnxSTFT(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, step, win, flen, rt := o.in(0), o.in(1), o.in(2), o.in(3), o.rts[0]
	xt := tt(x)
	if len(xt.Dims) != 3 || (xt.Dims[2] != 1 && xt.Dims[2] != 2) || len(rt.Dims) != 4 || rt.Dims[3] != 2 || rt.Dims[0] != xt.Dims[0] {
		return nil, o.errorf("needs a signal [B, S, 1|2] and a result [B, frames, bins, 2]")
	}
	if !ir.IsFloat(xt.Elem) || step == nil {
		return nil, o.errorf("needs a float signal and a frame_step")
	}
	onesided := o.attrInt("onesided", 1) != 0
	K := rt.Dims[2]
	S := xt.Dims[1]
	var lmax int64
	switch {
	case win != nil:
		if len(tt(win).Dims) != 1 {
			return nil, o.errorf("needs a rank-1 window")
		}
		lmax = tt(win).Dims[0]
	case flen == nil:
		return nil, o.errorf("needs a window or a frame_length")
	case onesided:
		lmax = 2*K - 1
	default:
		lmax = K
	}
	elem := rt.Elem
	scalarI := func(bb *ir.Builder, v *ir.Value) *ir.Value {
		var ix []*ir.Value
		for range tt(v).Dims {
			ix = append(ix, cIdx(bb, 0))
		}
		return castScalar(bb, extractAt(bb, v, ix), ir.I64, false, false)
	}
	bnd := empty(o.b, ir.Tensor([]int64{lmax}, elem))
	om := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(3)}}
	bm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(4)}}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}
	g := linalg.BuildGeneric(o.b, []*ir.Value{bnd}, []*ir.Value{filled(o.b, rt, 0)}, []*ir.AffineMap{bm, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		i64 := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.I64)) }
		idx := func(d int) *ir.Value {
			return bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)
		}
		L := i64(lmax)
		if flen != nil {
			L = scalarI(bb, flen)
		}
		f, k, c, n := idx(1), idx(2), idx(3), idx(4)
		pos := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", f, scalarI(bb, step)), n)
		ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSLT, n, L), core.CmpI(bb, core.PredSLT, pos, i64(S)))
		ok = core.BinOp(bb, "arith.andi", ok, core.CmpI(bb, core.PredSGE, pos, i64(0)))
		p := bb.Create("arith.index_cast", []*ir.Value{bb.Create("arith.minsi", []*ir.Value{bb.Create("arith.maxsi", []*ir.Value{pos, i64(0)}, []ir.Type{ir.I64}).Result(0), i64(S - 1)}, []ir.Type{ir.I64}).Result(0)}, []ir.Type{ir.Index}).Result(0)
		re := castScalar(bb, extractAt(bb, x, []*ir.Value{core.LoopIndex(bb, 0), p, cIdx(bb, 0)}), elem, false, false)
		im := s.c(0)
		if xt.Dims[2] == 2 {
			im = castScalar(bb, extractAt(bb, x, []*ir.Value{core.LoopIndex(bb, 0), p, cIdx(bb, 1)}), elem, false, false)
		}
		if win != nil {
			w := castScalar(bb, extractAt(bb, win, []*ir.Value{core.LoopIndex(bb, 4)}), elem, false, false)
			re, im = s.mul(re, w), s.mul(im, w)
		}
		// θ = -2π·((k·n) mod L)/L, in f64 for the angle.
		safeL := bb.Create("arith.maxsi", []*ir.Value{L, i64(1)}, []ir.Type{ir.I64}).Result(0)
		kn := core.BinOp(bb, "arith.remsi", core.BinOp(bb, "arith.muli", k, n), safeL)
		d := sc{bb, ir.F64}
		th := d.div(d.mul(castScalar(bb, kn, ir.F64, false, false), d.c(-2*math.Pi)), castScalar(bb, safeL, ir.F64, false, false), false)
		cs := castScalar(bb, d.op("math.cos", th), elem, false, false)
		sn := castScalar(bb, d.op("math.sin", th), elem, false, false)
		vre := s.sub(s.mul(re, cs), s.mul(im, sn))
		vim := s.add(s.mul(re, sn), s.mul(im, cs))
		isRe := core.CmpI(bb, core.PredEQ, c, i64(0))
		v := s.sel(isRe, vre, vim)
		return []*ir.Value{s.add(a[1], s.sel(ok, v, s.c(0)))}
	})
	return []*ir.Value{g.Result(0)}, nil
}
