package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Unique, under the same promise as NonZero: the model declares the
// number of distinct values (or slices along axis) K statically. The
// input is viewed as N rows of M elements (rows are the slices along
// axis; without an axis, the flattened elements, M = 1) and every pair of
// rows is compared (O(N²·M)): the first differing element orders them
// (lexicographically when sorted), which gives each row's first
// occurrence and its rank among the distinct rows; then by rank the K
// rows, their first indices and counts. An input with fewer distinct rows
// leaves index -1 and zeros in the missing places; one with more is cut
// to K (its inverse indices can then be >= K). There is no run-time check.

func init() {
	onnxReg(onnxUnique, "Unique")
}

func onnxUnique(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, o.errorf("with a result length the model does not declare is not supported by gree (static shapes only)")
	}
	x := o.in(0)
	xt := tt(x)
	elem := xt.Elem
	r := len(xt.Dims)
	b := o.b
	// rows: [N, M], the axis first.
	var rows *ir.Value
	var N, M int64
	ax := -1
	var rest []int64 // the other dims, in order
	if o.attr("axis") == nil {
		N, M = 1, 1
		for _, d := range xt.Dims {
			N *= d
		}
		rows = reshape(b, x, ir.Tensor([]int64{N, 1}, elem))
	} else {
		a, err := o.normAxis(o.attrInt("axis", 0), r)
		if err != nil {
			return nil, err
		}
		ax = a
		N, M = xt.Dims[ax], 1
		m := &ir.AffineMap{NumDims: r}
		pos := 1
		for d := 0; d < r; d++ {
			if d == ax {
				m.Results = append(m.Results, dimExpr(0))
				continue
			}
			m.Results = append(m.Results, dimExpr(pos))
			pos++
			rest = append(rest, xt.Dims[d])
			M *= xt.Dims[d]
		}
		perm := copyGeneric(b, x, m, ir.Tensor(append([]int64{N}, rest...), elem))
		rows = reshape(b, perm, ir.Tensor([]int64{N, M}, elem))
	}
	if len(o.rts) == 0 || len(o.rts[0].Dims) != max(1, r*btoi(ax >= 0)) {
		return nil, o.errorf("has a first result of the wrong rank")
	}
	k := int64(0)
	if ax < 0 {
		k = o.rts[0].Dims[0]
	} else {
		k = o.rts[0].Dims[ax]
	}
	want := []int64{k, k, N, k}
	for i, t := range o.rts[1:] {
		if t == nil || len(t.Dims) != 1 || t.Dims[0] != want[i+1] {
			return nil, o.errorf("result %d needs shape [%d]", i+1, want[i+1])
		}
	}
	sorted := o.attrInt("sorted", 1) != 0
	uns := o.isUnsigned(x)
	idx := func(bb *ir.Builder, d int) *ir.Value {
		return bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)
	}
	sel := func(bb *ir.Builder, c, t, f *ir.Value) *ir.Value {
		return bb.Create("arith.select", []*ir.Value{c, t, f}, []ir.Type{t.Type}).Result(0)
	}
	ext := func(bb *ir.Builder, c *ir.Value) *ir.Value {
		return bb.Create("arith.extui", []*ir.Value{c}, []ir.Type{ir.I64}).Result(0)
	}
	am := func(n int, ds ...int) *ir.AffineMap {
		m := &ir.AffineMap{NumDims: n}
		for _, d := range ds {
			m.Results = append(m.Results, dimExpr(d))
		}
		return m
	}
	red2 := []linalg.Iterator{linalg.Parallel, linalg.Reduction}
	// diff[q, p]: the first element where rows q and p differ (M if none).
	nn := ir.Tensor([]int64{N, N}, ir.I64)
	diff := linalg.BuildGeneric(b, []*ir.Value{rows, rows}, []*ir.Value{filledInt(b, nn, M)},
		[]*ir.AffineMap{am(3, 0, 2), am(3, 1, 2), am(3, 0, 1)}, []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction},
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			ne := sc{bb, elem}.cmp("ne", a[0], a[1], uns)
			return []*ir.Value{sel(bb, ne, core.BinOp(bb, "arith.minsi", a[2], idx(bb, 2)), a[2])}
		}).Result(0)
	same := func(bb *ir.Builder, d *ir.Value) *ir.Value {
		return core.CmpI(bb, core.PredEQ, d, bb.Constant(ir.IntAttr(M, ir.I64)))
	}
	vec := ir.Tensor([]int64{N}, ir.I64)
	// firstIdx[q]: the first row equal to row q.
	firstIdx := linalg.BuildGeneric(b, []*ir.Value{diff}, []*ir.Value{filledInt(b, vec, N)},
		[]*ir.AffineMap{am(2, 0, 1), am(2, 0)}, red2, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{sel(bb, same(bb, a[0]), core.BinOp(bb, "arith.minsi", a[1], idx(bb, 1)), a[1])}
		}).Result(0)
	// rank[q]: the number of distinct rows ordered before row q's.
	rank := linalg.BuildGeneric(b, []*ir.Value{diff, firstIdx, firstIdx}, []*ir.Value{filledInt(b, vec, 0)},
		[]*ir.AffineMap{am(2, 0, 1), am(2, 0), am(2, 1), am(2, 0)}, red2, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			p := idx(bb, 1)
			isFirst := core.CmpI(bb, core.PredEQ, a[2], p)
			before := core.CmpI(bb, core.PredSLT, p, a[1])
			if sorted {
				// Row p before row q: they differ, and at the first
				// difference p's element is the smaller.
				d := bb.Create("arith.index_cast", []*ir.Value{core.BinOp(bb, "arith.minsi", a[0], bb.Constant(ir.IntAttr(M-1, ir.I64)))}, []ir.Type{ir.Index}).Result(0)
				vq := extractAt(bb, rows, []*ir.Value{core.LoopIndex(bb, 0), d})
				vp := extractAt(bb, rows, []*ir.Value{core.LoopIndex(bb, 1), d})
				lt := sc{bb, elem}.cmp("lt", vp, vq, uns)
				before = core.BinOp(bb, "arith.andi", core.BinOp(bb, "arith.xori", same(bb, a[0]), bb.Constant(ir.IntAttr(1, ir.I1))), lt)
			}
			return []*ir.Value{core.BinOp(bb, "arith.addi", a[3], ext(bb, core.BinOp(bb, "arith.andi", isFirst, before)))}
		}).Result(0)
	// By rank j < K: the first index and the count.
	kt := ir.Tensor([]int64{k}, ir.I64)
	g := linalg.BuildGeneric(b, []*ir.Value{firstIdx, rank}, []*ir.Value{filledInt(b, kt, -1), filledInt(b, kt, 0)},
		[]*ir.AffineMap{am(2, 1), am(2, 1), am(2, 0), am(2, 0)}, red2, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			q := idx(bb, 1)
			mine := core.CmpI(bb, core.PredEQ, a[1], idx(bb, 0))
			first := core.BinOp(bb, "arith.andi", mine, core.CmpI(bb, core.PredEQ, a[0], q))
			return []*ir.Value{sel(bb, first, q, a[2]), core.BinOp(bb, "arith.addi", a[3], ext(bb, mine))}
		})
	first := g.Result(0)
	// The K rows, then back to the input's layout.
	y2 := linalg.BuildGeneric(b, []*ir.Value{first}, []*ir.Value{empty(b, ir.Tensor([]int64{k, M}, elem))},
		[]*ir.AffineMap{am(2, 0), am(2, 0, 1)}, core.Parallel(2), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			s := sc{bb, elem}
			v := extractAt(bb, rows, []*ir.Value{normIndex(bb, a[0], N), core.LoopIndex(bb, 1)})
			return []*ir.Value{s.sel(core.CmpI(bb, core.PredSLT, a[0], bb.Constant(ir.IntAttr(0, ir.I64))), s.c(0), v)}
		}).Result(0)
	var y *ir.Value
	if ax < 0 {
		y = reshape(b, y2, o.rts[0])
	} else {
		yp := reshape(b, y2, ir.Tensor(append([]int64{k}, rest...), elem))
		m := &ir.AffineMap{NumDims: r, Results: []ir.AffineExpr{dimExpr(ax)}}
		for d := 0; d < r; d++ {
			if d != ax {
				m.Results = append(m.Results, dimExpr(d))
			}
		}
		if !ir.TypesEqual(o.rts[0], ir.Tensor(append(append(append([]int64{}, xt.Dims[:ax]...), k), xt.Dims[ax+1:]...), elem)) {
			return nil, o.errorf("has a first result type %s that does not match the input off axis %d", o.rts[0], ax)
		}
		y = copyGeneric(b, yp, m, o.rts[0])
	}
	all := []*ir.Value{y, first, rank, g.Result(1)}
	return all[:len(o.rts)], nil
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
