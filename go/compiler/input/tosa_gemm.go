package input

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Quantized contractions keep a plain multiply-accumulate body (which
// codegen maps to its GEMM kernels) by moving the zero points out:
//
//	Σ_k (a - azp)(b - bzp) = Σ_k a·b - azp·Σ_k b - bzp·Σ_k a + K·azp·bzp
//
// The correction terms are folded into the accumulator's initial value.

// sumLast reduces a static 2-D tensor over its last dimension into acc.
func sumLast(b *ir.Builder, v *ir.Value, acc ir.Type) *ir.Value {
	t := v.Type.(*ir.RankedTensorType)
	init := fillLike(b, ir.Tensor(t.Dims[:1], acc), b.Constant(zeroAttr(acc, 0)), func(int) *ir.Value { return linalg.Dim(b, v, 0) })
	its := []linalg.Iterator{linalg.Parallel, linalg.Reduction}
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{init}, []*ir.AffineMap{linalg.Identity(2), linalg.DimMap(2, 0)}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{iop(bb, "arith.addi", a[1], sext(bb, a[0], acc, false))}
	}).Result(0)
}

// gemmABt computes init[m, n] + Σ_k (A[m,k] - azp)(B[n,k] - bzp) in acc,
// where init is bias[n] (bias [N] or [1]; nil for zero).
func gemmABt(b *ir.Builder, A, B, bias *ir.Value, acc ir.Type, azp, bzp int64) *ir.Value {
	at, bt := A.Type.(*ir.RankedTensorType), B.Type.(*ir.RankedTensorType)
	M, K, N := at.Dims[0], at.Dims[1], bt.Dims[0]
	outT := ir.Tensor([]int64{M, N}, acc)
	size := func(i int) *ir.Value { return linalg.Dim(b, []*ir.Value{A, B}[i], 0) }
	var ins []*ir.Value
	var maps []*ir.AffineMap
	if bias != nil {
		ins = append(ins, bias)
		if bt := bias.Type.(*ir.RankedTensorType); len(bt.Dims) == 1 && bt.Dims[0] == 1 && N != 1 {
			maps = append(maps, &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{&ir.AffineConstantExpr{Value: 0}}})
		} else {
			maps = append(maps, linalg.DimMap(2, 1))
		}
	}
	isInt := !ir.IsFloat(acc)
	if isInt && azp != 0 {
		ins = append(ins, sumLast(b, B, acc))
		maps = append(maps, linalg.DimMap(2, 1))
	}
	if isInt && bzp != 0 {
		ins = append(ins, sumLast(b, A, acc))
		maps = append(maps, linalg.DimMap(2, 0))
	}
	var init *ir.Value
	if len(ins) == 0 {
		init = fillLike(b, outT, b.Constant(zeroAttr(acc, 0)), size)
	} else {
		e := emptyFor(b, outT, size)
		init = linalg.BuildGeneric(b, ins, []*ir.Value{e}, append(maps, linalg.Identity(2)), parallel(2), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			i := 0
			v := bb.Constant(zeroAttr(acc, 0))
			if bias != nil {
				v = tosaExt(bb, a[0], acc)
				i++
			}
			if !isInt {
				return []*ir.Value{v}
			}
			if azp != 0 {
				v = iop(bb, "arith.subi", v, iop(bb, "arith.muli", a[i], cInt(bb, azp, acc)))
				i++
			}
			if bzp != 0 {
				v = iop(bb, "arith.subi", v, iop(bb, "arith.muli", a[i], cInt(bb, bzp, acc)))
			}
			if azp != 0 && bzp != 0 {
				v = iop(bb, "arith.addi", v, cInt(bb, K*azp*bzp, acc))
			}
			return []*ir.Value{v}
		}).Result(0)
	}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}
	maps = []*ir.AffineMap{linalg.DimMap(3, 0, 2), linalg.DimMap(3, 1, 2), linalg.DimMap(3, 0, 1)}
	return linalg.BuildGeneric(b, []*ir.Value{A, B}, []*ir.Value{init}, maps, its, mulAdd).Result(0)
}

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
	e := emptyFor(b, ir.Tensor(dims, it.Elem), func(i int) *ir.Value { return linalg.Dim(b, pin, i) })
	col := linalg.BuildGeneric(b, []*ir.Value{pin}, []*ir.Value{e}, []*ir.AffineMap{im, linalg.Identity(n)}, parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
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
		return iop(b, "arith.muli", linalg.Dim(b, pin, 0), b.Constant(ir.IntAttr(perImage, ir.Index)))
	})
}
