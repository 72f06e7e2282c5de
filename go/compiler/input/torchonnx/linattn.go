package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX LinearAttention (update rules linear, gated, delta, gated_delta),
// unrolled over the static sequence length as ONNX's reference runs it:
// per step the [B, Hkv, dk, dv] state decays (gated), is corrected by the
// retrieved value (delta), gains kᵀv, and is read by the (grouped) query
// heads. The state is kept in f32.

func init() {
	onnxReg(onnxLinearAttention, "LinearAttention")
}

func onnxLinearAttention(o *onnxOp) ([]*ir.Value, error) {
	for _, v := range o.ins {
		if v != nil && (tt(v) == nil || !ir.HasStaticShape(tt(v))) {
			return nil, o.errorf("with dynamic input shapes is not supported by gree yet")
		}
	}
	q, k, v, past, decay, beta := o.in(0), o.in(1), o.in(2), o.in(3), o.in(4), o.in(5)
	rule := o.attrStr("update_rule", "gated_delta")
	gating, delta := rule == "gated" || rule == "gated_delta", rule == "delta" || rule == "gated_delta"
	if rule != "linear" && !gating && !delta {
		return nil, o.errorf("update_rule '%s' is not supported by gree", rule)
	}
	if gating != (decay != nil) || delta != (beta != nil) {
		return nil, o.errorf("update_rule '%s' does not match its decay/beta inputs", rule)
	}
	hq, hkv := o.attrInt("q_num_heads", 0), o.attrInt("kv_num_heads", 0)
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 {
		return nil, o.errorf("needs q_num_heads a positive multiple of kv_num_heads")
	}
	qt, vt := tt(q), tt(v)
	if len(qt.Dims) != 3 {
		return nil, o.errorf("needs 3-D query, key and value")
	}
	B, T := qt.Dims[0], qt.Dims[1]
	dk, dv := qt.Dims[2]/hq, vt.Dims[2]/hkv
	g := hq / hkv
	scale := o.attrFloat("scale", 0)
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(dk))
	}
	f32 := ir.Type(ir.F32)
	stT := ir.Tensor([]int64{B, hkv, dk, dv}, ir.F32)
	var state *ir.Value
	if past != nil {
		state = mapGeneric(o.b, []*ir.Value{past}, stT, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return castScalar(bb, a[0], f32, false, false)
		})
	} else {
		state = filled(o.b, stT, 0)
	}
	id4 := linalg.Identity(4)
	// per-step maps over (b, h, d, m) loops
	keyAt := func(t int64) *ir.AffineMap { // key[b, t, h*dk + d]
		return &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t), addExpr(mulExpr(dimExpr(1), dk), dimExpr(2))}}
	}
	var outs []*ir.Value
	for t := int64(0); t < T; t++ {
		if gating {
			dm := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t), dimExpr(1)}}
			if tt(decay).Dims[2] == hkv*dk {
				dm = keyAt(t)
			}
			state = mapGenericMaps(o.b, []*ir.Value{state, decay}, []*ir.AffineMap{id4, dm}, stT, func(s sc, a []*ir.Value) *ir.Value {
				return s.mul(a[0], s.op("math.exp", castScalar(s.b, a[1], f32, false, false)))
			})
		}
		// newV[b, h, m]: the value to add (delta-corrected)
		vT := ir.Tensor([]int64{B, hkv, dv}, ir.F32)
		var newV *ir.Value
		v3 := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t), addExpr(mulExpr(dimExpr(1), dv), dimExpr(2))}}
		if delta {
			// retrieved[b, h, m] = Σ_d state[b, h, d, m] key[b, t, h*dk + d]; loops b, h, m, d
			rm := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(3), dimExpr(2)}}
			km := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t), addExpr(mulExpr(dimExpr(1), dk), dimExpr(3))}}
			om := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2)}}
			ret := linalg.BuildGeneric(o.b, []*ir.Value{state, k}, []*ir.Value{filled(o.b, vT, 0)}, []*ir.AffineMap{rm, km, om},
				[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}, core.MulAdd).Result(0)
			bm := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t), dimExpr(1)}}
			if tt(beta).Dims[2] == 1 {
				bm.Results[2] = cstExpr(0)
			}
			newV = mapGenericMaps(o.b, []*ir.Value{v, ret, beta}, []*ir.AffineMap{v3, linalg.Identity(3), bm}, vT, func(s sc, a []*ir.Value) *ir.Value {
				vv := castScalar(s.b, a[0], f32, false, false)
				return s.mul(castScalar(s.b, a[2], f32, false, false), s.sub(vv, a[1]))
			})
		} else {
			newV = mapGenericMaps(o.b, []*ir.Value{v}, []*ir.AffineMap{v3}, vT, func(s sc, a []*ir.Value) *ir.Value {
				return castScalar(s.b, a[0], f32, false, false)
			})
		}
		nvm := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(3)}}
		state = mapGenericMaps(o.b, []*ir.Value{state, k, newV}, []*ir.AffineMap{id4, keyAt(t), nvm}, stT, func(s sc, a []*ir.Value) *ir.Value {
			return s.add(a[0], s.mul(castScalar(s.b, a[1], f32, false, false), a[2]))
		})
		// out[b, h, j, m] = scale Σ_d q[b, t, (h*g + j)*dk + d] state[b, h, d, m]; loops b, h, j, m, d
		oT := ir.Tensor([]int64{B, hkv, g, dv}, ir.F32)
		qm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), cstExpr(t),
			addExpr(mulExpr(addExpr(mulExpr(dimExpr(1), g), dimExpr(2)), dk), dimExpr(4))}}
		sm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(4), dimExpr(3)}}
		om := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2), dimExpr(3)}}
		read := linalg.BuildGeneric(o.b, []*ir.Value{q, state}, []*ir.Value{filled(o.b, oT, 0)}, []*ir.AffineMap{qm, sm, om},
			[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}, core.MulAdd).Result(0)
		step := mapGeneric(o.b, []*ir.Value{read}, ir.Tensor(oT.Dims, qt.Elem), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, f32}
			return castScalar(bb, s.mul(a[0], s.c(scale)), qt.Elem, false, false)
		})
		outs = append(outs, reshape(o.b, step, ir.Tensor([]int64{B, 1, hq * dv}, qt.Elem)))
	}
	y := outs[0]
	if T > 1 {
		y = concatAlong(o.b, outs, 1, ir.Tensor([]int64{B, T, hq * dv}, qt.Elem))
	}
	res := make([]*ir.Value, len(o.rts))
	if o.rts[0] != nil {
		res[0] = reshape(o.b, y, o.rts[0])
	}
	if len(o.rts) > 1 && o.rts[1] != nil {
		st := o.rts[1]
		res[1] = reshape(o.b, mapGeneric(o.b, []*ir.Value{state}, ir.Tensor(stT.Dims, st.Elem), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return castScalar(bb, a[0], st.Elem, false, false)
		}), st)
	}
	return res, nil
}
