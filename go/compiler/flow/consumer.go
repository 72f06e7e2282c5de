package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// EpilogueRoot returns the reduction generic whose only use is consumer c
// when c can run as its epilogue in the same dispatch: c is element-wise
// over exactly the root's parallel loops, reads the root's result through
// the identity map, and the root is a reduction (a contraction too: see
// EpilogueInPlace for where its result lives) with a fill or a real tensor
// as its init. It returns nil otherwise.
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

// EpilogueInPlace reports whether epilogue epi of root (EpilogueRoot) can
// run in place over the root's result: the root then computes straight
// into epi's result buffer and epi overwrites it point by point (each
// point is read and then written by the same lane), so the dispatch needs
// no buffer of its own for the root's result. This holds when root and
// epi have one result each, of the same type (element type and shape);
// epi reads the root's result once, as an input, through the same map it
// writes its result with; and epi never reads its own init.
//
// FormDispatches returns a contraction root's result from its region
// exactly when this fails, and codegen points the Contract tile op at
// epi's result exactly when it holds: this one predicate decides both.
func EpilogueInPlace(root, epi *ir.Operation) bool {
	rg, ok1 := linalg.AsGeneric(root)
	eg, ok2 := linalg.AsGeneric(epi)
	if !ok1 || !ok2 || len(root.Results) != 1 || len(epi.Results) != 1 {
		return false
	}
	c, out := root.Results[0], epi.Results[0]
	ct, ok := c.Type.(*ir.RankedTensorType)
	if !ok || !ct.Equal(out.Type) || len(rg.Outputs()) != 1 {
		return false
	}
	// The root's result is read once, by one of epi's inputs.
	arg, reads := -1, 0
	epi.Walk(func(op *ir.Operation) bool {
		for i, v := range op.Operands {
			if v == c {
				reads++
				if op == epi && i < eg.NumInputs() {
					arg = i
				}
			}
		}
		return true
	})
	if reads != 1 || arg < 0 {
		return false
	}
	maps := eg.Maps()
	if maps[arg].String() != maps[eg.NumInputs()].String() {
		return false
	}
	// epi's init is never read: the buffer holds the root's values.
	body := eg.Body()
	if body == nil || len(body.Args) <= eg.NumInputs() {
		return false
	}
	init := body.Args[eg.NumInputs()]
	used := false
	epi.Walk(func(op *ir.Operation) bool {
		for _, v := range op.Operands {
			used = used || v == init
		}
		return !used
	})
	return !used
}
