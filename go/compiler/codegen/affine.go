package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// emitAffine emits e evaluated at the loop indices ivs.
func emitAffine(b *kir.Builder, g *gen, e ir.AffineExpr, ivs []kir.Value) kir.Value {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		return ivs[e.Pos]
	case *ir.AffineConstantExpr:
		return g.idx(e.Value)
	case *ir.AffineBinaryExpr:
		l := emitAffine(b, g, e.LHS, ivs)
		r := emitAffine(b, g, e.RHS, ivs)
		switch e.Kind {
		case ir.AffineAdd:
			return b.Bin(kir.Add, l, r)
		case ir.AffineMul:
			return b.Bin(kir.Mul, l, r)
		case ir.AffineFloorDiv:
			return b.Bin(kir.FloorDivS, l, r)
		case ir.AffineCeilDiv:
			return b.Bin(kir.CeilDivS, l, r)
		case ir.AffineMod:
			// Euclidean: the result has the sign of the (positive) divisor.
			m := b.Bin(kir.RemS, l, r)
			return b.Bin(kir.RemS, b.Bin(kir.Add, m, r), r)
		}
	}
	panic("codegen: unknown affine expression")
}

// linearCoef returns the coefficient of dimension dim in e when e is
// linear in it (ok=false when dim appears under mod, floordiv, ceildiv or
// in a product with another dimension).
func linearCoef(e ir.AffineExpr, dim int) (int64, bool) {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		if e.Pos == dim {
			return 1, true
		}
		return 0, true
	case *ir.AffineConstantExpr, *ir.AffineSymbolExpr:
		return 0, true
	case *ir.AffineBinaryExpr:
		l, lok := linearCoef(e.LHS, dim)
		r, rok := linearCoef(e.RHS, dim)
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
