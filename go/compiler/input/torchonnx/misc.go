package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX window functions, CenterCropPad, RMS/Lp normalization, Shrink,
// GlobalLpPool, DynamicQuantizeLinear and the NLL / softmax cross-entropy
// losses.

func init() {
	onnxReg(onnxWindow, "HannWindow", "HammingWindow", "BlackmanWindow")
	onnxReg(onnxCenterCropPad, "CenterCropPad")
	onnxReg(onnxRMSNorm, "RMSNormalization")
	onnxReg(onnxLpNorm, "LpNormalization")
	onnxReg(onnxShrink, "Shrink")
	onnxReg(onnxGlobalLpPool, "GlobalLpPool")
	onnxReg(onnxDynamicQuantize, "DynamicQuantizeLinear")
	onnxReg(onnxNLLLoss, "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
}

// indexF returns loop index d as a value of float type t.
func indexF(bb *ir.Builder, d int, t ir.Type) *ir.Value {
	i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)
	return bb.Create("arith.sitofp", []*ir.Value{i}, []ir.Type{t}).Result(0)
}

// onnxWindow: the window of the static result length N (periodic: the
// cosines run over N, symmetric over N-1), computed in f64.
func onnxWindow(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	N := float64(rt.Dims[0])
	if o.attrInt("periodic", 1) == 0 {
		N--
	}
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, ir.F64}
		n := indexF(bb, 0, ir.F64)
		c := func(k float64) *ir.Value { return s.op("math.cos", s.mul(n, s.c(2*math.Pi*k/N))) }
		var v *ir.Value
		switch o.kind {
		case "HannWindow":
			v = s.sub(s.c(0.5), s.mul(s.c(0.5), c(1)))
		case "HammingWindow":
			v = s.sub(s.c(25.0/46), s.mul(s.c(21.0/46), c(1)))
		default:
			v = s.add(s.sub(s.c(0.42), s.mul(s.c(0.5), c(1))), s.mul(s.c(0.08), c(2)))
		}
		return []*ir.Value{castScalar(bb, v, rt.Elem, false, o.runs[0])}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxCenterCropPad crops (centered, extra from the end) or zero-pads
// (centered, extra at the end) each axis to the static result size.
func onnxCenterCropPad(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(rt.Dims)
	off := make([]int64, n) // source = out + off
	for d := 0; d < n; d++ {
		in, out := xt.Dims[d], rt.Dims[d]
		if in > out {
			off[d] = (in - out) / 2
		} else {
			off[d] = -((out - in) / 2)
		}
	}
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		var ok *ir.Value
		var ix []*ir.Value
		for d := 0; d < n; d++ {
			i := core.BinOp(bb, "arith.addi", core.LoopIndex(bb, d), cIdx(bb, off[d]))
			ok = andAll(bb, ok, core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, i, cIdx(bb, 0)), core.CmpI(bb, core.PredSLT, i, cIdx(bb, xt.Dims[d]))))
			i = bb.Create("arith.maxsi", []*ir.Value{i, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0)
			ix = append(ix, bb.Create("arith.minsi", []*ir.Value{i, cIdx(bb, max64(xt.Dims[d]-1, 0))}, []ir.Type{ir.Index}).Result(0))
		}
		v := extractAt(bb, x, ix)
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{ok, v, scalarConst(bb, 0, xt.Elem)}, []ir.Type{xt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxRMSNorm: x / sqrt(mean(x²) + eps) * scale over the axes from axis.
func onnxRMSNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, scale, rt := o.in(0), o.in(1), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -1), n)
	if err != nil {
		return nil, err
	}
	red := map[int]bool{}
	count := int64(1)
	for i := ax; i < n; i++ {
		red[i] = true
		count *= xt.Dims[i]
	}
	elem := ir.Type(ir.F32)
	if ir.TypesEqual(xt.Elem, ir.F64) {
		elem = ir.F64
	}
	sq := reduceDims(o.b, x, red, elem, 0, func(s sc, v *ir.Value) *ir.Value { return s.mul(v, v) }, func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) })
	eps := o.attrFloat("epsilon", 1e-5)
	km := keptMap(n, red)
	y := mapGenericMaps(o.b, []*ir.Value{x, sq, scale}, []*ir.AffineMap{linalg.Identity(n), km, broadcastMap(tt(scale).Dims, xt.Dims)}, rt, func(s sc, a []*ir.Value) *ir.Value {
		e := sc{s.b, elem}
		r := e.op("math.rsqrt", e.add(e.op("arith.divf", a[1], e.c(float64(count))), e.c(eps)))
		v := e.mul(e.mul(castScalar(s.b, a[0], elem, false, false), r), castScalar(s.b, a[2], elem, false, false))
		return castScalar(s.b, v, rt.Elem, false, false)
	})
	return []*ir.Value{y}, nil
}

