package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// untapContracts rewrites each tapped contraction (linalg.MatchTapped:
// C[m, n] += A[m, t…, k] · B[k, n + Σ coef_t · t], a convolution over its
// padded input) as windows and one matrix product, for targets that do
// not run a Contract per tap (codegen.Strategy.ContractTaps; GPUs): the
// windows W[t…, k, n] = B[k, n + Σ coef_t · t] copied as [T·K, N] (T the
// taps), A as [M, T·K] with its dimensions in the order m, t…, k (a
// constant's transpose folds), and their product over T·K. A batch loop
// (a grouped convolution's groups) stays the leading loop of each.
func untapContracts(fn *ir.Operation) { rewriteGenerics(fn, untapContract) }

func untapContract(fn, op *ir.Operation) bool {
	g, ok := linalg.AsGeneric(op)
	if !ok {
		return false
	}
	sh, tp, ok := linalg.MatchTapped(g)
	if !ok {
		return false
	}
	A, B, init := op.Operands[0], op.Operands[1], op.Operands[2]
	at, ok1 := A.Type.(*ir.RankedTensorType)
	ct, ok2 := init.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ir.HasStaticShape(at) || !ir.HasStaticShape(ct) {
		return false
	}
	maps := g.Maps()
	// The size of each loop A names.
	size := map[int]int64{}
	for r, e := range maps[0].Results {
		size[e.(*ir.AffineDimExpr).Pos] = at.Dims[r]
	}
	// A batch (a grouped convolution's groups) leads every operand.
	var batch []int64
	var lead []int // the batch loop, if any, first in A's new order
	if sh.Batch >= 0 {
		batch, lead = []int64{size[sh.Batch]}, []int{sh.Batch}
	}
	pre := len(batch)
	M, K, N := size[sh.M], size[sh.K], ct.Dims[pre+1]
	T := int64(1)
	for _, t := range tp.Loops {
		T *= size[t]
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	elem := func(v *ir.Value) ir.Type { return v.Type.(*ir.RankedTensorType).Elem }
	dim := func(p int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: p} }
	// Loops of the windows: the batch, t… (one per tap loop), k, n.
	nt := len(tp.Loops)
	wdims := append([]int64(nil), batch...)
	col := dim(pre + nt + 1)
	for i, t := range tp.Loops {
		wdims = append(wdims, size[t])
		tap := ir.AffineBinary(ir.AffineMul, dim(pre+i), &ir.AffineConstantExpr{Value: tp.Coefs[i]})
		col = ir.AffineBinary(ir.AffineAdd, col, tap)
	}
	wdims = append(wdims, K, N)
	bm := &ir.AffineMap{NumDims: len(wdims)}
	if pre > 0 {
		bm.Results = append(bm.Results, dim(0))
	}
	bm.Results = append(bm.Results, dim(pre+nt), col)
	win := reshapeTo(b, copyTo(b, B, bm, ir.Tensor(wdims, elem(B))), append(append([]int64(nil), batch...), T*K, N))
	// A in the order batch, m, t…, k: A's result r holds loop order[r].
	order := append(append(append(lead, sh.M), tp.Loops...), sh.K)
	am := &ir.AffineMap{NumDims: len(order)}
	adims := make([]int64, len(order))
	inOrder := true
	for r, e := range maps[0].Results {
		for i, l := range order {
			if e.(*ir.AffineDimExpr).Pos == l {
				am.Results = append(am.Results, dim(i))
				inOrder = inOrder && i == r
			}
		}
	}
	for i, l := range order {
		adims[i] = size[l]
	}
	a := A
	if !inOrder {
		a = copyTo(b, A, am, ir.Tensor(adims, at.Elem))
	}
	a = reshapeTo(b, a, append(append([]int64(nil), batch...), M, T*K))
	// Loops batch, m, n (parallel), k (reduction).
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}
	mmaps := []*ir.AffineMap{linalg.DimMap(3, 0, 2), linalg.DimMap(3, 2, 1), linalg.DimMap(3, 0, 1)}
	if pre > 0 {
		its = append([]linalg.Iterator{linalg.Parallel}, its...)
		mmaps = []*ir.AffineMap{linalg.DimMap(4, 0, 1, 3), linalg.DimMap(4, 0, 3, 2), linalg.DimMap(4, 0, 1, 2)}
	}
	mm := linalg.BuildGeneric(b, []*ir.Value{a, win}, []*ir.Value{init}, mmaps, its, linalg.CloneBody(g.Body()))
	ir.ReplaceAllUsesWith(fn, op.Results[0], mm.Result(0))
	op.Erase()
	return true
}
