package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Options are the target-dependent choices of Run.
type Options struct {
	// Chain, when set, decides whether a producer region and the region
	// that alone consumes its result through reshape (a tensor.reshape, or
	// nil when it reads the result directly) become one dispatch
	// (MergeChains): codegen says which chains its target lowers as one
	// kernel (codegen.ChainLowerable).
	Chain func(producer, reshape, consumer *ir.Operation) bool
	// Recurrence, when set, decides whether a host loop becomes one
	// dispatch that runs its steps (FormRecurrences).
	Recurrence func(loop *ir.Operation) bool
	// Untap rewrites tapped contractions as windows and one product
	// (untapContracts): set when a target does not run a Contract per tap.
	Untap bool
}

// MergeChains merges each dispatch region whose one result is used only by
// another region, directly or through a tensor.reshape used only there,
// into that consumer when chain approves: the producer's ops, then the
// reshape, run first in the consumer's region, and the intermediate
// tensor is no longer a dispatch result (codegen keeps it in workgroup
// scratch). MobileNetV2's 1×1 expansions into its depthwise convolutions
// are such chains.
func MergeChains(fn *ir.Operation, chain func(producer, reshape, consumer *ir.Operation) bool) {
	if chain == nil {
		return
	}
	uses := users(fn)
	var regions []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == RegionName {
			regions = append(regions, op)
			return false
		}
		return true
	})
	for _, c := range regions {
		body := c.Regions[0].Blocks[0]
		for _, op := range body.Ops {
			if len(op.Operands) == 0 {
				continue
			}
			var reshape *ir.Operation
			in := op.Operands[0]
			if o := in.Owner(); o != nil && o.Name == "tensor.reshape" && uses[in] == 1 && o.Block() == c.Block() {
				reshape, in = o, o.Operands[0]
			}
			p := in.Owner()
			if p == nil || p.Name != RegionName || p == c || p.Block() != c.Block() || len(p.Results) != 1 || uses[in] != 1 {
				continue
			}
			if !chain(p, reshape, c) {
				continue
			}
			pBody := p.Regions[0].Blocks[0]
			ret := pBody.Terminator()
			val := ret.Operands[0]
			ret.Erase()
			at := 0
			for len(pBody.Ops) > 0 {
				body.Insert(at, pBody.Ops[0])
				at++
			}
			ir.ReplaceAllUsesWith(fn, p.Results[0], val)
			if reshape != nil {
				body.Insert(at, reshape)
			}
			p.Erase()
			break
		}
	}
}

// RegionGenerics returns the linalg.generic ops of dispatch region r's
// body, in order, and the other ops besides its terminator.
func RegionGenerics(r *ir.Operation) (gens []linalg.Generic, others []*ir.Operation) {
	body := r.Regions[0].Blocks[0]
	ret := body.Terminator()
	for _, op := range body.Ops {
		if g, ok := linalg.AsGeneric(op); ok {
			gens = append(gens, g)
		} else if op != ret {
			others = append(others, op)
		}
	}
	return gens, others
}