// onnxLpNorm: x / ||x||_p along axis (p = 1 or 2).
func onnxLpNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	n := len(rt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -1), n)
	if err != nil {
		return nil, err
	}
	p := o.attrInt("p", 2)
	if p != 1 && p != 2 {
		return nil, o.errorf("with p = %d is not supported (ONNX allows 1 and 2)", p)
	}
	red := map[int]bool{ax: true}
	nrm := reduceDims(o.b, x, red, rt.Elem, 0, func(s sc, v *ir.Value) *ir.Value {
		if p == 1 {
			return s.op("math.absf", v)
		}
		return s.mul(v, v)
	}, func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) })
	y := mapGenericMaps(o.b, []*ir.Value{x, nrm}, []*ir.AffineMap{linalg.Identity(n), keptMap(n, red)}, rt, func(s sc, a []*ir.Value) *ir.Value {
		d := a[1]
		if p == 2 {
			d = s.op("math.sqrt", d)
		}
		// A zero norm divides by one (as ONNX's reference does).
		d = s.sel(s.cmp("eq", d, s.c(0), false), s.c(1), d)
		return s.op("arith.divf", a[0], d)
	})
	return []*ir.Value{y}, nil
}

// onnxShrink: x < -lambd → x + bias; x > lambd → x - bias; else 0.
func onnxShrink(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	lambd, bias := o.attrFloat("lambd", 0.5), o.attrFloat("bias", 0)
	y := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		f := sc{bb, ir.F64}
		v := castScalar(bb, a[0], ir.F64, o.isUnsigned(x), false)
		r := f.sel(f.cmp("lt", v, f.c(-lambd), false), f.add(v, f.c(bias)), f.sel(f.cmp("gt", v, f.c(lambd), false), f.sub(v, f.c(bias)), f.c(0)))
		return castScalar(bb, r, rt.Elem, false, o.runs[0])
	})
	return []*ir.Value{y}, nil
}

// onnxGlobalLpPool: (sum |x|^p over the spatial dimensions)^(1/p).
func onnxGlobalLpPool(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	p := float64(o.attrInt("p", 2))
	red := map[int]bool{}
	for i := 2; i < len(xt.Dims); i++ {
		red[i] = true
	}
	y := reduceDims(o.b, x, red, xt.Elem, 0, func(s sc, v *ir.Value) *ir.Value {
		return s.op("math.powf", s.op("math.absf", v), s.c(p))
	}, func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) })
	y = mapGeneric(o.b, []*ir.Value{y}, tt(y), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, xt.Elem}
		return s.op("math.powf", a[0], s.c(1/p))
	})
	return []*ir.Value{reshape(o.b, y, rt)}, nil
}

// onnxDynamicQuantize: uint8 quantization with scale and zero point from
// the data range (extended to include 0).
func onnxDynamicQuantize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	all := map[int]bool{}
	for i := range xt.Dims {
		all[i] = true
	}
	mx := reduceDims(o.b, x, all, ir.F32, 0, nil, func(s sc, a, v *ir.Value) *ir.Value { return s.max(a, v, false) })
	mn := reduceDims(o.b, x, all, ir.F32, 0, nil, func(s sc, a, v *ir.Value) *ir.Value { return s.min(a, v, false) })
	scalarT := ir.Tensor(nil, ir.F32)
	scale := mapGeneric(o.b, []*ir.Value{mx, mn}, scalarT, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, ir.F32}
		return s.op("arith.divf", s.sub(a[0], a[1]), s.c(255))
	})
	zpF := mapGeneric(o.b, []*ir.Value{mn, scale}, scalarT, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, ir.F32}
		z := s.op("math.roundeven", s.sub(s.c(0), s.op("arith.divf", a[0], a[1])))
		return s.min(s.max(z, s.c(0), false), s.c(255), false)
	})
	yt, zt := o.rts[0], o.rts[2]
	n := len(xt.Dims)
	s0 := &ir.AffineMap{NumDims: n}
	y := mapGenericMaps(o.b, []*ir.Value{x, scale, zpF}, []*ir.AffineMap{linalg.Identity(n), s0, s0}, yt, func(s sc, a []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		q := f.add(f.op("math.roundeven", f.op("arith.divf", a[0], a[1])), a[2])
		q = f.min(f.max(q, f.c(0), false), f.c(255), false)
		return castScalar(s.b, q, yt.Elem, false, true)
	})
	zp := mapGeneric(o.b, []*ir.Value{zpF}, zt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		return castScalar(bb, a[0], zt.Elem, false, true)
	})
	return []*ir.Value{y, reshape(o.b, scale, o.rts[1]), zp}, nil
}

