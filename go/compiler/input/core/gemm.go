package core

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
	init := FillLike(b, ir.Tensor(t.Dims[:1], acc), b.Constant(ScalarAttr(acc, 0)), func(int) *ir.Value { return linalg.Dim(b, v, 0) })
	its := []linalg.Iterator{linalg.Parallel, linalg.Reduction}
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{init}, []*ir.AffineMap{linalg.Identity(2), linalg.DimMap(2, 0)}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{BinOp(bb, "arith.addi", a[1], ExtendInt(bb, a[0], acc, false))}
	}).Result(0)
}

// GemmABt computes init[m, n] + Σ_k (A[m,k] - azp)(B[n,k] - bzp) in acc,
// where init is bias[n] (bias [N] or [1]; nil for zero).
func GemmABt(b *ir.Builder, A, B, bias *ir.Value, acc ir.Type, azp, bzp int64) *ir.Value {
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
		init = FillLike(b, outT, b.Constant(ScalarAttr(acc, 0)), size)
	} else {
		e := EmptyFor(b, outT, size)
		init = linalg.BuildGeneric(b, ins, []*ir.Value{e}, append(maps, linalg.Identity(2)), Parallel(2), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			i := 0
			v := bb.Constant(ScalarAttr(acc, 0))
			if bias != nil {
				v = Widen(bb, a[0], acc)
				i++
			}
			if !isInt {
				return []*ir.Value{v}
			}
			if azp != 0 {
				v = BinOp(bb, "arith.subi", v, BinOp(bb, "arith.muli", a[i], IntConst(bb, azp, acc)))
				i++
			}
			if bzp != 0 {
				v = BinOp(bb, "arith.subi", v, BinOp(bb, "arith.muli", a[i], IntConst(bb, bzp, acc)))
			}
			if azp != 0 && bzp != 0 {
				v = BinOp(bb, "arith.addi", v, IntConst(bb, K*azp*bzp, acc))
			}
			return []*ir.Value{v}
		}).Result(0)
	}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}
	maps = []*ir.AffineMap{linalg.DimMap(3, 0, 2), linalg.DimMap(3, 1, 2), linalg.DimMap(3, 0, 1)}
	return linalg.BuildGeneric(b, []*ir.Value{A, B}, []*ir.Value{init}, maps, its, MulAdd).Result(0)
}

// FillLike returns a tensor of type t filled with scalar v, its dynamic
// sizes given by size.
func FillLike(b *ir.Builder, t *ir.RankedTensorType, v *ir.Value, size func(i int) *ir.Value) *ir.Value {
	k := len(t.Dims)
	e := EmptyFor(b, t, size)
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, Parallel(k), YieldArg(0, t)).Result(0)
}
