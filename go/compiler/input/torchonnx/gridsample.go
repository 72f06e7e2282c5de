package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX GridSample (2-D and 3-D): each output element reads its normalized
// coordinates from the grid (x for the last spatial dimension), maps them
// to input coordinates (align_corners), applies the padding mode to the
// coordinate (border: clamp; reflection: reflect into the border range)
// and interpolates (nearest with round-half-even, linear, cubic with
// a = -0.75) over taps whose out-of-range reads give zero, the border
// pixel or the reflected pixel, as ONNX's reference does.

func init() {
	onnxReg(onnxGridSample, "GridSample")
}

func onnxGridSample(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, grid, rt := o.in(0), o.in(1), o.rts[0]
	xt := tt(x)
	r := len(xt.Dims) - 2
	if r < 1 || len(tt(grid).Dims) != r+2 || tt(grid).Dims[r+1] != int64(r) {
		return nil, o.errorf("needs X [N, C, D…] and grid [N, O…, %d]", r)
	}
	mode := o.attrStr("mode", "linear")
	switch mode {
	case "bilinear":
		mode = "linear"
	case "bicubic":
		mode = "cubic"
	case "linear", "nearest", "cubic":
	default:
		return nil, o.errorf("mode '%s' is not supported by gree", mode)
	}
	pad := o.attrStr("padding_mode", "zeros")
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nil, o.errorf("padding_mode '%s' is not supported by gree", pad)
	}
	align := o.attrInt("align_corners", 0) != 0
	n := len(rt.Dims)
	f32 := ir.Type(ir.F32)
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, f32}
		// reflect folds v into [lo, hi] as the reference's _gs_reflect.
		reflect := func(v *ir.Value, lo, hi float64) *ir.Value {
			rng := hi - lo
			fold := func(dx *ir.Value, near, far float64) *ir.Value {
				k := s.op("math.floor", s.op("arith.divf", dx, s.c(rng)))
				rem := s.sub(dx, s.mul(k, s.c(rng)))
				even := s.cmp("eq", s.sub(k, s.mul(s.c(2), s.op("math.floor", s.mul(k, s.c(0.5))))), s.c(0), false)
				var a, b *ir.Value
				if near < far {
					a, b = s.add(s.c(near), rem), s.sub(s.c(far), rem)
				} else {
					a, b = s.sub(s.c(near), rem), s.add(s.c(far), rem)
				}
				return s.sel(even, a, b)
			}
			below := fold(s.sub(s.c(lo), v), lo, hi)
			above := fold(s.sub(v, s.c(hi)), hi, lo)
			return s.sel(s.cmp("lt", v, s.c(lo), false), below, s.sel(s.cmp("gt", v, s.c(hi), false), above, v))
		}
		type tap struct {
			idx *ir.Value // index into the spatial dimension
			w   *ir.Value // weight (nil: 1)
			ok  *ir.Value // i1: in range (zeros padding), nil otherwise
		}
		taps := make([][]tap, r)
		for i := 0; i < r; i++ {
			dim := float64(xt.Dims[2+i])
			lo, hi := -0.5, dim-0.5
			if align {
				lo, hi = 0, dim-1
			}
			gix := []*ir.Value{core.LoopIndex(bb, 0)}
			for j := 0; j < r; j++ {
				gix = append(gix, core.LoopIndex(bb, 2+j))
			}
			gix = append(gix, cIdx(bb, int64(r-1-i)))
			nx := castScalar(bb, extractAt(bb, grid, gix), f32, false, false)
			var xf *ir.Value
			if align {
				xf = s.mul(s.op("arith.divf", s.add(nx, s.c(1)), s.c(2)), s.c(dim-1))
			} else {
				xf = s.op("arith.divf", s.sub(s.mul(s.add(nx, s.c(1)), s.c(dim)), s.c(1)), s.c(2))
			}
			if mode == "nearest" {
				xf = s.op("math.roundeven", xf)
			}
			switch pad {
			case "border":
				xf = s.min(s.max(xf, s.c(0), false), s.c(dim-1), false)
			case "reflection":
				xf = reflect(xf, lo, hi)
			}
			// pixel index for an integer tap position p (float)
			at := func(p *ir.Value) tap {
				var ok *ir.Value
				switch pad {
				case "zeros":
					ok = core.BinOp(bb, "arith.andi", s.cmp("ge", p, s.c(0), false), s.cmp("le", p, s.c(dim-1), false))
				case "border":
					p = s.min(s.max(p, s.c(0), false), s.c(dim-1), false)
				case "reflection":
					p = reflect(p, lo, hi)
				}
				i64 := bb.Create("arith.fptosi", []*ir.Value{p}, []ir.Type{ir.I64}).Result(0)
				ix := bb.Create("arith.index_cast", []*ir.Value{i64}, []ir.Type{ir.Index}).Result(0)
				ix = bb.Create("arith.maxsi", []*ir.Value{ix, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0)
				ix = bb.Create("arith.minsi", []*ir.Value{ix, cIdx(bb, int64(dim)-1)}, []ir.Type{ir.Index}).Result(0)
				return tap{idx: ix, ok: ok}
			}
			switch mode {
			case "nearest":
				taps[i] = []tap{at(xf)}
			case "linear":
				x0 := s.op("math.floor", xf)
				t := s.sub(xf, x0)
				a, b := at(x0), at(s.add(x0, s.c(1)))
				a.w, b.w = s.sub(s.c(1), t), t
				taps[i] = []tap{a, b}
			case "cubic":
				x0 := s.op("math.floor", xf)
				t := s.sub(xf, x0)
				A := s.c(-0.75)
				far := func(u *ir.Value) *ir.Value {
					return s.sub(s.mul(s.add(s.mul(s.sub(s.mul(A, u), s.mul(s.c(5), A)), u), s.mul(s.c(8), A)), u), s.mul(s.c(4), A))
				}
				near := func(u *ir.Value) *ir.Value {
					return s.add(s.mul(s.mul(s.sub(s.mul(s.add(A, s.c(2)), u), s.add(A, s.c(3))), u), u), s.c(1))
				}
				ws := []*ir.Value{far(s.add(t, s.c(1))), near(t), near(s.sub(s.c(1), t)), far(s.sub(s.c(2), t))}
				for q := 0; q < 4; q++ {
					tp := at(s.add(x0, s.c(float64(q-1))))
					tp.w = ws[q]
					taps[i] = append(taps[i], tp)
				}
			}
		}
		var acc *ir.Value
		var walk func(i int, ix []*ir.Value, w, ok *ir.Value)
		walk = func(i int, ix []*ir.Value, w, ok *ir.Value) {
			if i == r {
				v := castScalar(bb, extractAt(bb, x, append([]*ir.Value{core.LoopIndex(bb, 0), core.LoopIndex(bb, 1)}, ix...)), f32, false, false)
				if ok != nil {
					v = s.sel(ok, v, s.c(0))
				}
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
			for _, tp := range taps[i] {
				nw, nok := w, ok
				if tp.w != nil {
					if nw == nil {
						nw = tp.w
					} else {
						nw = s.mul(nw, tp.w)
					}
				}
				if tp.ok != nil {
					nok = andAll(bb, nok, tp.ok)
				}
				walk(i+1, append(append([]*ir.Value{}, ix...), tp.idx), nw, nok)
			}
		}
		walk(0, nil, nil, nil)
		return []*ir.Value{castScalar(bb, acc, rt.Elem, false, false)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func init() {
	onnxReg(onnxAffineGrid, "AffineGrid")
}

// onnxAffineGrid: grid[n, o…, k] = Σ_j theta[n, k, j] · base_j(o…), where
// base is (x, y[, z], 1) with x along the last spatial dimension, the
// normalized pixel centers (or corners with align_corners).
func onnxAffineGrid(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	theta, rt := o.in(0), o.rts[0]
	n := len(rt.Dims)
	r := n - 2
	if r < 2 || rt.Dims[n-1] != int64(r) {
		return nil, o.errorf("needs a result [N, D…, %d]", r)
	}
	align := o.attrInt("align_corners", 0) != 0
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		acc := s.c(0)
		for j := 0; j <= r; j++ {
			base := s.c(1)
			if j < r {
				d := r - 1 - j // the spatial dimension of coordinate j
				size := float64(rt.Dims[1+d])
				i := indexF(bb, 1+d, rt.Elem)
				if align {
					base = s.add(s.c(-1), s.mul(i, s.c(2/(size-1))))
				} else {
					step := 2 / size
					base = s.add(s.c(-1+step/2), s.mul(i, s.c(step)))
				}
			}
			th := castScalar(bb, extractAt(bb, theta, []*ir.Value{core.LoopIndex(bb, 0), core.LoopIndex(bb, n-1), cIdx(bb, int64(j))}), rt.Elem, false, false)
			acc = s.add(acc, s.mul(th, base))
		}
		return []*ir.Value{acc}
	})
	return []*ir.Value{g.Result(0)}, nil
}