// onnxNLLLoss computes -input[n, target, d…] * weight[target] (0 for
// ignore_index) with reduction none, sum or mean (divided by the summed
// weights); SoftmaxCrossEntropyLoss applies it to log_softmax(scores) and
// may also return the log-probabilities.
func onnxNLLLoss(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, target, weight := o.in(0), o.in(1), o.in(2)
	xt, tgt := tt(x), tt(target)
	elem := xt.Elem
	logp := x
	if o.kind == "SoftmaxCrossEntropyLoss" {
		logp = softmaxLike(o.b, x, map[int]bool{1: true}, true)
	}
	if len(xt.Dims) < 2 || len(tgt.Dims) != len(xt.Dims)-1 {
		return nil, o.errorf("needs scores [N, C, …] and targets [N, …], got ranks %d and %d", len(xt.Dims), len(tgt.Dims))
	}
	_, hasIgnore := o.attr("ignore_index").(*ir.IntegerAttr)
	ignore := o.attrInt("ignore_index", 0)
	C := xt.Dims[1]
	n := len(tgt.Dims)
	lt := ir.Tensor(tgt.Dims, elem)
	// per-element loss and weight
	body := func(bb *ir.Builder, a []*ir.Value, wantWeight bool) *ir.Value {
		s := sc{bb, elem}
		t := castScalar(bb, a[0], ir.I64, false, false)
		ti := bb.Create("arith.index_cast", []*ir.Value{t}, []ir.Type{ir.Index}).Result(0)
		ti = bb.Create("arith.minsi", []*ir.Value{bb.Create("arith.maxsi", []*ir.Value{ti, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0), cIdx(bb, C-1)}, []ir.Type{ir.Index}).Result(0)
		w := s.c(1)
		if weight != nil {
			w = extractAt(bb, weight, []*ir.Value{ti})
		}
		if hasIgnore {
			w = s.sel(core.Cmp(bb, "arith.cmpi", 1, t, bb.Constant(ir.IntAttr(ignore, ir.I64))), w, s.c(0))
		}
		if wantWeight {
			return w
		}
		ix := []*ir.Value{core.LoopIndex(bb, 0), ti}
		for d := 1; d < n; d++ {
			ix = append(ix, core.LoopIndex(bb, d))
		}
		return s.mul(s.sub(s.c(0), extractAt(bb, logp, ix)), w)
	}
	loss := mapGeneric(o.b, []*ir.Value{target}, lt, func(bb *ir.Builder, a []*ir.Value) *ir.Value { return body(bb, a, false) })
	all := map[int]bool{}
	for i := 0; i < n; i++ {
		all[i] = true
	}
	add := func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) }
	var out *ir.Value
	switch red := o.attrStr("reduction", "mean"); red {
	case "none":
		out = loss
	case "sum":
		out = reduceDims(o.b, loss, all, elem, 0, nil, add)
	case "mean":
		ws := mapGeneric(o.b, []*ir.Value{target}, lt, func(bb *ir.Builder, a []*ir.Value) *ir.Value { return body(bb, a, true) })
		sum := reduceDims(o.b, loss, all, elem, 0, nil, add)
		wsum := reduceDims(o.b, ws, all, elem, 0, nil, add)
		out = mapGeneric(o.b, []*ir.Value{sum, wsum}, tt(sum), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return sc{bb, elem}.op("arith.divf", a[0], a[1])
		})
	default:
		return nil, o.errorf("reduction '%s' is not supported by gree", red)
	}
	res := []*ir.Value{reshape(o.b, out, o.rts[0])}
	if len(o.rts) > 1 && o.rts[1] != nil {
		res = append(res, logp)
	}
	return res, nil
}

