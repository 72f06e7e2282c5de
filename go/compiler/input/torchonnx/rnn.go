package torchonnx

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX RNN, GRU and LSTM, their steps a host loop over the static
// sequence length: the input projections of every step are one matmul
// (X·Wᵀ + biases) before the loop; each step is one matrix-vector
// product H·Rᵀ and one element-wise cell kernel that adds the step's
// input terms (read at the run-time step) and applies the gates.
// Directions forward, reverse and bidirectional, both layouts, initial
// states, sequence_lens (finished sequences keep their state and output
// zeros), clip, peepholes, input_forget, linear_before_reset and the
// activation functions ONNX lists are supported.

func init() {
	onnxReg(onnxRNN, "RNN", "GRU", "LSTM")
}

// rnnAct applies the named ONNX activation.
func rnnAct(s sc, name string, alpha, beta float64, x *ir.Value) (*ir.Value, bool) {
	switch strings.ToLower(name) {
	case "sigmoid":
		return s.op("arith.divf", s.c(1), s.add(s.c(1), s.op("math.exp", s.op("arith.negf", x)))), true
	case "tanh":
		return s.op("math.tanh", x), true
	case "relu":
		return s.max(x, s.c(0), false), true
	case "leakyrelu":
		return s.sel(s.cmp("gt", x, s.c(0), false), x, s.mul(x, s.c(alpha))), true
	case "thresholdedrelu":
		return s.sel(s.cmp("gt", x, s.c(alpha), false), x, s.c(0)), true
	case "scaledtanh":
		return s.mul(s.c(alpha), s.op("math.tanh", s.mul(x, s.c(beta)))), true
	case "hardsigmoid":
		return s.min(s.max(s.add(s.mul(x, s.c(alpha)), s.c(beta)), s.c(0), false), s.c(1), false), true
	case "elu":
		return s.sel(s.cmp("gt", x, s.c(0), false), x, s.mul(s.c(alpha), s.op("math.expm1", x))), true
	case "softsign":
		return s.op("arith.divf", x, s.add(s.c(1), s.op("math.absf", x))), true
	case "softplus":
		return s.op("math.log1p", s.op("math.exp", x)), true
	case "affine":
		return s.add(s.mul(x, s.c(alpha)), s.c(beta)), true
	}
	return nil, false
}

// rnnActDefaults are the activation alpha/beta ONNX uses when the
// attributes leave them out.
var rnnActDefaults = map[string][2]float64{
	"leakyrelu": {0.01, 0}, "thresholdedrelu": {1, 0}, "scaledtanh": {1, 1}, "hardsigmoid": {0.2, 0.5},
	"elu": {1, 0}, "affine": {1, 0},
}

