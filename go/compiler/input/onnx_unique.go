package input

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Unique without an axis (over the flattened input), under the same
// promise as NonZero: the model declares the number of distinct values K
// statically. Every step compares all pairs of elements (O(N²) for N
// elements): each element's first occurrence, its rank among the distinct
// values (by value when sorted, by first occurrence otherwise), then the
// K values, their first indices and counts by rank. An input with fewer
// distinct values leaves 0 in the missing places; one with more is cut to
// K (its inverse indices can then be >= K). There is no run-time check.

func init() {
	onnxReg(onnxUnique, "Unique")
}

// pairwise runs a reduction over (q, p) in [n]×[n]: ins are rank-1 [n]
// tensors, each read at q (byQ) or p; the accumulator out is [n] at q.
func pairwise(b *ir.Builder, ins []*ir.Value, byQ []bool, out *ir.Value,
	body func(bb *ir.Builder, q, p *ir.Value, a []*ir.Value, acc *ir.Value) *ir.Value) *ir.Value {
	var maps []*ir.AffineMap
	for _, isQ := range byQ {
		d := 1
		if isQ {
			d = 0
		}
		maps = append(maps, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{dimExpr(d)}})
	}
	maps = append(maps, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}})
	return linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, []linalg.Iterator{linalg.Parallel, linalg.Reduction},
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			q := bb.Create("arith.index_cast", []*ir.Value{index(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			p := bb.Create("arith.index_cast", []*ir.Value{index(bb, 1)}, []ir.Type{ir.I64}).Result(0)
			return []*ir.Value{body(bb, q, p, a[:len(ins)], a[len(ins)])}
		}).Result(0)
}

func onnxUnique(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, o.errorf("with a result length the model does not declare is not supported by gree (static shapes only)")
	}
	if o.attr("axis") != nil {
		return nil, o.errorf("with an axis is not supported by gree (flattened input only)")
	}
	x := o.in(0)
	xt := tt(x)
	n := int64(1)
	for _, d := range xt.Dims {
		n *= d
	}
	x = reshape(o.b, x, ir.Tensor([]int64{n}, xt.Elem))
	if len(o.rts) == 0 || len(o.rts[0].Dims) != 1 {
		return nil, o.errorf("needs a rank-1 first result")
	}
	k := o.rts[0].Dims[0]
	want := []int64{k, k, n, k}
	for i, t := range o.rts {
		if t == nil || len(t.Dims) != 1 || t.Dims[0] != want[i] {
			return nil, o.errorf("result %d needs shape [%d]", i, want[i])
		}
	}
	sorted := o.attrInt("sorted", 1) != 0
	uns := o.isUnsigned(o.in(0))
	elem := xt.Elem
	b := o.b
	sel := func(bb *ir.Builder, c, t, f *ir.Value) *ir.Value {
		return bb.Create("arith.select", []*ir.Value{c, t, f}, []ir.Type{t.Type}).Result(0)
	}
	ext := func(bb *ir.Builder, c *ir.Value) *ir.Value {
		return bb.Create("arith.extui", []*ir.Value{c}, []ir.Type{ir.I64}).Result(0)
	}
	eq := func(bb *ir.Builder, a, c *ir.Value) *ir.Value { return sc{bb, elem}.cmp("eq", a, c, uns) }
	vec := ir.Tensor([]int64{n}, ir.I64)
	// firstIdx[q]: the first position holding x[q]'s value.
	firstIdx := pairwise(b, []*ir.Value{x, x}, []bool{true, false}, filledInt(b, vec, n),
		func(bb *ir.Builder, q, p *ir.Value, a []*ir.Value, acc *ir.Value) *ir.Value {
			return sel(bb, eq(bb, a[0], a[1]), iop(bb, "arith.minsi", acc, p), acc)
		})
	// rank[q]: the number of distinct values before x[q]'s.
	rank := pairwise(b, []*ir.Value{x, x, firstIdx, firstIdx}, []bool{true, false, true, false}, filledInt(b, vec, 0),
		func(bb *ir.Builder, q, p *ir.Value, a []*ir.Value, acc *ir.Value) *ir.Value {
			isFirst := cmp(bb, predEQ, a[3], p)
			before := cmp(bb, predSLT, p, a[2])
			if sorted {
				before = sc{bb, elem}.cmp("lt", a[1], a[0], uns)
			}
			return iop(bb, "arith.addi", acc, ext(bb, iop(bb, "arith.andi", isFirst, before)))
		})
	// By rank j < K: the value, its first index and its count.
	kt := ir.Tensor([]int64{k}, ir.I64)
	maps := []*ir.AffineMap{{NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}},
		{NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}},
		{NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}}
	g := linalg.BuildGeneric(b, []*ir.Value{x, firstIdx, rank},
		[]*ir.Value{filled(b, ir.Tensor([]int64{k}, elem), 0), filledInt(b, kt, 0), filledInt(b, kt, 0)}, maps,
		[]linalg.Iterator{linalg.Parallel, linalg.Reduction}, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			j := bb.Create("arith.index_cast", []*ir.Value{index(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			q := bb.Create("arith.index_cast", []*ir.Value{index(bb, 1)}, []ir.Type{ir.I64}).Result(0)
			mine := cmp(bb, predEQ, a[2], j)
			first := iop(bb, "arith.andi", mine, cmp(bb, predEQ, a[1], q))
			return []*ir.Value{sel(bb, first, a[0], a[3]), sel(bb, first, q, a[4]),
				iop(bb, "arith.addi", a[5], ext(bb, mine))}
		})
	all := []*ir.Value{g.Result(0), g.Result(1), rank, g.Result(2)}
	return all[:len(o.rts)], nil
}