func init() {
	onnxReg(onnxRotary, "RotaryEmbedding")
	onnxReg(onnxBitCast, "BitCast")
	onnxReg(onnxSwish, "Swish")
	onnxReg(onnxBinarizer, "Binarizer")
}

// onnxRotary is RotaryEmbedding (opset 23) on [B, H, S, D] or
// [B, S, H*D] inputs, with cos/sin caches indexed by position_ids (or
// given per batch and position), halves or interleaved pairs rotated, and
// dimensions past rotary_embedding_dim passed through.
func onnxRotary(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, cosC, sinC, pos, rt := o.in(0), o.in(1), o.in(2), o.in(3), o.rts[0]
	xt := tt(x)
	four := len(xt.Dims) == 4
	var D int64
	if four {
		D = xt.Dims[3]
	} else {
		nh := o.attrInt("num_heads", 0)
		if nh <= 0 || len(xt.Dims) != 3 {
			return nil, o.errorf("with a 3-D input needs num_heads")
		}
		D = xt.Dims[2] / nh
	}
	rd := o.attrInt("rotary_embedding_dim", 0)
	if rd == 0 {
		rd = D
	}
	half := rd / 2
	inter := o.attrInt("interleaved", 0) != 0
	n := len(xt.Dims)
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, xt.Elem}
		c := func(v int64) *ir.Value { return cIdx(bb, v) }
		var b, sq, d *ir.Value
		var at func(dd *ir.Value) []*ir.Value // x indices for head dim dd
		if four {
			b, sq, d = core.LoopIndex(bb, 0), core.LoopIndex(bb, 2), core.LoopIndex(bb, 3)
			h := core.LoopIndex(bb, 1)
			at = func(dd *ir.Value) []*ir.Value { return []*ir.Value{b, h, sq, dd} }
		} else {
			b, sq = core.LoopIndex(bb, 0), core.LoopIndex(bb, 1)
			hd := core.LoopIndex(bb, 2)
			h := core.BinOp(bb, "arith.divui", hd, c(D))
			d = core.BinOp(bb, "arith.remui", hd, c(D))
			at = func(dd *ir.Value) []*ir.Value {
				return []*ir.Value{b, sq, core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", h, c(D)), dd)}
			}
		}
		clampD := func(v *ir.Value) *ir.Value {
			return bb.Create("arith.minsi", []*ir.Value{v, c(D - 1)}, []ir.Type{ir.Index}).Result(0)
		}
		var j, i1, i2, second *ir.Value
		if inter {
			j = core.BinOp(bb, "arith.divui", d, c(2))
			i1 = core.BinOp(bb, "arith.muli", j, c(2))
			i2 = core.BinOp(bb, "arith.addi", i1, c(1))
			second = core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remui", d, c(2)), c(1))
		} else {
			second = core.CmpI(bb, core.PredSGE, d, c(half))
			j = bb.Create("arith.select", []*ir.Value{second, core.BinOp(bb, "arith.subi", d, c(half)), d}, []ir.Type{ir.Index}).Result(0)
			i1 = j
			i2 = core.BinOp(bb, "arith.addi", j, c(half))
		}
		jc := bb.Create("arith.minsi", []*ir.Value{j, c(max64(half-1, 0))}, []ir.Type{ir.Index}).Result(0)
		var cix []*ir.Value
		if pos != nil {
			p := extractAt(bb, pos, []*ir.Value{b, sq})
			cix = []*ir.Value{bb.Create("arith.index_cast", []*ir.Value{p}, []ir.Type{ir.Index}).Result(0), jc}
		} else {
			cix = []*ir.Value{b, sq, jc}
		}
		cv := castScalar(bb, extractAt(bb, cosC, cix), xt.Elem, false, false)
		sv := castScalar(bb, extractAt(bb, sinC, cix), xt.Elem, false, false)
		x1 := extractAt(bb, x, at(clampD(i1)))
		x2 := extractAt(bb, x, at(clampD(i2)))
		real := s.sub(s.mul(cv, x1), s.mul(sv, x2))
		imag := s.add(s.mul(sv, x1), s.mul(cv, x2))
		rot := s.sel(second, imag, real)
		pass := extractAt(bb, x, at(d))
		return []*ir.Value{s.sel(core.CmpI(bb, core.PredSLT, d, c(rd)), rot, pass)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxBitCast reinterprets elements of the same width.
func onnxBitCast(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	from := tt(x).Elem
	boolByte := core.IsBool(from) && core.Width(rt.Elem) == 8 || core.IsBool(rt.Elem) && core.Width(from) == 8 && !ir.IsFloat(from)
	if boolByte && ir.TypesEqual(ir.Tensor(tt(x).Dims, rt.Elem), rt) {
		// bool is stored as one byte.
		return []*ir.Value{mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return castScalar(bb, a[0], rt.Elem, true, true)
		})}, nil
	}
	if core.Width(tt(x).Elem) != core.Width(rt.Elem) || isSmallFloat(rt.Elem) || isSmallFloat(tt(x).Elem) || !ir.TypesEqual(ir.Tensor(tt(x).Dims, rt.Elem), rt) {
		return nil, o.errorf("between %s and %s is not supported by gree (only same-width types)", tt(x).Elem, rt.Elem)
	}
	y := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		if ir.TypesEqual(a[0].Type, rt.Elem) {
			return a[0]
		}
		return bb.Create("arith.bitcast", a, []ir.Type{rt.Elem}).Result(0)
	})
	return []*ir.Value{y}, nil
}