func onnxRNN(o *onnxOp) ([]*ir.Value, error) {
	// Any output may be left out (!torch.none); the others and the inputs
	// need static shapes.
	for _, v := range o.ins {
		if v != nil && (tt(v) == nil || !ir.HasStaticShape(tt(v))) {
			return nil, o.errorf("with dynamic input shapes is not supported by gree yet")
		}
	}
	for _, t := range o.rts {
		if t != nil && !ir.HasStaticShape(t) {
			return nil, o.errorf("with dynamic result shapes is not supported by gree yet")
		}
	}
	x, w, r, bias, seqLens, h0 := o.in(0), o.in(1), o.in(2), o.in(3), o.in(4), o.in(5)
	var c0, peep *ir.Value
	if o.kind == "LSTM" {
		c0, peep = o.in(6), o.in(7)
	}
	gates := map[string]int64{"RNN": 1, "GRU": 3, "LSTM": 4}[o.kind]
	xt, wt := tt(x), tt(w)
	elem := xt.Elem
	layout := o.attrInt("layout", 0)
	var S, B, I int64
	if layout == 0 {
		S, B, I = xt.Dims[0], xt.Dims[1], xt.Dims[2]
	} else {
		B, S, I = xt.Dims[0], xt.Dims[1], xt.Dims[2]
	}
	D := wt.Dims[0]
	Hs := wt.Dims[1] / gates
	if hs := o.attrInt("hidden_size", Hs); hs != Hs {
		return nil, o.errorf("has hidden_size %d but weights for %d", hs, Hs)
	}
	direction := o.attrStr("direction", "forward")
	if (direction == "bidirectional") != (D == 2) {
		return nil, o.errorf("direction '%s' does not match %d weight directions", direction, D)
	}
	// Activations: per direction, in ONNX's order (f, g, h).
	var acts []string
	if a, ok := o.attr("activations").(*ir.ArrayAttr); ok {
		for _, e := range a.Elems {
			if s, ok := e.(*ir.StringAttr); ok {
				acts = append(acts, s.Value)
			}
		}
	}
	nAct := map[string]int{"RNN": 1, "GRU": 2, "LSTM": 3}[o.kind]
	if len(acts) == 0 {
		acts = map[string][]string{"RNN": {"Tanh"}, "GRU": {"Sigmoid", "Tanh"}, "LSTM": {"Sigmoid", "Tanh", "Tanh"}}[o.kind]
	}
	if len(acts) == nAct && D == 2 {
		acts = append(acts, acts...)
	}
	if len(acts) != nAct*int(D) {
		return nil, o.errorf("needs %d activations, has %d", nAct*int(D), len(acts))
	}
	alphas, _ := o.attrFloats("activation_alpha")
	betas, _ := o.attrFloats("activation_beta")
	type act struct {
		name        string
		alpha, beta float64
	}
	var actList []act
	for i, a := range acts {
		d := rnnActDefaults[strings.ToLower(a)]
		al, be := d[0], d[1]
		if i < len(alphas) {
			al = alphas[i]
		}
		if i < len(betas) {
			be = betas[i]
		}
		switch strings.ToLower(a) {
		case "sigmoid", "tanh", "relu", "leakyrelu", "thresholdedrelu", "scaledtanh", "hardsigmoid", "elu", "softsign", "softplus", "affine":
		default:
			return nil, o.errorf("activation '%s' is not supported by gree", a)
		}
		actList = append(actList, act{a, al, be})
	}
	clip := o.attrFloat("clip", 0)
	lbr := o.attrInt("linear_before_reset", 0) != 0
	inputForget := o.attrInt("input_forget", 0) != 0
	G := gates * Hs
	// Time-major input [S, B, I].
	xs := x
	if layout != 0 {
		xs = copyGeneric(o.b, x, &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(1), dimExpr(0), dimExpr(2)}}, ir.Tensor([]int64{S, B, I}, elem))
	}
	zero := func(b *ir.Builder, t *ir.RankedTensorType) *ir.Value { return filled(b, t, 0) }
	bhT := ir.Tensor([]int64{B, Hs}, elem)
	// Y [S, D, B, H], filled step by step (the steps run as a host loop:
	// one set of kernels whatever the sequence length).
	yT := ir.Tensor([]int64{S, D, B, Hs}, elem)
	y := zero(o.b, yT)
	var hLast, cLast []*ir.Value
	for d := int64(0); d < D; d++ {
		// XW[s, b, g] = Σ_i X[s, b, i] W[d, g, i] + Wb[d, g] + Rb[d, g]
		// (GRU keeps the recurrent bias of the h gate apart when
		// linear_before_reset).
		xwT := ir.Tensor([]int64{S, B, G}, elem)
		xw := linalg.BuildGeneric(o.b, []*ir.Value{xs, w}, []*ir.Value{zero(o.b, xwT)}, []*ir.AffineMap{
			{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(3)}},
			{NumDims: 4, Results: []ir.AffineExpr{cstExpr(d), dimExpr(2), dimExpr(3)}},
			{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2)}}},
			[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}, core.MulAdd).Result(0)
		if bias != nil {
			// The biases as one vector (folded when they are constants),
			// added to the product by an element-wise consumer: the
			// product's epilogue (a bias along its columns), where an
			// initial value of the biases broadcast to [S, B, G] was a
			// dispatch of its own and a copy into every tile.
			bv := rnnBias(o.b, bias, d, G, Hs, o.kind == "GRU" && lbr)
			xw = linalg.BuildGeneric(o.b, []*ir.Value{xw, bv}, []*ir.Value{empty(o.b, xwT)}, []*ir.AffineMap{
				linalg.Identity(3), {NumDims: 3, Results: []ir.AffineExpr{dimExpr(2)}}, linalg.Identity(3)}, core.Parallel(3), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
				return []*ir.Value{sc{bb, elem}.add(a[0], a[1])}
			}).Result(0)
		}
		// Initial states.
		state := func(v *ir.Value) *ir.Value {
			if v == nil {
				return zero(o.b, bhT)
			}
			m := &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{cstExpr(d), dimExpr(0), dimExpr(1)}}
			if layout != 0 { // [B, D, H]
				m.Results = []ir.AffineExpr{dimExpr(0), cstExpr(d), dimExpr(1)}
			}
			return copyGeneric(o.b, v, m, bhT)
		}
		// Rt[j, g] = R[d, g, j], outside the steps (folded into a
		// constant when R is one): each step's product then reads the
		// weight along its rows (the matrix-vector kernel that streams
		// rows of B, or packed panels of a constant; the same sums in the
		// same order).
		rt := copyGeneric(o.b, r, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{cstExpr(d), dimExpr(1), dimExpr(0)}}, ir.Tensor([]int64{Hs, G}, elem))
		// GRU without linear_before_reset multiplies r ⊙ H by the h gate's
		// columns of Rt alone: Rth[j, i] = R[d, 2Hs + i, j].
		var rth *ir.Value
		if o.kind == "GRU" && !lbr {
			rth = copyGeneric(o.b, r, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{cstExpr(d), addExpr(dimExpr(1), cstExpr(2*Hs)), dimExpr(0)}}, ir.Tensor([]int64{Hs, Hs}, elem))
		}
		reverse := direction == "reverse" || d == 1
		a := actList[int(d)*nAct : int(d+1)*nAct]
		inits := []*ir.Value{state(h0), y}
		if o.kind == "LSTM" {
			inits = append(inits, state(c0))
		}
		res := core.ForLoop(o.b, S, inits, func(b *ir.Builder, k *ir.Value, cur []*ir.Value) []*ir.Value {
			h, y := cur[0], cur[1]
			var c *ir.Value
			if o.kind == "LSTM" {
				c = cur[2]
			}
			t := k
			if reverse {
				t = core.BinOp(b, "arith.subi", cIdx(b, S-1), k)
			}
			// hr[b, g] = Σ_j H[b, j] R[d, g, j] over every gate, from
			// zero (a product the matrix-vector kernel runs alone; with a
			// constant R, on panels packed at compile time).
			hr := linalg.BuildGeneric(b, []*ir.Value{h, rt}, []*ir.Value{zero(b, ir.Tensor([]int64{B, G}, elem))}, []*ir.AffineMap{
				{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2)}},
				{NumDims: 3, Results: []ir.AffineExpr{dimExpr(2), dimExpr(1)}},
				{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}},
				[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}, core.MulAdd).Result(0)
			// xa(s, g, v): gate g's recurrent term v plus its input term
			// xw[t, b, g·Hs + j], which the cell's kernel reads at the
			// run-time step (one vector load per gate: its indices move
			// with j).
			xa := func(s sc, g int64, v *ir.Value) *ir.Value {
				j := core.LoopIndex(s.b, 1)
				if g > 0 {
					j = core.BinOp(s.b, "arith.addi", j, cIdx(s.b, g*Hs))
				}
				return s.add(extractAt(s.b, xw, []*ir.Value{t, core.LoopIndex(s.b, 0), j}), v)
			}
			hrm := func(g int64) *ir.AffineMap {
				return &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{dimExpr(0), addExpr(dimExpr(1), cstExpr(g*Hs))}}
			}
			id := linalg.Identity(2)
			clipf := func(s sc, v *ir.Value) *ir.Value {
				if clip > 0 {
					return s.min(s.max(v, s.c(-clip), false), s.c(clip), false)
				}
				return v
			}
			f := func(s sc, i int, v *ir.Value) *ir.Value {
				y, _ := rnnAct(s, a[i].name, a[i].alpha, a[i].beta, v)
				return y
			}
			// live[b]: the step is inside sequence b (sequence_lens).
			live := func(bb *ir.Builder) *ir.Value {
				if seqLens == nil {
					return nil
				}
				n := bb.Create("arith.index_cast", []*ir.Value{extractAt(bb, seqLens, []*ir.Value{core.LoopIndex(bb, 0)})}, []ir.Type{ir.Index}).Result(0)
				return core.CmpI(bb, core.PredSLT, t, n)
			}
			var hNew, cNew *ir.Value
			switch o.kind {
			case "RNN":
				hNew = mapGenericMaps(b, []*ir.Value{hr, h}, []*ir.AffineMap{hrm(0), id}, bhT, func(s sc, v []*ir.Value) *ir.Value {
					y := f(s, 0, clipf(s, xa(s, 0, v[0])))
					if l := live(s.b); l != nil {
						y = s.sel(l, y, v[1])
					}
					return y
				})
			case "GRU":
				// z (gate 0), r (gate 1), h (gate 2)
				rg := mapGenericMaps(b, []*ir.Value{hr}, []*ir.AffineMap{hrm(1)}, bhT, func(s sc, v []*ir.Value) *ir.Value {
					return f(s, 0, clipf(s, xa(s, 1, v[0])))
				})
				var hh *ir.Value // the h gate's recurrent term
				if lbr {
					var rbh *ir.Value
					maps := []*ir.AffineMap{hrm(2), id}
					ins := []*ir.Value{hr, rg}
					if bias != nil {
						rbh = bias
						ins = append(ins, rbh)
						maps = append(maps, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{cstExpr(d), addExpr(dimExpr(1), cstExpr(G+2*Hs))}})
					}
					hh = mapGenericMaps(b, ins, maps, bhT, func(s sc, v []*ir.Value) *ir.Value {
						t := v[0]
						if rbh != nil {
							t = s.add(t, v[2])
						}
						return s.mul(v[1], t)
					})
				} else {
					rh := mapGenericMaps(b, []*ir.Value{rg, h}, []*ir.AffineMap{id, id}, bhT, func(s sc, v []*ir.Value) *ir.Value { return s.mul(v[0], v[1]) })
					hh = linalg.BuildGeneric(b, []*ir.Value{rh, rth}, []*ir.Value{zero(b, bhT)}, []*ir.AffineMap{
						{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2)}},
						{NumDims: 3, Results: []ir.AffineExpr{dimExpr(2), dimExpr(1)}},
						{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}},
						[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}, core.MulAdd).Result(0)
				}
				hNew = mapGenericMaps(b, []*ir.Value{hr, hh, h}, []*ir.AffineMap{hrm(0), id, id}, bhT, func(s sc, v []*ir.Value) *ir.Value {
					z := f(s, 0, clipf(s, xa(s, 0, v[0])))
					ht := f(s, 1, clipf(s, xa(s, 2, v[1])))
					y := s.add(s.mul(s.sub(s.c(1), z), ht), s.mul(z, v[2]))
					if l := live(s.b); l != nil {
						y = s.sel(l, y, v[2])
					}
					return y
				})
			case "LSTM":
				// gates i (0), o (1), f (2), c (3); peepholes P[d] = [Pi, Po, Pf]
				pm := func(g int64) *ir.AffineMap {
					return &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{cstExpr(d), addExpr(dimExpr(1), cstExpr(g*Hs))}}
				}
				peepIn := func(ins []*ir.Value, maps []*ir.AffineMap, g int64) ([]*ir.Value, []*ir.AffineMap) {
					if peep == nil {
						return ins, maps
					}
					return append(ins, peep), append(maps, pm(g))
				}
				ins := []*ir.Value{hr, hr, hr, c}
				maps := []*ir.AffineMap{hrm(0), hrm(2), hrm(3), id}
				ins, maps = peepIn(ins, maps, 0)
				ins, maps = peepIn(ins, maps, 2)
				cNew = mapGenericMaps(b, ins, maps, bhT, func(s sc, v []*ir.Value) *ir.Value {
					ci := xa(s, 0, v[0])
					cf := xa(s, 2, v[1])
					if peep != nil {
						ci = s.add(ci, s.mul(v[4], v[3]))
						cf = s.add(cf, s.mul(v[5], v[3]))
					}
					ig := f(s, 0, clipf(s, ci))
					var fg *ir.Value
					if inputForget {
						fg = s.sub(s.c(1), ig)
					} else {
						fg = f(s, 0, clipf(s, cf))
					}
					cc := f(s, 1, clipf(s, xa(s, 3, v[2])))
					y := s.add(s.mul(fg, v[3]), s.mul(ig, cc))
					if l := live(s.b); l != nil {
						y = s.sel(l, y, v[3])
					}
					return y
				})
				ins = []*ir.Value{hr, cNew, h}
				maps = []*ir.AffineMap{hrm(1), id, id}
				ins, maps = peepIn(ins, maps, 1)
				hNew = mapGenericMaps(b, ins, maps, bhT, func(s sc, v []*ir.Value) *ir.Value {
					co := xa(s, 1, v[0])
					if peep != nil {
						co = s.add(co, s.mul(v[3], v[1]))
					}
					og := f(s, 0, clipf(s, co))
					y := s.mul(og, f(s, 2, v[1]))
					if l := live(s.b); l != nil {
						y = s.sel(l, y, v[2])
					}
					return y
				})
			}
			// The output of a finished sequence is zero.
			out := hNew
			if seqLens != nil {
				out = linalg.BuildGeneric(b, []*ir.Value{hNew}, []*ir.Value{empty(b, bhT)}, []*ir.AffineMap{id, id}, core.Parallel(2), func(bb *ir.Builder, v []*ir.Value) []*ir.Value {
					return []*ir.Value{sc{bb, elem}.sel(live(bb), v[0], scalarConst(bb, 0, elem))}
				}).Result(0)
			}
			y = core.InsertSlice(b, reshape(b, out, ir.Tensor([]int64{1, 1, B, Hs}, elem)), y, []core.Mixed{{Dyn: t}, {Static: d}, {}, {}})
			next := []*ir.Value{hNew, y}
			if o.kind == "LSTM" {
				next = append(next, cNew)
			}
			return next
		})
		hLast = append(hLast, res[0])
		y = res[1]
		if o.kind == "LSTM" {
			cLast = append(cLast, res[2])
		}
	}
	// Y [S, D, B, H] (layout 0) or [B, S, D, H]; Y_h, Y_c [D, B, H] or [B, D, H].
	stack := func(vs []*ir.Value) *ir.Value {
		var ps []*ir.Value
		for _, v := range vs {
			ps = append(ps, reshape(o.b, v, ir.Tensor([]int64{1, B, Hs}, elem)))
		}
		if len(ps) == 1 {
			return ps[0]
		}
		return concatAlong(o.b, ps, 0, ir.Tensor([]int64{D, B, Hs}, elem))
	}
	yh := stack(hLast)
	var yc *ir.Value
	if o.kind == "LSTM" {
		yc = stack(cLast)
	}
	if layout != 0 {
		// out[b, s, d, h] = y[s, d, b, h]
		y = copyGeneric(o.b, y, &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(1), dimExpr(2), dimExpr(0), dimExpr(3)}}, ir.Tensor([]int64{B, S, D, Hs}, elem))
		bt := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(1), dimExpr(0), dimExpr(2)}}
		yh = copyGeneric(o.b, yh, bt, ir.Tensor([]int64{B, D, Hs}, elem))
		if yc != nil {
			yc = copyGeneric(o.b, yc, bt, ir.Tensor([]int64{B, D, Hs}, elem))
		}
	}
	out := make([]*ir.Value, len(o.rts))
	for i, v := range []*ir.Value{y, yh, yc} {
		if i < len(o.rts) && o.rts[i] != nil && v != nil {
			out[i] = reshape(o.b, v, o.rts[i])
		}
	}
	return out, nil
}

