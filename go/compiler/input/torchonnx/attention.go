package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Attention (opset 23/24): scaled dot-product attention with an
// optional mask (boolean or additive, padded with "masked" up to the total
// sequence), causal masking after the past sequence, softcap, grouped
// query heads, past key/value concatenation and the optional intermediate
// output, following the ONNX reference implementation's order of steps.

func init() {
	onnxReg(onnxAttention, "Attention")
}

// to4D turns [B, S, heads*H] into [B, heads, S, H]; 4-D inputs pass.
func to4D(b *ir.Builder, v *ir.Value, heads int64) *ir.Value {
	t := tt(v)
	if len(t.Dims) == 4 {
		return v
	}
	B, S, HH := t.Dims[0], t.Dims[1], t.Dims[2]
	r := reshape(b, v, ir.Tensor([]int64{B, S, heads, HH / heads}, t.Elem))
	m := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2), dimExpr(1), dimExpr(3)}}
	return copyGeneric(b, r, m, ir.Tensor([]int64{B, heads, S, HH / heads}, t.Elem))
}

// repeatHeads repeats each of the kv heads of v [B, kh, S, H] g times.
func repeatHeads(b *ir.Builder, v *ir.Value, g int64) *ir.Value {
	if g == 1 {
		return v
	}
	t := tt(v)
	rt := ir.Tensor([]int64{t.Dims[0], t.Dims[1] * g, t.Dims[2], t.Dims[3]}, t.Elem)
	return linalg.BuildGeneric(b, nil, []*ir.Value{empty(b, rt)}, []*ir.AffineMap{linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		h := core.BinOp(bb, "arith.divui", core.LoopIndex(bb, 1), cIdx(bb, g))
		return []*ir.Value{extractAt(bb, v, []*ir.Value{core.LoopIndex(bb, 0), h, core.LoopIndex(bb, 2), core.LoopIndex(bb, 3)})}
	}).Result(0)
}

// qkScores is s[b,h,i,j] = sum_d q[b,h,i,d] k[b,h,j,d] for q [B,H,Sq,D]
// and k [B,H,T,D], accumulated in elem.
func qkScores(b *ir.Builder, q, k *ir.Value, elem ir.Type) *ir.Value {
	Q, K := tt(q), tt(k)
	st := ir.Tensor([]int64{Q.Dims[0], Q.Dims[1], Q.Dims[2], K.Dims[2]}, elem)
	qm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(4)}}
	km := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(3), dimExpr(4)}}
	return linalg.BuildGeneric(b, []*ir.Value{q, k}, []*ir.Value{filled(b, st, 0)}, []*ir.AffineMap{qm, km, attnOut()}, attnIters(), core.MulAdd).Result(0)
}

// probsTimesV is y[b,h,i,e] = sum_j p[b,h,i,j] v[b,h,j,e], in p's element
// type.
func probsTimesV(b *ir.Builder, p, v *ir.Value) *ir.Value {
	P, V := tt(p), tt(v)
	yt := ir.Tensor([]int64{P.Dims[0], P.Dims[1], P.Dims[2], V.Dims[3]}, P.Elem)
	pm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(4)}}
	vm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(4), dimExpr(3)}}
	return linalg.BuildGeneric(b, []*ir.Value{p, v}, []*ir.Value{filled(b, yt, 0)}, []*ir.AffineMap{pm, vm, attnOut()}, attnIters(), core.MulAdd).Result(0)
}

// The result map and iterators of the two attention contractions (four
// parallel dimensions, the contracted one last).
func attnOut() *ir.AffineMap {
	return &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(3)}}
}

func attnIters() []linalg.Iterator {
	return []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}
}

