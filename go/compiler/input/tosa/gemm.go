package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// im2col copies the convolution windows of a padded N…C input into a
// [N·ΠO, ΠK·C] matrix whose columns follow the weight's (K…, C) order.
func im2col(b *ir.Builder, pin *ir.Value, outs, ks, stride, dil []int64) *ir.Value {
	it := pin.Type.(*ir.RankedTensorType)
	s := len(outs)
	C := it.Dims[s+1]
	dims := append(append(append([]int64{it.Dims[0]}, outs...), ks...), C)
	n := len(dims) // loops: n, o…, k…, c
	im := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{&ir.AffineDimExpr{Pos: 0}}}
	for i := 0; i < s; i++ {
		im.Results = append(im.Results, affLin(1+i, 1+s+i, stride[i], dil[i]))
	}
	im.Results = append(im.Results, &ir.AffineDimExpr{Pos: n - 1})
	e := core.EmptyFor(b, ir.Tensor(dims, it.Elem), func(i int) *ir.Value { return linalg.Dim(b, pin, i) })
	col := linalg.BuildGeneric(b, []*ir.Value{pin}, []*ir.Value{e}, []*ir.AffineMap{im, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return a[:1]
	}).Result(0)
	rows, cols := int64(1), C
	for _, o := range outs {
		rows *= o
	}
	for _, k := range ks {
		cols *= k
	}
	perImage := rows
	if it.Dims[0] >= 0 {
		rows *= it.Dims[0]
	} else {
		rows = -1 // a dynamic batch
	}
	return reshapeLike(b, col, ir.Tensor([]int64{rows, cols}, it.Elem), func(int) *ir.Value {
		return core.BinOp(b, "arith.muli", linalg.Dim(b, pin, 0), b.Constant(ir.IntAttr(perImage, ir.Index)))
	})
}