// rnnBias is direction d's input and recurrent biases Wb + Rb as one
// [G] vector; with hApart (a GRU with linear_before_reset) the h gate's
// is Wb alone, its Rb added inside r ⊙ (H·Rhᵀ + Rbh). An f32 constant
// bias folds into a constant (the same f32 sums), so that the product's
// epilogue adds one vector.
func rnnBias(b *ir.Builder, bias *ir.Value, d, G, Hs int64, hApart bool) *ir.Value {
	bt := tt(bias)
	if vals := constF32(bias); vals != nil && bt.Elem.String() == "f32" && int64(len(vals)) >= (d+1)*2*G {
		data := make([]byte, 4*G)
		for g := int64(0); g < G; g++ {
			v := vals[d*2*G+g]
			if !hApart || g < 2*Hs {
				v += vals[d*2*G+G+g]
			}
			binary.LittleEndian.PutUint32(data[4*g:], math.Float32bits(v))
		}
		return blobConst(b, ir.Tensor([]int64{G}, ir.F32), "__gree_rnn_bias", data)
	}
	vT := ir.Tensor([]int64{G}, bt.Elem)
	return linalg.BuildGeneric(b, []*ir.Value{bias, bias}, []*ir.Value{empty(b, vT)}, []*ir.AffineMap{
		{NumDims: 1, Results: []ir.AffineExpr{cstExpr(d), dimExpr(0)}},
		{NumDims: 1, Results: []ir.AffineExpr{cstExpr(d), addExpr(dimExpr(0), cstExpr(G))}},
		linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := sc{bb, bt.Elem}
		if hApart {
			isH := core.CmpI(bb, core.PredSGE, core.LoopIndex(bb, 0), cIdx(bb, 2*Hs))
			return []*ir.Value{s.sel(isH, a[0], s.add(a[0], a[1]))}
		}
		return []*ir.Value{s.add(a[0], a[1])}
	}).Result(0)
}
