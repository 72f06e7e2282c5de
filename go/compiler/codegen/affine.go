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

// wrapRead describes reads at (d + c) mod n along the vectorized loop d:
// for d in [first, first+n) the index is d - first, contiguous.
type wrapRead struct {
	first, n int64
}

// wrapOf matches e = (d + c) mod n (or (c + d) mod n, or d mod n) with n a
// positive constant, returning c.
func wrapOf(e ir.AffineExpr, dim int) (c, n int64, ok bool) {
	m, isBin := e.(*ir.AffineBinaryExpr)
	if !isBin || m.Kind != ir.AffineMod {
		return 0, 0, false
	}
	nc, isC := m.RHS.(*ir.AffineConstantExpr)
	if !isC || nc.Value <= 0 {
		return 0, 0, false
	}
	switch x := m.LHS.(type) {
	case *ir.AffineDimExpr:
		return 0, nc.Value, x.Pos == dim
	case *ir.AffineBinaryExpr:
		if x.Kind != ir.AffineAdd {
			return 0, 0, false
		}
		d, k := x.LHS, x.RHS
		if _, isC := d.(*ir.AffineConstantExpr); isC {
			d, k = k, d
		}
		dd, isD := d.(*ir.AffineDimExpr)
		kc, isK := k.(*ir.AffineConstantExpr)
		if !isD || !isK || dd.Pos != dim {
			return 0, 0, false
		}
		return kc.Value, nc.Value, true
	}
	return 0, 0, false
}

// wrappedIn reports whether every map is linear in loop k except for
// results (k + c) mod n that all share c mod n and n, and returns where
// their reads do not wrap.
func (l *genericLowering) wrappedIn(k int) (*wrapRead, bool) {
	var w *wrapRead
	for _, m := range l.maps {
		for _, e := range m.Results {
			if _, ok := linearCoef(e, k); ok {
				continue
			}
			c, n, ok := wrapOf(e, k)
			if !ok {
				return nil, false
			}
			first := ((-c)%n + n) % n
			if w != nil && (w.first != first || w.n != n) {
				return nil, false
			}
			w = &wrapRead{first: first, n: n}
		}
	}
	return w, w != nil
}

// vecCoef is linearCoef along the vectorized loop, where a wrapped read
// counts as contiguous (vectors never cross its wrap).
func (l *genericLowering) vecCoef(e ir.AffineExpr) (int64, bool) {
	if c, ok := linearCoef(e, l.vecDim); ok {
		return c, true
	}
	if l.wrap != nil {
		if _, _, ok := wrapOf(e, l.vecDim); ok {
			return 1, true
		}
	}
	return 0, false
}
