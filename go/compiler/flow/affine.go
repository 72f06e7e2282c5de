package flow

import "github.com/gree-ml/gree/go/compiler/ir"

// substitute replaces every dimension dk of e with subs[k].
func substitute(e ir.AffineExpr, subs []ir.AffineExpr) ir.AffineExpr {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		return subs[e.Pos]
	case *ir.AffineBinaryExpr:
		return ir.AffineBinary(e.Kind, substitute(e.LHS, subs), substitute(e.RHS, subs))
	}
	return e
}

// compose returns m with its dimensions replaced by subs, over n dims.
func compose(m *ir.AffineMap, subs []ir.AffineExpr, n int) *ir.AffineMap {
	out := &ir.AffineMap{NumDims: n, NumSymbols: m.NumSymbols}
	for _, r := range m.Results {
		out.Results = append(out.Results, substitute(r, subs))
	}
	return out
}
