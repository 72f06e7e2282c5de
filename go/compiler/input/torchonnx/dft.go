package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX DFT as a direct transform: one reduction generic over the output
// [..., K, 2 (or 1)] and the input samples along the axis, with angles
// 2π·((j·k) mod L)/L computed in f64. Forward (optionally one-sided),
// inverse, and the one-sided inverse (a real signal from half a
// Hermitian spectrum) are supported; dft_length must be a constant or
// follow from the static shapes.

func init() {
	onnxReg(onnxDFT, "DFT")
}

func onnxDFT(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	r := len(xt.Dims)
	inverse, onesided := o.attrInt("inverse", 0) != 0, o.attrInt("onesided", 0) != 0
	axis := o.attrInt("axis", 1)
	var axisV *ir.Value // a run-time axis (opset 20)
	if o.c.opset >= 20 {
		axis = -2
		if o.in(2) != nil {
			v, ok := o.constInts(2)
			if ok && len(v) == 1 {
				axis = v[0]
			} else {
				axisV = o.in(2)
			}
		}
	}
	if axisV != nil {
		// Transform along every axis the shapes allow and pick the
		// run-time one.
		var cands []int
		var vals []*ir.Value
		for d := 0; d < r-1; d++ {
			ok := true
			for e := 0; e < r-1; e++ {
				if e != d && rt.Dims[e] != xt.Dims[e] {
					ok = false
				}
			}
			if !ok {
				continue
			}
			v, err := o.dftAlong(x, rt, d, inverse, onesided)
			if err != nil {
				return nil, err
			}
			cands, vals = append(cands, d), append(vals, v)
		}
		if len(vals) == 0 {
			return nil, o.errorf("has shapes that no axis gives")
		}
		if len(vals) == 1 {
			return vals, nil
		}
		y := mapGeneric(o.b, vals, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			ax := extractIndex(bb, axisV, 0)
			ax = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, ax, cIdx(bb, 0)), core.BinOp(bb, "arith.addi", ax, cIdx(bb, int64(r))), ax}, []ir.Type{ir.Index}).Result(0)
			v := a[0]
			for i := 1; i < len(a); i++ {
				v = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredEQ, ax, cIdx(bb, int64(cands[i]))), a[i], v}, []ir.Type{rt.Elem}).Result(0)
			}
			return v
		})
		return []*ir.Value{y}, nil
	}
	ax, err := o.normAxis(axis, r)
	if err != nil {
		return nil, err
	}
	if ax == r-1 {
		return nil, o.errorf("cannot transform the last (real/imaginary) dimension")
	}
	v, err := o.dftAlong(x, rt, ax, inverse, onesided)
	if err != nil {
		return nil, err
	}
	return []*ir.Value{v}, nil
}

// dftAlong transforms x along axis ax into the static type rt.
func (o *onnxOp) dftAlong(x *ir.Value, rt *ir.RankedTensorType, ax int, inverse, onesided bool) (*ir.Value, error) {
	xt := tt(x)
	r := len(xt.Dims)
	nIn := xt.Dims[ax]
	K := rt.Dims[ax]
	var L int64
	if o.in(1) != nil {
		v, ok := o.constInts(1)
		switch {
		case ok && len(v) == 1:
			L = v[0]
		case !onesided || inverse:
			L = K // the result length is the transform length
		case nIn/2+1 == K:
			L = nIn
		default:
			return nil, o.errorf("with a non-constant dft_length that the shapes do not determine is not supported by gree")
		}
	} else if inverse && onesided {
		L = 2 * (nIn - 1)
	} else {
		L = nIn
	}
	if inverse && onesided {
		L = K
	}
	if L <= 0 {
		return nil, o.errorf("has a non-positive dft_length %d", L)
	}
	complexIn := xt.Dims[r-1] == 2
	terms := min64(nIn, L)
	if inverse && onesided {
		terms = nIn
	}
	n := len(rt.Dims)
	win := empty(o.b, ir.Tensor([]int64{terms}, ir.F64))
	wm := &ir.AffineMap{NumDims: n + 1, Results: []ir.AffineExpr{dimExpr(n)}}
	om := linalg.Identity(n + 1)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	acc := filled(o.b, ir.Tensor(rt.Dims, ir.F64), 0)
	g := linalg.BuildGeneric(o.b, []*ir.Value{win}, []*ir.Value{acc}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := sc{bb, ir.F64}
		j, k := core.LoopIndex(bb, n), core.LoopIndex(bb, ax)
		read := func(part int64) *ir.Value {
			var ix []*ir.Value
			for d := 0; d < r; d++ {
				switch {
				case d == ax:
					ix = append(ix, j)
				case d == r-1:
					ix = append(ix, cIdx(bb, part))
				default:
					ix = append(ix, core.LoopIndex(bb, d))
				}
			}
			return castScalar(bb, extractAt(bb, x, ix), ir.F64, false, false)
		}
		re := read(0)
		im := s.c(0)
		if complexIn {
			im = read(1)
		}
		jk := core.BinOp(bb, "arith.remui", core.BinOp(bb, "arith.muli", j, k), cIdx(bb, L))
		jkf := bb.Create("arith.uitofp", []*ir.Value{bb.Create("arith.index_cast", []*ir.Value{jk}, []ir.Type{ir.I64}).Result(0)}, []ir.Type{ir.F64}).Result(0)
		th := s.mul(jkf, s.c(2*math.Pi/float64(L)))
		cs, sn := s.op("math.cos", th), s.op("math.sin", th)
		var outRe, outIm *ir.Value
		if !inverse {
			outRe = s.add(s.mul(re, cs), s.mul(im, sn))
			outIm = s.sub(s.mul(im, cs), s.mul(re, sn))
		} else {
			outRe = s.sub(s.mul(re, cs), s.mul(im, sn))
			outIm = s.add(s.mul(re, sn), s.mul(im, cs))
			scale := s.c(1 / float64(L))
			if onesided {
				// Hermitian weights: 1 for DC (and Nyquist), 2 otherwise.
				w := s.sel(core.CmpI(bb, core.PredEQ, j, cIdx(bb, 0)), s.c(1), s.c(2))
				if L%2 == 0 {
					w = s.sel(core.CmpI(bb, core.PredEQ, j, cIdx(bb, L/2)), s.c(1), w)
				}
				scale = s.mul(scale, w)
			}
			outRe, outIm = s.mul(outRe, scale), s.mul(outIm, scale)
		}
		v := outRe
		if rt.Dims[n-1] == 2 {
			v = s.sel(core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n-1), cIdx(bb, 1)), outIm, outRe)
		}
		return []*ir.Value{s.add(a[1], v)}
	})
	y := mapGeneric(o.b, []*ir.Value{g.Result(0)}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		return castScalar(bb, a[0], rt.Elem, false, false)
	})
	return y, nil
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}
