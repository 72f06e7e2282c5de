package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// EpilogueRoot returns the reduction generic whose only use is consumer c
// when c can run as its epilogue in the same dispatch: c is element-wise
// over exactly the root's parallel loops, reads the root's result through
// the identity map, and the root is a reduction (not a contraction, which
// codegen maps to a tile op) with a fill or a real tensor as its init.
// It returns nil otherwise.
func EpilogueRoot(c *ir.Operation, uses map[*ir.Value]int) (*ir.Operation, int) {
	cg, ok := linalg.AsGeneric(c)
	if !ok || !cg.IsElementwise() || len(c.Results) != 1 {
		return nil, -1
	}
	cmaps := cg.Maps()
	if !cmaps[len(cmaps)-1].IsIdentity() || readsByIndex(cg) {
		return nil, -1
	}
	for i, in := range cg.Inputs() {
		r := in.Owner()
		rg, ok := linalg.AsGeneric(r)
		if !ok || r.Block() != c.Block() || len(r.Results) != 1 || uses[in] != 1 || !cmaps[i].IsIdentity() {
			continue
		}
		its := rg.Iterators()
		hasRed := false
		for _, it := range its {
			hasRed = hasRed || it == linalg.Reduction
		}
		out := rg.Maps()[rg.NumInputs()]
		if !hasRed || len(out.Results) != cg.NumLoops() {
			continue
		}
		ok = true
		for _, e := range out.Results {
			d, isDim := e.(*ir.AffineDimExpr)
			ok = ok && isDim && its[d.Pos] == linalg.Parallel
		}
		if init := rg.Outputs()[0].Owner(); init != nil && init.Name == "tensor.empty" {
			ok = false
		}
		if ok {
			return r, i
		}
	}
	return nil, -1
}

// isContraction reports a body yielding out + a*b.
func isContraction(g linalg.Generic) bool {
	y := g.Body().Terminator()
	if y == nil || len(y.Operands) != 1 {
		return false
	}
	add := y.Operands[0].Owner()
	if add == nil || (add.Name != "arith.addf" && add.Name != "arith.addi") {
		return false
	}
	for _, v := range add.Operands {
		m := v.Owner()
		if m == nil || (m.Name != "arith.mulf" && m.Name != "arith.muli") {
			continue
		}
		// The product of two different inputs (x*x is not a contraction).
		a, b := m.Operands[0], m.Operands[1]
		if a != b && a.IsBlockArgument() && b.IsBlockArgument() {
			return true
		}
	}
	return false
}
