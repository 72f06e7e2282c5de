package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// keepsProducer fuses element-wise producer p, whose result has other
// uses, into element-wise consumer c (its input i) as c's last result:
// one kernel computes both, element for element (a recurrent step's cell
// state and the hidden state made from it), and p's other users read
// that result. It applies when c reads p's result through the identity
// over p's own loops (each element once, nothing recomputed), neither
// is a contraction's epilogue candidate (a reduction result with a single
// use feeding it: that fusion is worth more), and p's other users all
// come after c in their block. It reports whether it fused.
func keepsProducer(fn *ir.Operation, p, c linalg.Generic, i int, uses map[*ir.Value]int) bool {
	if !c.IsElementwise() || len(c.Op.Results) == 0 {
		return false
	}
	cm, pm := c.Maps(), p.Maps()
	if !cm[i].IsIdentity() || !pm[p.NumInputs()].IsIdentity() || p.NumLoops() != c.NumLoops() {
		return false
	}
	for _, m := range cm[c.NumInputs():] {
		if !m.IsIdentity() {
			return false
		}
	}
	if init := p.Outputs()[0].Owner(); init == nil || init.Name != "tensor.empty" {
		return false
	}
	if feedsFromSingleUseReduction(p, uses) || feedsFromSingleUseReduction(c, uses) {
		return false
	}
	pv := p.Op.Results[0]
	// c must read p's value at input i only (a second read, or p's value
	// as c's init, would read the fused generic's own result).
	for k, v := range c.Op.Operands {
		if v == pv && k != i {
			return false
		}
	}
	blk := c.Op.Block()
	at := blk.IndexOf(c.Op)
	ok := true
	fn.Walk(func(op *ir.Operation) bool {
		if op == c.Op || !ok {
			return ok
		}
		for _, v := range op.Operands {
			if v != pv {
				continue
			}
			// The user, or the op of c's block that holds it, must come
			// after c.
			anc := op
			for anc != nil && anc.Block() != blk {
				anc = anc.ParentOp()
			}
			if anc == nil || blk.IndexOf(anc) <= at {
				ok = false
			}
		}
		return ok
	})
	if !ok {
		return false
	}
	fused := fuseWith(p, c, i, true)
	if fused == nil {
		return false
	}
	n := len(c.Op.Results)
	for k := 0; k < n; k++ {
		ir.ReplaceAllUsesWith(fn, c.Op.Results[k], fused.Results[k])
	}
	ir.ReplaceAllUsesWith(fn, pv, fused.Results[n])
	c.Op.Erase()
	p.Op.Erase()
	return true
}

// feedsFromSingleUseReduction reports whether one of g's inputs is the
// only use of a reduction generic's result (g may become its epilogue).
func feedsFromSingleUseReduction(g linalg.Generic, uses map[*ir.Value]int) bool {
	for _, in := range g.Inputs() {
		r, ok := linalg.AsGeneric(in.Owner())
		if !ok || uses[in] != 1 {
			continue
		}
		for _, it := range r.Iterators() {
			if it == linalg.Reduction {
				return true
			}
		}
	}
	return false
}