// onnxSwish: x * sigmoid(alpha * x).
func onnxSwish(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	alpha := o.attrFloat("alpha", 1)
	y := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		e := s.op("math.exp", s.op("arith.negf", s.mul(a[0], s.c(alpha))))
		return s.op("arith.divf", a[0], s.add(s.c(1), e))
	})
	return []*ir.Value{y}, nil
}

// onnxBinarizer: 1 where x > threshold, else 0.
func onnxBinarizer(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	th := o.attrFloat("threshold", 0)
	y := mapGeneric(o.b, []*ir.Value{x}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		return s.sel(s.cmp("gt", a[0], s.c(th), false), s.c(1), s.c(0))
	})
	return []*ir.Value{y}, nil
}

func init() {
	onnxReg(onnxCausalConv, "CausalConvWithState")
}

// onnxCausalConv is CausalConvWithState: a depthwise 1-D convolution over
// [past_state | input] (zeros without a state), an optional SiLU, and the
// last k-1 steps of that concatenation as the present state.
func onnxCausalConv(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, w, bias, past := o.in(0), o.in(1), o.in(2), o.in(3)
	xt, wt := tt(x), tt(w)
	if len(xt.Dims) != 3 || len(wt.Dims) != 3 {
		return nil, o.errorf("needs input [B, C, L] and weight [C, 1, k]")
	}
	B, C, L, k := xt.Dims[0], xt.Dims[1], xt.Dims[2], wt.Dims[2]
	act := o.attrStr("activation", "none")
	if act != "none" && act != "silu" && act != "swish" {
		return nil, o.errorf("activation '%s' is not supported by gree", act)
	}
	if past == nil {
		past = filled(o.b, ir.Tensor([]int64{B, C, k - 1}, xt.Elem), 0)
	}
	pt := ir.Tensor([]int64{B, C, L + k - 1}, xt.Elem)
	padded := x
	if k > 1 {
		padded = concatAlong(o.b, []*ir.Value{past, x}, 2, pt)
	}
	yt := ir.Tensor([]int64{B, C, L}, xt.Elem)
	var init *ir.Value
	if bias != nil {
		init = copyGeneric(o.b, bias, &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(1)}}, yt)
	} else {
		init = filled(o.b, yt, 0)
	}
	y := convAffine(o.b, padded, w, init, yt, []int64{1}, []int64{1}, []int64{0}, C, false)
	if act != "none" {
		y = mapGeneric(o.b, []*ir.Value{y}, yt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, xt.Elem}
			return s.op("arith.divf", a[0], s.add(s.c(1), s.op("math.exp", s.op("arith.negf", a[0]))))
		})
	}
	out := []*ir.Value{reshape(o.b, y, o.rts[0])}
	if len(o.rts) > 1 && o.rts[1] != nil {
		st := ir.Tensor([]int64{B, C, k - 1}, xt.Elem)
		out = append(out, reshape(o.b, sliceCopy(o.b, padded, []int64{0, 0, L}, []int64{1, 1, 1}, st), o.rts[1]))
	}
	return out, nil
}
