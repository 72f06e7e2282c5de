package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Resize (opset 10–19): nearest (four rounding modes), linear and
// cubic interpolation with every coordinate transformation mode, scales or
// sizes (with keep_aspect_ratio_policy) given as constants or run-time
// tensors. Each output element maps its coordinates back to the input
// (in f32) and sums the interpolation taps; dimensions whose size does not
// change are copied.

func init() {
	onnxReg(onnxResize, "Resize", "Upsample")
}

// resizeDim is what one output element needs along one dimension: the
// input indices and weights of its taps.
type resizeDim struct {
	idx []*ir.Value
	w   []*ir.Value // nil: one tap of weight 1
	out *ir.Value   // i1: outside the crop box (tf_crop_and_resize)
}

func onnxResize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	mode := o.attrStr("mode", "nearest")
	ctm := o.attrStr("coordinate_transformation_mode", "half_pixel")
	nearest := o.attrStr("nearest_mode", "round_prefer_floor")
	policy := o.attrStr("keep_aspect_ratio_policy", "stretch")
	cubicA := o.attrFloat("cubic_coeff_a", -0.75)
	exclude := o.attrInt("exclude_outside", 0) != 0
	extrap := o.attrFloat("extrapolation_value", 0)
	antialias := o.attrInt("antialias", 0) != 0
	if antialias && (mode == "nearest" || policy != "stretch") {
		return nil, o.errorf("with antialias needs mode linear or cubic and keep_aspect_ratio_policy stretch")
	}
	var roi, scales, sizes *ir.Value
	if o.kind == "Upsample" || o.c.opset < 11 {
		scales = o.in(1)
	} else {
		roi, scales, sizes = o.in(1), o.in(2), o.in(3)
	}
	if scales != nil && tt(scales).Dims[0] == 0 {
		scales = nil
	}
	axes, ok := o.attrInts("axes")
	if !ok {
		for i := 0; i < n; i++ {
			axes = append(axes, int64(i))
		}
	}
	slot := map[int]int64{} // dimension → position in scales/sizes/axes
	for k, a := range axes {
		d, err := o.normAxis(a, n)
		if err != nil {
			return nil, err
		}
		slot[d] = int64(k)
	}
	switch mode {
	case "nearest", "linear", "cubic":
	default:
		return nil, o.errorf("mode '%s' is not supported by gree", mode)
	}
	switch ctm {
	case "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize", "tf_half_pixel_for_nn":
	default:
		return nil, o.errorf("coordinate_transformation_mode '%s' is not supported by gree", ctm)
	}
	f32 := ir.F32
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, f32}
		readF := func(t *ir.Value, k int64) *ir.Value {
			return castScalar(bb, extractAt(bb, t, []*ir.Value{cIdx(bb, k)}), f32, false, false)
		}
		// scaleOf returns the scale of dimension d.
		scaleOf := func(d int) *ir.Value {
			k := slot[d]
			if scales != nil {
				return readF(scales, k)
			}
			if sizes == nil || policy == "stretch" {
				return s.c(float64(rt.Dims[d]) / float64(xt.Dims[d]))
			}
			var common *ir.Value
			for dd, kk := range slot {
				r := s.op("arith.divf", readF(sizes, kk), s.c(float64(xt.Dims[dd])))
				if common == nil {
					common = r
				} else if policy == "not_larger" {
					common = s.min(common, r, false)
				} else {
					common = s.max(common, r, false)
				}
			}
			return common
		}
		dims := make([]resizeDim, n)
		for d := 0; d < n; d++ {
			_, isAxis := slot[d]
			if !isAxis || xt.Dims[d] == rt.Dims[d] && ctm != "tf_crop_and_resize" {
				dims[d] = resizeDim{idx: []*ir.Value{core.LoopIndex(bb, d)}}
				continue
			}
			lin, lout := float64(xt.Dims[d]), float64(rt.Dims[d])
			xo := bb.Create("arith.uitofp", []*ir.Value{bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)}, []ir.Type{f32}).Result(0)
			sc := scaleOf(d)
			half := s.c(0.5)
			var xi *ir.Value
			var outside *ir.Value
			switch ctm {
			case "half_pixel":
				xi = s.sub(s.op("arith.divf", s.add(xo, half), sc), half)
			case "tf_half_pixel_for_nn":
				xi = s.op("arith.divf", s.add(xo, half), sc)
			case "pytorch_half_pixel":
				if lout > 1 {
					xi = s.sub(s.op("arith.divf", s.add(xo, half), sc), half)
				} else {
					xi = s.c(0)
				}
			case "half_pixel_symmetric":
				outW := s.mul(sc, s.c(lin))
				adj := s.op("arith.divf", s.c(lout), outW)
				off := s.mul(s.c(lin/2), s.sub(s.c(1), adj))
				xi = s.add(off, s.sub(s.op("arith.divf", s.add(xo, half), sc), half))
			case "align_corners":
				// The resized length is scale * input length (a float when
				// scales are given), as in ONNX's reference.
				lf := s.sub(s.mul(sc, s.c(lin)), s.c(1))
				one := s.cmp("le", lf, s.c(0), false)
				safe := s.sel(one, s.c(1), lf)
				xi = s.sel(one, s.c(0), s.op("arith.divf", s.mul(xo, s.c(lin-1)), safe))
			case "asymmetric":
				xi = s.op("arith.divf", xo, sc)
			case "tf_crop_and_resize":
				k := slot[d]
				na := int64(len(axes))
				start, end := readF(roi, k), readF(roi, k+na)
				if lout > 1 {
					xi = s.add(s.mul(start, s.c(lin-1)), s.mul(xo, s.op("arith.divf", s.mul(s.sub(end, start), s.c(lin-1)), s.c(lout-1))))
				} else {
					xi = s.mul(s.mul(s.c(0.5), s.add(start, end)), s.c(lin-1))
				}
				outside = core.BinOp(bb, "arith.ori", s.cmp("lt", xi, s.c(0), false), s.cmp("gt", xi, s.c(lin-1), false))
			}
			toIdx := func(v *ir.Value) *ir.Value {
				i := bb.Create("arith.fptosi", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0)
				i = bb.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.Index}).Result(0)
				i = bb.Create("arith.maxsi", []*ir.Value{i, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0)
				return bb.Create("arith.minsi", []*ir.Value{i, cIdx(bb, xt.Dims[d]-1)}, []ir.Type{ir.Index}).Result(0)
			}
			if antialias && mode != "nearest" {
				dims[d] = antialiasTaps(bb, s, xi, sc, float64(rt.Dims[d])/lin, mode, cubicA, exclude, lin, toIdx)
				dims[d].out = outside
				continue
			}
			switch mode {
			case "nearest":
				var r *ir.Value
				fl := s.op("math.floor", xi)
				isHalf := s.cmp("eq", s.sub(xi, fl), half, false)
				switch nearest {
				case "floor":
					r = fl
				case "ceil":
					r = s.op("math.ceil", xi)
				case "round_prefer_ceil":
					r = s.sel(isHalf, s.op("math.ceil", xi), s.op("math.round", xi))
				default:
					r = s.sel(isHalf, fl, s.op("math.round", xi))
				}
				dims[d] = resizeDim{idx: []*ir.Value{toIdx(r)}, out: outside}
			case "linear":
				fl := s.op("math.floor", xi)
				t := s.sub(xi, fl)
				dims[d] = resizeDim{idx: []*ir.Value{toIdx(fl), toIdx(s.add(fl, s.c(1)))}, w: []*ir.Value{s.sub(s.c(1), t), t}, out: outside}
			case "cubic":
				fl := s.op("math.floor", xi)
				t := s.sub(xi, fl)
				A := s.c(cubicA)
				// Keys cubic weights for the taps at -1, 0, 1, 2.
				far := func(u *ir.Value) *ir.Value { // |u| in [1, 2]
					return s.sub(s.mul(s.add(s.mul(s.sub(s.mul(A, u), s.mul(s.c(5), A)), u), s.mul(s.c(8), A)), u), s.mul(s.c(4), A))
				}
				near := func(u *ir.Value) *ir.Value { // |u| in [0, 1]
					return s.add(s.mul(s.mul(s.sub(s.mul(s.add(A, s.c(2)), u), s.add(A, s.c(3))), u), u), s.c(1))
				}
				one := s.c(1)
				ws := []*ir.Value{far(s.add(t, one)), near(t), near(s.sub(one, t)), far(s.sub(s.c(2), t))}
				var idx []*ir.Value
				var sum *ir.Value
				for q := 0; q < 4; q++ {
					p := s.add(fl, s.c(float64(q-1)))
					idx = append(idx, toIdx(p))
					if exclude {
						in := core.BinOp(bb, "arith.andi", s.cmp("ge", p, s.c(0), false), s.cmp("le", p, s.c(lin-1), false))
						ws[q] = s.sel(in, ws[q], s.c(0))
					}
					if sum == nil {
						sum = ws[q]
					} else {
						sum = s.add(sum, ws[q])
					}
				}
				if exclude {
					for q := range ws {
						ws[q] = s.op("arith.divf", ws[q], sum)
					}
				}
				dims[d] = resizeDim{idx: idx, w: ws, out: outside}
			}
		}
		// Sum over every combination of taps.
		var acc *ir.Value
		var walk func(d int, ix []*ir.Value, w *ir.Value)
		walk = func(d int, ix []*ir.Value, w *ir.Value) {
			if d == n {
				v := castScalar(bb, extractAt(bb, x, ix), f32, o.isUnsigned(x), false)
				if w != nil {
					v = s.mul(v, w)
				}
				if acc == nil {
					acc = v
				} else {
					acc = s.add(acc, v)
				}
				return
			}
			for q, i := range dims[d].idx {
				nw := w
				if dims[d].w != nil {
					if nw == nil {
						nw = dims[d].w[q]
					} else {
						nw = s.mul(nw, dims[d].w[q])
					}
				}
				walk(d+1, append(append([]*ir.Value{}, ix...), i), nw)
			}
		}
		walk(0, nil, nil)
		for d := 0; d < n; d++ {
			if dims[d].out != nil {
				acc = s.sel(dims[d].out, s.c(extrap), acc)
			}
		}
		if !ir.IsFloat(rt.Elem) && mode != "nearest" {
			acc = s.op("math.roundeven", acc)
		}
		return []*ir.Value{castScalar(bb, acc, rt.Elem, false, o.runs[0])}
	})
	return []*ir.Value{g.Result(0)}, nil
}
