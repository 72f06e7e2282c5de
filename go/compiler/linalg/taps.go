package linalg

import "github.com/gree-ml/gree/go/compiler/ir"

// Taps are the tap loops of a tapped contraction (MatchTapped) and each
// one's coefficient in B's column index.
type Taps struct {
	Loops []int
	Coefs []int64
}

// MatchTapped recognizes a tapped contraction: a matrix product summed
// over taps, each of which reads B at an offset of its own along N,
//
//	C[m, n] += A[m, t…, k] · B[k, n + Σ coef_t · t]
//
// (A's dimensions in any order, the plain multiply-add body): C's map is
// (m, n), A's names m, k and the taps once each, B's is (k, n + Σ coef_t ·
// t) with coefficients ≥ 0 and no constant. A convolution with unit
// strides over a padded input flattened to [channels, pixels], computed on
// a grid as wide as the padded rows, is one (the ONNX importer's
// convTapped). A batch loop may lead C's, B's and A's maps (C[b, m, n] +=
// A[b, m, t…, k] · B[b, k, n + Σ coef_t · t]: a grouped convolution, one
// batch per group); Shape.Batch is -1 without one.
func MatchTapped(op Generic) (ContractShape, Taps, bool) {
	none := ContractShape{Batch: -1, M: -1, N: -1, K: -1}
	if op.NumInputs() != 2 || len(op.Op.Results) != 1 || !IsMulAddBody(op) {
		return none, Taps{}, false
	}
	maps, its := op.Maps(), op.Iterators()
	a, b, c := maps[0], maps[1], maps[2]
	dim := func(e ir.AffineExpr) int {
		if d, ok := e.(*ir.AffineDimExpr); ok {
			return d.Pos
		}
		return -1
	}
	sh := none
	cr, br := c.Results, b.Results
	if len(cr) == 3 && len(br) == 3 {
		sh.Batch = dim(cr[0])
		if sh.Batch < 0 || dim(br[0]) != sh.Batch || its[sh.Batch] != Parallel {
			return none, Taps{}, false
		}
		cr, br = cr[1:], br[1:]
	}
	if len(cr) != 2 || len(br) != 2 {
		return none, Taps{}, false
	}
	inA := map[int]bool{}
	for _, e := range a.Results {
		d := dim(e)
		if d < 0 || inA[d] {
			return none, Taps{}, false
		}
		inA[d] = true
	}
	sh.M, sh.N, sh.K = dim(cr[0]), dim(cr[1]), dim(br[0])
	if sh.M < 0 || sh.N < 0 || sh.K < 0 || sh.M == sh.N || !inA[sh.M] || inA[sh.N] || !inA[sh.K] ||
		its[sh.M] != Parallel || its[sh.N] != Parallel || its[sh.K] != Reduction || (sh.Batch >= 0 && !inA[sh.Batch]) {
		return none, Taps{}, false
	}
	col := br[1]
	if v, err := col.Eval(make([]int64, len(its)), nil); err != nil || v != 0 {
		return none, Taps{}, false
	}
	var tp Taps
	for l := range its {
		coef, ok := LinearCoef(col, l)
		if !ok {
			return none, Taps{}, false
		}
		switch l {
		case sh.N:
			if coef != 1 {
				return none, Taps{}, false
			}
		case sh.M, sh.K, sh.Batch:
			if coef != 0 {
				return none, Taps{}, false
			}
		default:
			if its[l] != Reduction || !inA[l] || coef < 0 {
				return none, Taps{}, false
			}
			tp.Loops = append(tp.Loops, l)
			tp.Coefs = append(tp.Coefs, coef)
		}
	}
	batch := 0
	if sh.Batch >= 0 {
		batch = 1
	}
	if len(tp.Loops) == 0 || len(a.Results) != 2+batch+len(tp.Loops) {
		return none, Taps{}, false
	}
	return sh, tp, true
}

// LinearCoef returns the coefficient of dimension dim in e when e is
// linear in it (ok=false when dim appears under mod, floordiv, ceildiv or
// in a product with another dimension).
func LinearCoef(e ir.AffineExpr, dim int) (int64, bool) {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		if e.Pos == dim {
			return 1, true
		}
		return 0, true
	case *ir.AffineConstantExpr, *ir.AffineSymbolExpr:
		return 0, true
	case *ir.AffineBinaryExpr:
		l, lok := LinearCoef(e.LHS, dim)
		r, rok := LinearCoef(e.RHS, dim)
		if !lok || !rok {
			return 0, false
		}
		switch e.Kind {
		case ir.AffineAdd:
			return l + r, true
		case ir.AffineMul:
			if c, ok := e.RHS.(*ir.AffineConstantExpr); ok {
				return l * c.Value, true
			}
			if c, ok := e.LHS.(*ir.AffineConstantExpr); ok {
				return r * c.Value, true
			}
			return 0, l == 0 && r == 0
		default:
			return 0, l == 0 && r == 0
		}
	}
	return 0, false
}
