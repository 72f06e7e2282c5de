package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX NonMaxSuppression, under the same promise as NonZero: the model
// declares the number of selected boxes K statically ([K, 3] result).
// Each (batch, class) runs the greedy selection unrolled over its N boxes
// (N static, at most maxNMSBoxes): boxes in descending score order (the
// lower index first on ties), each kept when its score passes
// score_threshold and no kept box overlaps it with IoU > iou_threshold,
// up to max_output_boxes_per_class. The kept boxes of all (batch, class)
// pairs, in that order, give the first K rows; missing rows are -1.

func init() {
	onnxReg(onnxNMS, "NonMaxSuppression")
}

const maxNMSBoxes = 32

func onnxNMS(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, o.errorf("with a result length the model does not declare is not supported by gree (static shapes only)")
	}
	boxes, scores, rt := o.in(0), o.in(1), o.rts[0]
	bt, st := tt(boxes), tt(scores)
	if len(bt.Dims) != 3 || bt.Dims[2] != 4 || len(st.Dims) != 3 || st.Dims[0] != bt.Dims[0] || st.Dims[2] != bt.Dims[1] {
		return nil, o.errorf("needs boxes [B, N, 4] and scores [B, C, N]")
	}
	if len(rt.Dims) != 2 || rt.Dims[1] != 3 || !ir.TypesEqual(rt.Elem, ir.I64) {
		return nil, o.errorf("needs an i64 result of shape [K, 3]")
	}
	if !ir.IsFloat(bt.Elem) || !ir.TypesEqual(bt.Elem, st.Elem) {
		return nil, o.errorf("needs float boxes and scores of one type")
	}
	B, C, N := bt.Dims[0], st.Dims[1], bt.Dims[1]
	if N > maxNMSBoxes {
		return nil, o.errorf("with %d boxes is not supported by gree (at most %d)", N, maxNMSBoxes)
	}
	center := o.attrInt("center_point_box", 0) != 0
	elem := bt.Elem
	// scalar reads a rank-0 or one-element optional input.
	scalar := func(bb *ir.Builder, v *ir.Value) *ir.Value {
		var ix []*ir.Value
		for range tt(v).Dims {
			ix = append(ix, cIdx(bb, 0))
		}
		return extractAt(bb, v, ix)
	}
	for i := 2; i < 5; i++ {
		if v := o.in(i); v != nil {
			n := int64(1)
			for _, d := range tt(v).Dims {
				n *= d
			}
			if n != 1 {
				return nil, o.errorf("needs one-element input %d", i)
			}
		}
	}
	selT := ir.Tensor([]int64{B, C, N}, ir.I64)
	sel := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, selT)}, []*ir.AffineMap{linalg.Identity(3)}, core.Parallel(3), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		i64 := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.I64)) }
		and := func(a, c *ir.Value) *ir.Value { return core.BinOp(bb, "arith.andi", a, c) }
		or := func(a, c *ir.Value) *ir.Value { return core.BinOp(bb, "arith.ori", a, c) }
		not := func(a *ir.Value) *ir.Value { return core.BinOp(bb, "arith.xori", a, bb.Constant(ir.IntAttr(1, ir.I1))) }
		selI := func(c, a, f *ir.Value) *ir.Value {
			return bb.Create("arith.select", []*ir.Value{c, a, f}, []ir.Type{a.Type}).Result(0)
		}
		b, c, t := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1), core.LoopIndex(bb, 2)
		maxOut, iouThr := i64(0), s.c(0)
		if v := o.in(2); v != nil {
			maxOut = castScalar(bb, scalar(bb, v), ir.I64, false, false)
		}
		if v := o.in(3); v != nil {
			iouThr = castScalar(bb, scalar(bb, v), elem, false, false)
		}
		// Per box: score, min/max corners.
		sc0 := make([]*ir.Value, N)
		x0, x1, y0, y1 := make([]*ir.Value, N), make([]*ir.Value, N), make([]*ir.Value, N), make([]*ir.Value, N)
		for i := int64(0); i < N; i++ {
			sc0[i] = extractAt(bb, scores, []*ir.Value{b, c, cIdx(bb, i)})
			v := make([]*ir.Value, 4)
			for k := range v {
				v[k] = extractAt(bb, boxes, []*ir.Value{b, cIdx(bb, i), cIdx(bb, int64(k))})
			}
			if center {
				hw, hh := s.div(v[2], s.c(2), false), s.div(v[3], s.c(2), false)
				x0[i], x1[i], y0[i], y1[i] = s.sub(v[0], hw), s.add(v[0], hw), s.sub(v[1], hh), s.add(v[1], hh)
			} else {
				x0[i], x1[i] = s.min(v[1], v[3], false), s.max(v[1], v[3], false)
				y0[i], y1[i] = s.min(v[0], v[2], false), s.max(v[0], v[2], false)
			}
		}
		// The box at sorted position r (descending score, lower index first).
		rank := make([]*ir.Value, N)
		for i := int64(0); i < N; i++ {
			rank[i] = i64(0)
			for j := int64(0); j < N; j++ {
				if j == i {
					continue
				}
				before := s.cmp("gt", sc0[j], sc0[i], false)
				if j < i {
					before = or(before, s.cmp("eq", sc0[j], sc0[i], false))
				}
				rank[i] = core.BinOp(bb, "arith.addi", rank[i], bb.Create("arith.extui", []*ir.Value{before}, []ir.Type{ir.I64}).Result(0))
			}
		}
		at := func(r int64, vals []*ir.Value) *ir.Value {
			v := vals[0]
			for i := int64(1); i < N; i++ {
				v = selI(core.CmpI(bb, core.PredEQ, rank[i], i64(r)), vals[i], v)
			}
			return v
		}
		ids := make([]*ir.Value, N)
		for i := range ids {
			ids[i] = i64(int64(i))
		}
		pid, ps := make([]*ir.Value, N), make([]*ir.Value, N)
		px0, px1, py0, py1 := make([]*ir.Value, N), make([]*ir.Value, N), make([]*ir.Value, N), make([]*ir.Value, N)
		for r := int64(0); r < N; r++ {
			pid[r], ps[r] = at(r, ids), at(r, sc0)
			px0[r], px1[r], py0[r], py1[r] = at(r, x0), at(r, x1), at(r, y0), at(r, y1)
		}
		// Greedy selection in sorted order.
		kept := make([]*ir.Value, N)
		count := i64(0)
		result := i64(-1)
		tI := bb.Create("arith.index_cast", []*ir.Value{t}, []ir.Type{ir.I64}).Result(0)
		for r := int64(0); r < N; r++ {
			ok := core.CmpI(bb, core.PredSLT, count, maxOut)
			if v := o.in(4); v != nil {
				thr := castScalar(bb, scalar(bb, v), elem, false, false)
				ok = and(ok, s.cmp("gt", ps[r], thr, false))
			}
			for q := int64(0); q < r; q++ {
				iw := s.sub(s.min(px1[r], px1[q], false), s.max(px0[r], px0[q], false))
				ih := s.sub(s.min(py1[r], py1[q], false), s.max(py0[r], py0[q], false))
				inter := s.mul(iw, ih)
				a1 := s.mul(s.sub(px1[r], px0[r]), s.sub(py1[r], py0[r]))
				a2 := s.mul(s.sub(px1[q], px0[q]), s.sub(py1[q], py0[q]))
				union := s.sub(s.add(a1, a2), inter)
				pos := and(and(s.cmp("gt", iw, s.c(0), false), s.cmp("gt", ih, s.c(0), false)),
					and(and(s.cmp("gt", a1, s.c(0), false), s.cmp("gt", a2, s.c(0), false)), s.cmp("gt", union, s.c(0), false)))
				safe := s.sel(pos, union, s.c(1))
				over := and(pos, s.cmp("gt", s.div(inter, safe, false), iouThr, false))
				ok = and(ok, not(and(kept[q], over)))
			}
			kept[r] = ok
			result = selI(and(ok, core.CmpI(bb, core.PredEQ, count, tI)), pid[r], result)
			count = core.BinOp(bb, "arith.addi", count, bb.Create("arith.extui", []*ir.Value{ok}, []ir.Type{ir.I64}).Result(0))
		}
		return []*ir.Value{result}
	}).Result(0)
	// The first K kept boxes over (batch, class, order).
	total := B * C * N
	flatSel := reshape(o.b, sel, ir.Tensor([]int64{total}, ir.I64))
	flags := mapGeneric(o.b, []*ir.Value{flatSel}, ir.Tensor([]int64{total}, ir.I1), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		return core.CmpI(bb, core.PredSGE, a[0], bb.Constant(ir.IntAttr(0, ir.I64)))
	})
	pos := nthTrue(o.b, flags, rt.Dims[0])
	g := linalg.BuildGeneric(o.b, []*ir.Value{pos}, []*ir.Value{empty(o.b, rt)},
		[]*ir.AffineMap{{NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}, linalg.Identity(2)}, core.Parallel(2),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			i64 := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.I64)) }
			q := a[0]
			k := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 1)}, []ir.Type{ir.I64}).Result(0)
			bi := core.BinOp(bb, "arith.divsi", q, i64(C*N))
			ci := core.BinOp(bb, "arith.remsi", core.BinOp(bb, "arith.divsi", q, i64(N)), i64(C))
			box := extractAt(bb, flatSel, []*ir.Value{normIndex(bb, q, total)})
			v := bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredEQ, k, i64(0)), bi,
				bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredEQ, k, i64(1)), ci, box}, []ir.Type{ir.I64}).Result(0)}, []ir.Type{ir.I64}).Result(0)
			neg := core.CmpI(bb, core.PredSLT, q, i64(0))
			return []*ir.Value{bb.Create("arith.select", []*ir.Value{neg, i64(-1), v}, []ir.Type{ir.I64}).Result(0)}
		})
	return []*ir.Value{g.Result(0)}, nil
}
