package input

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// inlineComplexCalls inlines, before conversion, the calls of private
// functions whose signature carries complex tensors (JAX wraps jnp.fft and
// friends in such helpers: complex values exist only inside input
// conversion, as pair tensors, so they cannot cross a call), the calls
// inside StableHLO ops' regions (bodies become scalar code) and every
// stablehlo.composite (replaced by its decomposition function). Callees
// are single-block func.func ops; inlining repeats for calls the inlined
// bodies contain. Private functions left without callers are erased.
func inlineComplexCalls(m *ir.Module) error {
	inlined := map[*ir.Operation]bool{}
	for round := 0; round < 16; round++ {
		var calls []*ir.Operation
		m.Op.Walk(func(op *ir.Operation) bool {
			if (op.Name == "func.call" && (signatureHasComplex(op) || inHLORegion(op))) || op.Name == "stablehlo.composite" {
				calls = append(calls, op)
			}
			return true
		})
		if len(calls) == 0 {
			break
		}
		for _, call := range calls {
			attr := "callee"
			if call.Name == "stablehlo.composite" {
				attr = "decomposition"
			}
			ref, _ := call.Attr(attr).(*ir.SymbolRefAttr)
			var callee *ir.Operation
			if ref != nil && len(ref.Nested) == 0 {
				callee = m.Lookup(ref.Root)
			}
			if callee == nil || callee.Name != "func.func" || len(callee.Regions) != 1 || len(callee.Regions[0].Blocks) != 1 {
				if call.Name == "stablehlo.composite" {
					return ir.OpErrorf(call, "has no single-block decomposition function gree can inline")
				}
				if !signatureHasComplex(call) {
					return ir.OpErrorf(call, "calls a function gree cannot inline into a region body (single-block func.func only)")
				}
				return ir.OpErrorf(call, "passes complex values to a function gree cannot inline (complex values cannot cross calls)")
			}
			if err := inlineCall(call, callee); err != nil {
				return err
			}
			inlined[callee] = true
		}
	}
	// Drop inlined private functions nobody calls any more.
	for fn := range inlined {
		if vis, ok := fn.Attr("sym_visibility").(*ir.StringAttr); !ok || vis.Value != "private" {
			continue
		}
		name := fn.Attr("sym_name").(*ir.StringAttr).Value
		used := false
		m.Op.Walk(func(op *ir.Operation) bool {
			for _, a := range []string{"callee", "decomposition"} {
				if ref, ok := op.Attr(a).(*ir.SymbolRefAttr); ok && ref.Root == name {
					used = true
				}
			}
			return !used
		})
		if !used {
			fn.Erase()
		}
	}
	return nil
}

// inHLORegion reports a call inside the region of a StableHLO op (a
// reduction or comparator body, which converts to scalar code that has
// no calls; JAX calls helpers such as _where there).
func inHLORegion(op *ir.Operation) bool {
	p := op.ParentOp()
	return p != nil && (p.Dialect() == "stablehlo" || p.Dialect() == "chlo")
}

func signatureHasComplex(op *ir.Operation) bool {
	for _, vs := range [][]*ir.Value{op.Operands, op.Results} {
		for _, v := range vs {
			if _, ok := ir.ElementTypeOf(v.Type).(*ir.ComplexType); ok {
				return true
			}
		}
	}
	return false
}

// inlineCall replaces call by a copy of callee's body.
func inlineCall(call, callee *ir.Operation) error {
	blk := callee.Regions[0].Blocks[0]
	if len(blk.Args) != len(call.Operands) {
		return ir.OpErrorf(call, "passes %d operands to a function of %d arguments", len(call.Operands), len(blk.Args))
	}
	mp := ir.Mapping{}
	for i, a := range blk.Args {
		mp[a] = call.Operands[i]
	}
	b := ir.NewBuilder(call.Loc)
	b.SetInsertionPointBefore(call)
	var results []*ir.Value
	for _, op := range blk.Ops {
		if op.Name == "func.return" {
			for _, v := range op.Operands {
				results = append(results, mp.Lookup(v))
			}
			break
		}
		b.Clone(op, mp)
	}
	if len(results) != len(call.Results) {
		return ir.OpErrorf(call, "expects %d results from a function that returns %d", len(call.Results), len(results))
	}
	root := call.ParentOp()
	for root != nil && root.Name != "func.func" && root.Name != "util.func" {
		root = root.ParentOp()
	}
	for i, res := range call.Results {
		ir.ReplaceAllUsesWith(root, res, results[i])
	}
	call.Erase()
	return nil
}
