package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// custom_call @ProductOfElementaryHouseholderReflectors(A, tau), which XLA
// emits for QR decompositions (LAPACK's orgqr): with v_i the i-th column
// of A below the diagonal (1 on it, 0 above) it returns the first n
// columns of Q = H_0·H_1·…·H_(k-1), H_i = I - tau_i·v_i·v_iᵀ. Each
// reflector applies as Q ← Q - tau_i·(Q·v_i)·v_iᵀ: a matrix-vector
// generic and an update generic per reflector, over any leading batch
// dimensions. IREE lowers the call the same way; calls it cannot
// (dynamic shapes, integer elements) stay custom-call errors.

const householderTarget = "ProductOfElementaryHouseholderReflectors"

// RewriteHouseholder replaces the Householder custom calls of m.
func RewriteHouseholder(m *ir.Module) {
	var calls []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == "stablehlo.custom_call" && callTarget(op) == householderTarget {
			calls = append(calls, op)
		}
		return true
	})
	for _, op := range calls {
		if len(op.Operands) != 2 || len(op.Results) != 1 {
			continue
		}
		at, ok1 := op.Operands[0].Type.(*ir.RankedTensorType)
		tt, ok2 := op.Operands[1].Type.(*ir.RankedTensorType)
		rt, ok3 := op.Results[0].Type.(*ir.RankedTensorType)
		if !ok1 || !ok2 || !ok3 || !ir.HasStaticShape(at) || !ir.HasStaticShape(tt) || !ir.TypesEqual(at, rt) ||
			len(at.Dims) < 2 || len(tt.Dims) != len(at.Dims)-1 || !ir.IsFloat(at.Elem) {
			continue
		}
		nb := len(at.Dims) - 2
		mm, n, k := at.Dims[nb], at.Dims[nb+1], tt.Dims[nb]
		if k > mm || k > n || k > 1024 {
			continue
		}
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		q := householderProduct(b, op.Operands[0], op.Operands[1], nb, mm, n, k)
		fn := op.ParentOp()
		for fn != nil && fn.Name != "func.func" && fn.Name != "util.func" {
			fn = fn.ParentOp()
		}
		if fn == nil {
			continue
		}
		ir.ReplaceAllUsesWith(fn, op.Results[0], q)
		op.Erase()
	}
}

// householderProduct builds Q[…, :, :n] from the reflectors in a and tau.
func householderProduct(b *ir.Builder, a, tau *ir.Value, nb int, m, n, k int64) *ir.Value {
	at := a.Type.(*ir.RankedTensorType)
	et := at.Elem
	batch := at.Dims[:nb]
	dims := func(extra ...int64) []int64 { return append(append([]int64{}, batch...), extra...) }
	c := func(bb *ir.Builder, v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
	// v_i[j] read from a: 0 above the diagonal, 1 on it, a[…, j, i] below.
	vAt := func(bb *ir.Builder, bix []*ir.Value, j *ir.Value, i int64) *ir.Value {
		f := fb{bb, et}
		jc := bb.Create("arith.minsi", []*ir.Value{j, c(bb, m-1)}, []ir.Type{ir.Index}).Result(0)
		x := bb.Create("tensor.extract", append(append([]*ir.Value{a}, bix...), jc, c(bb, i)), []ir.Type{et}).Result(0)
		below := core.CmpI(bb, 4, j, c(bb, i)) // sgt
		on := core.CmpI(bb, core.PredEQ, j, c(bb, i))
		return f.sel(below, x, f.sel(on, f.c(1), f.c(0)))
	}
	batchIdx := func(bb *ir.Builder) []*ir.Value {
		var ix []*ir.Value
		for d := 0; d < nb; d++ {
			ix = append(ix, core.LoopIndex(bb, d))
		}
		return ix
	}
	// Q = I (m×m per batch).
	qt := ir.Tensor(dims(m, m), et)
	r := nb + 2
	q := linalg.BuildGeneric(b, nil, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{qt}).Result(0)}, []*ir.AffineMap{linalg.Identity(r)}, core.Parallel(r),
		func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			f := fb{bb, et}
			return []*ir.Value{f.sel(core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, nb), core.LoopIndex(bb, nb+1)), f.c(1), f.c(0))}
		}).Result(0)
	wt := ir.Tensor(dims(m), et)
	for i := int64(0); i < k; i++ {
		i := i
		// w[…, row] = Σ_j Q[…, row, j]·v_i[j]
		loops := nb + 2
		its := core.Parallel(loops)
		its[nb+1] = linalg.Reduction
		qm := linalg.Identity(loops)
		wm := linalg.DimMap(loops, append(seq(nb), nb)...)
		w := linalg.BuildGeneric(b, []*ir.Value{q}, []*ir.Value{zeroFilled(b, wt)}, []*ir.AffineMap{qm, wm}, its,
			func(bb *ir.Builder, x []*ir.Value) []*ir.Value {
				f := fb{bb, et}
				v := vAt(bb, batchIdx(bb), core.LoopIndex(bb, nb+1), i)
				return []*ir.Value{f.add(x[1], f.mul(x[0], v))}
			}).Result(0)
		// Q'[…, row, col] = Q[…, row, col] - tau_i·w[…, row]·v_i[col]
		tm := &ir.AffineMap{NumDims: r}
		for d := 0; d < nb; d++ {
			tm.Results = append(tm.Results, &ir.AffineDimExpr{Pos: d})
		}
		tm.Results = append(tm.Results, &ir.AffineConstantExpr{Value: i})
		q = linalg.BuildGeneric(b, []*ir.Value{q, w, tau}, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{qt}).Result(0)},
			[]*ir.AffineMap{linalg.Identity(r), linalg.DimMap(r, append(seq(nb), nb)...), tm, linalg.Identity(r)}, core.Parallel(r),
			func(bb *ir.Builder, x []*ir.Value) []*ir.Value {
				f := fb{bb, et}
				v := vAt(bb, batchIdx(bb), core.LoopIndex(bb, nb+1), i)
				return []*ir.Value{f.sub(x[0], f.mul(f.mul(x[2], x[1]), v))}
			}).Result(0)
	}
	// The first n columns.
	out := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(dims(m, n), et)}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{q}, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(r), linalg.Identity(r)}, core.Parallel(r),
		func(bb *ir.Builder, x []*ir.Value) []*ir.Value { return x[:1] }).Result(0)
}