func onnxAttention(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	q, k, v := o.in(0), o.in(1), o.in(2)
	mask, pastK, pastV, nonpad := o.in(3), o.in(4), o.in(5), o.in(6)
	qt := tt(q)
	three := len(qt.Dims) == 3
	qh, kh := o.attrInt("q_num_heads", 0), o.attrInt("kv_num_heads", 0)
	if three && (qh <= 0 || kh <= 0) {
		return nil, o.errorf("with 3-D inputs needs q_num_heads and kv_num_heads")
	}
	q4, k4, v4 := to4D(o.b, q, qh), to4D(o.b, k, kh), to4D(o.b, v, kh)
	if pastK != nil {
		t := tt(k4)
		pt := tt(pastK)
		k4 = concatAlong(o.b, []*ir.Value{pastK, k4}, 2, ir.Tensor([]int64{t.Dims[0], t.Dims[1], t.Dims[2] + pt.Dims[2], t.Dims[3]}, t.Elem))
	}
	if pastV != nil {
		t := tt(v4)
		pt := tt(pastV)
		v4 = concatAlong(o.b, []*ir.Value{pastV, v4}, 2, ir.Tensor([]int64{t.Dims[0], t.Dims[1], t.Dims[2] + pt.Dims[2], t.Dims[3]}, t.Elem))
	}
	presentK, presentV := k4, v4
	Q, K, V := tt(q4), tt(k4), tt(v4)
	B, H, Sq, D := Q.Dims[0], Q.Dims[1], Q.Dims[2], Q.Dims[3]
	T, Dv := K.Dims[2], V.Dims[3]
	if K.Dims[1] == 0 || H%K.Dims[1] != 0 {
		return nil, o.errorf("has %d query heads that %d kv heads do not divide", H, K.Dims[1])
	}
	g := H / K.Dims[1]
	kx, vx := repeatHeads(o.b, k4, g), repeatHeads(o.b, v4, g)
	elem := Q.Elem
	scale := o.attrFloat("scale", 1/math.Sqrt(float64(D)))
	softcap := o.attrFloat("softcap", 0)
	causal := o.attrInt("is_causal", 0) != 0
	past := int64(0)
	if pastK != nil {
		past = tt(pastK).Dims[2]
	}
	mode := o.attrInt("qk_matmul_output_mode", 0)
	// scores[b,h,i,j] = sum_d q[b,h,i,d] k[b,h,j,d], scaled and softcapped.
	st := ir.Tensor([]int64{B, H, Sq, T}, elem)
	raw := qkScores(o.b, q4, kx, elem)
	scores := mapGeneric(o.b, []*ir.Value{raw}, st, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, elem}
		x := s.mul(a[0], s.c(scale))
		if softcap > 0 {
			x = s.mul(s.c(softcap), s.op("math.tanh", s.op("arith.divf", x, s.c(softcap))))
		}
		return x
	})
	// The bias: mask (padded with "masked" past its length), causal
	// triangle after the past, padding beyond nonpad_kv_seqlen.
	bias := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, st)}, []*ir.AffineMap{linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		ninf := s.c(math.Inf(-1))
		x := s.c(0)
		i, j := core.LoopIndex(bb, 2), core.LoopIndex(bb, 3)
		if mask != nil {
			mt := tt(mask)
			r := len(mt.Dims)
			var ix []*ir.Value
			full := []int64{B, H, Sq, T}
			for d := 0; d < r; d++ {
				fd := 4 - r + d
				if mt.Dims[d] == 1 && full[fd] != 1 {
					ix = append(ix, cIdx(bb, 0))
				} else if fd == 3 {
					ix = append(ix, bb.Create("arith.minsi", []*ir.Value{j, cIdx(bb, mt.Dims[d]-1)}, []ir.Type{ir.Index}).Result(0))
				} else {
					ix = append(ix, core.LoopIndex(bb, fd))
				}
			}
			m := extractAt(bb, mask, ix)
			inMask := core.CmpI(bb, core.PredSLT, j, cIdx(bb, mt.Dims[r-1]))
			if mt.Dims[r-1] == 1 && T != 1 {
				inMask = bb.Constant(ir.IntAttr(1, ir.I1))
			}
			var add *ir.Value
			if core.IsBool(mt.Elem) {
				add = s.sel(core.BinOp(bb, "arith.andi", m, inMask), s.c(0), ninf)
			} else {
				add = s.sel(inMask, castScalar(bb, m, elem, false, false), ninf)
			}
			x = s.add(x, add)
		}
		if causal {
			// masked where j - past > i
			over := core.CmpI(bb, 4, core.BinOp(bb, "arith.subi", j, cIdx(bb, past)), i) // sgt
			x = s.sel(over, ninf, x)
		}
		if nonpad != nil {
			n := extractIndex(bb, nonpad, 0)
			if len(tt(nonpad).Dims) == 1 && tt(nonpad).Dims[0] > 1 {
				n = bb.Create("arith.index_cast", []*ir.Value{extractAt(bb, nonpad, []*ir.Value{core.LoopIndex(bb, 0)})}, []ir.Type{ir.Index}).Result(0)
			}
			x = s.sel(core.CmpI(bb, core.PredSLT, j, n), x, ninf)
		}
		return []*ir.Value{x}
	}).Result(0)
	// The barrier keeps the bias out of the scores contraction's fused
	// epilogue (which cannot read linalg.index).
	bias = o.b.Create("util.optimization_barrier", []*ir.Value{bias}, []ir.Type{st}).Result(0)
	biased := mapGeneric(o.b, []*ir.Value{scores, bias}, st, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		return sc{bb, elem}.add(a[0], a[1])
	})
	probs := softmaxLike(o.b, biased, map[int]bool{3: true}, false)
	// y[b,h,i,e] = sum_j p[b,h,i,j] v[b,h,j,e]
	y := probsTimesV(o.b, probs, vx)
	if three {
		m := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2), dimExpr(1), dimExpr(3)}}
		y = copyGeneric(o.b, y, m, ir.Tensor([]int64{B, Sq, H, Dv}, elem))
	}
	out := make([]*ir.Value, len(o.rts))
	out[0] = reshape(o.b, y, o.rts[0])
	qk := scores
	switch mode {
	case 2:
		qk = biased
	case 3:
		qk = probs
	}
	for i, extra := range []*ir.Value{presentK, presentV, qk} {
		if len(o.rts) > i+1 && o.rts[i+1] != nil {
			out[i+1] = reshape(o.b, extra, o.rts[i+1])
		}
	}
	return out, nil
}
