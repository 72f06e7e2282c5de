package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX NonZero and Compress, whose result length depends on the values.
// gree compiles static shapes, so these convert only when the model
// declares a static result length K (as exporters record it when they
// trace one input): the result holds the first K selected elements. That
// length is a promise of the model: an input with fewer selected elements
// gives -1 (NonZero) or 0 (Compress) in the missing places, one with more
// is cut to K; gree does not check it at run time. A dynamic result length
// is an error.

func init() {
	onnxReg(onnxNonZero, "NonZero")
	onnxReg(onnxCompress, "Compress")
}

// nthTrue returns, for j < k, the position in flags (rank 1) of its j-th
// set element, or -1 where there are fewer than j+1.
func nthTrue(b *ir.Builder, flags *ir.Value, k int64) *ir.Value {
	n := tt(flags).Dims[0]
	// before[q]: the number of set flags at positions p < q.
	before := filledInt(b, ir.Tensor([]int64{n}, ir.I64), 0)
	g := linalg.BuildGeneric(b, []*ir.Value{flags}, []*ir.Value{before},
		[]*ir.AffineMap{{NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}},
		[]linalg.Iterator{linalg.Parallel, linalg.Reduction}, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			lt := core.CmpI(bb, core.PredSLT, core.LoopIndex(bb, 1), core.LoopIndex(bb, 0))
			inc := bb.Create("arith.extui", []*ir.Value{core.BinOp(bb, "arith.andi", lt, a[0])}, []ir.Type{ir.I64}).Result(0)
			return []*ir.Value{core.BinOp(bb, "arith.addi", a[1], inc)}
		}).Result(0)
	pos := filledInt(b, ir.Tensor([]int64{k}, ir.I64), -1)
	return linalg.BuildGeneric(b, []*ir.Value{flags, g}, []*ir.Value{pos},
		[]*ir.AffineMap{{NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, {NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}},
		[]linalg.Iterator{linalg.Parallel, linalg.Reduction}, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			j := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			q := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 1)}, []ir.Type{ir.I64}).Result(0)
			hit := core.BinOp(bb, "arith.andi", a[0], core.CmpI(bb, core.PredEQ, a[1], j))
			return []*ir.Value{bb.Create("arith.select", []*ir.Value{hit, q, a[2]}, []ir.Type{ir.I64}).Result(0)}
		}).Result(0)
}

// nonzeroFlags flattens x to rank 1 as booleans x != 0.
func nonzeroFlags(b *ir.Builder, x *ir.Value, uns bool) *ir.Value {
	xt := tt(x)
	n := int64(1)
	for _, d := range xt.Dims {
		n *= d
	}
	flat := reshape(b, x, ir.Tensor([]int64{n}, xt.Elem))
	return mapGeneric(b, []*ir.Value{flat}, ir.Tensor([]int64{n}, ir.I1), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, xt.Elem}
		return s.cmp("ne", a[0], s.c(0), uns)
	})
}

func onnxNonZero(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, o.errorf("with a result length the model does not declare is not supported by gree (static shapes only)")
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	r := len(xt.Dims)
	if len(rt.Dims) != 2 || rt.Dims[0] != int64(r) || !ir.TypesEqual(rt.Elem, ir.I64) {
		return nil, o.errorf("needs an i64 result of shape [%d, K]", r)
	}
	pos := nthTrue(o.b, nonzeroFlags(o.b, x, o.isUnsigned(x)), rt.Dims[1])
	// out[d, j] = coordinate d of flat position pos[j], -1 when absent.
	g := linalg.BuildGeneric(o.b, []*ir.Value{pos}, []*ir.Value{empty(o.b, rt)},
		[]*ir.AffineMap{{NumDims: 2, Results: []ir.AffineExpr{dimExpr(1)}}, linalg.Identity(2)}, core.Parallel(2),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.I64)) }
			d := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			// stride of dimension d and its size, selected by d.
			stride, size := c(1), c(1)
			acc := int64(1)
			for k := r - 1; k >= 0; k-- {
				is := core.CmpI(bb, core.PredEQ, d, c(int64(k)))
				stride = bb.Create("arith.select", []*ir.Value{is, c(acc), stride}, []ir.Type{ir.I64}).Result(0)
				size = bb.Create("arith.select", []*ir.Value{is, c(xt.Dims[k]), size}, []ir.Type{ir.I64}).Result(0)
				acc *= xt.Dims[k]
			}
			v := core.BinOp(bb, "arith.remsi", core.BinOp(bb, "arith.divsi", a[0], stride), size)
			neg := core.CmpI(bb, core.PredSLT, a[0], c(0))
			return []*ir.Value{bb.Create("arith.select", []*ir.Value{neg, c(-1), v}, []ir.Type{ir.I64}).Result(0)}
		})
	return []*ir.Value{g.Result(0)}, nil
}

func onnxCompress(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, o.errorf("with a result length the model does not declare is not supported by gree (static shapes only)")
	}
	x, cond, rt := o.in(0), o.in(1), o.rts[0]
	ct := tt(cond)
	if ct == nil || len(ct.Dims) != 1 {
		return nil, o.errorf("needs a rank-1 condition")
	}
	if o.attr("axis") == nil {
		xt := tt(x)
		n := int64(1)
		for _, d := range xt.Dims {
			n *= d
		}
		x = reshape(o.b, x, ir.Tensor([]int64{n}, xt.Elem))
	}
	xt := tt(x)
	r := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", 0), r)
	if err != nil {
		return nil, err
	}
	if len(rt.Dims) != r {
		return nil, o.errorf("has a result of rank %d, want %d", len(rt.Dims), r)
	}
	for d := 0; d < r; d++ {
		if d != ax && rt.Dims[d] != xt.Dims[d] {
			return nil, o.errorf("has result shape %v that does not match the input %v off axis %d", rt.Dims, xt.Dims, ax)
		}
	}
	if ct.Dims[0] > xt.Dims[ax] {
		return nil, o.errorf("has a condition longer (%d) than the axis (%d)", ct.Dims[0], xt.Dims[ax])
	}
	flags := nonzeroFlags(o.b, cond, false)
	pos := nthTrue(o.b, flags, rt.Dims[ax])
	g := linalg.BuildGeneric(o.b, []*ir.Value{pos}, []*ir.Value{empty(o.b, rt)},
		[]*ir.AffineMap{{NumDims: r, Results: []ir.AffineExpr{dimExpr(ax)}}, linalg.Identity(r)}, core.Parallel(r),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for d := 0; d < r; d++ {
				ix = append(ix, core.LoopIndex(bb, d))
			}
			ix[ax] = normIndex(bb, a[0], xt.Dims[ax])
			v := extractAt(bb, x, ix)
			s := sc{bb, rt.Elem}
			neg := core.CmpI(bb, core.PredSLT, a[0], bb.Constant(ir.IntAttr(0, ir.I64)))
			return []*ir.Value{s.sel(neg, s.c(0), v)}
		})
	return []*ir.Value{g.Result(0)}, nil
}
