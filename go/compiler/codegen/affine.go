package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
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

// linearCoef is linalg.LinearCoef.
func linearCoef(e ir.AffineExpr, dim int) (int64, bool) { return linalg.LinearCoef(e, dim) }
