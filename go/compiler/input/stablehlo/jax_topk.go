package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// rewriteApproxTopK turns lax.approx_max_k / approx_min_k, which JAX emits
// as stablehlo.custom_call @ApproxTopK(inputs…, inits…) with the
// comparator as a called function, into the exact top-k: a stable
// stablehlo.sort of the inputs with that comparator along reduction_dim,
// then the first top_k of each. Exact results are within the op's
// contract (XLA's CPU fallback computes the same). Calls that do not
// aggregate to top_k (aggregate_to_topk = false) keep their error.
// It returns the comparators of the calls it rewrote.
func rewriteApproxTopK(m *ir.Module, fn *ir.Operation) []string {
	var calls []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == "stablehlo.custom_call" && callTarget(op) == "ApproxTopK" {
			calls = append(calls, op)
		}
		return true
	})
	var done []string
	for _, op := range calls {
		if name := approxTopK(m, fn, op); name != "" {
			done = append(done, name)
		}
	}
	return done
}

func approxTopK(m *ir.Module, fn, op *ir.Operation) string {
	cfg, _ := op.Attr("mhlo.backend_config").(*ir.DictAttr)
	comps, _ := op.Attr("called_computations").(*ir.ArrayAttr)
	if cfg == nil || comps == nil || len(comps.Elems) != 1 {
		return ""
	}
	k, ok1 := cfg.Get("top_k").(*ir.IntegerAttr)
	dim, ok2 := cfg.Get("reduction_dim").(*ir.IntegerAttr)
	agg, ok3 := cfg.Get("aggregate_to_topk").(*ir.BoolAttr)
	ref, ok4 := comps.Elems[0].(*ir.SymbolRefAttr)
	n := len(op.Results)
	if !ok1 || !ok2 || !ok3 || !agg.Value || !ok4 || n == 0 || len(op.Operands) != 2*n {
		return ""
	}
	cmpFn := m.Lookup(ref.Root)
	if cmpFn == nil || len(cmpFn.Regions) != 1 || len(cmpFn.Regions[0].Blocks) != 1 {
		return ""
	}
	body := cmpFn.Regions[0].Blocks[0]
	if len(body.Args) != 2*n {
		return ""
	}
	ins := op.Operands[:n]
	var inTypes []ir.Type
	for i, v := range ins {
		it, ok := v.Type.(*ir.RankedTensorType)
		rt, ok2 := op.Results[i].Type.(*ir.RankedTensorType)
		d := int(dim.Value)
		if !ok || !ok2 || !ir.HasStaticShape(it) || d < 0 || d >= len(it.Dims) || len(rt.Dims) != len(it.Dims) || rt.Dims[d] != k.Value {
			return ""
		}
		inTypes = append(inTypes, it)
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	st := &ir.OperationState{Name: "stablehlo.sort", Loc: op.Loc, Operands: ins, ResultTypes: inTypes,
		Attrs: []ir.NamedAttr{ir.Named("dimension", ir.IntAttr(dim.Value, ir.I64)), ir.Named("is_stable", &ir.BoolAttr{Value: true})}}
	region := st.AddRegion()
	blk := ir.NewBlock()
	region.AddBlock(blk)
	mp := ir.Mapping{}
	for _, a := range body.Args {
		mp[a] = blk.AddArgument(a.Type, a.Loc)
	}
	inner := ir.AtEnd(blk, op.Loc)
	for _, o := range body.Ops {
		if o.Name == "func.return" {
			var vals []*ir.Value
			for _, v := range o.Operands {
				vals = append(vals, mp.Lookup(v))
			}
			inner.Create("stablehlo.return", vals, nil)
			continue
		}
		inner.Clone(o, mp)
	}
	sorted := b.Insert(ir.NewOperation(st))
	for i, res := range op.Results {
		it := inTypes[i].(*ir.RankedTensorType)
		start, limit, strides := make([]int64, len(it.Dims)), append([]int64(nil), it.Dims...), make([]int64, len(it.Dims))
		for j := range strides {
			strides[j] = 1
		}
		limit[dim.Value] = k.Value
		s := b.Create("stablehlo.slice", []*ir.Value{sorted.Results[i]}, []ir.Type{res.Type},
			ir.Named("start_indices", ir.I64Array(start...)), ir.Named("limit_indices", ir.I64Array(limit...)),
			ir.Named("strides", ir.I64Array(strides...)))
		ir.ReplaceAllUsesWith(fn, res, s.Results[0])
	}
	op.Erase()
	return ref.Root
}

// eraseUnusedFuncs erases the functions named in names that nothing in m
// refers to any more (a rewritten ApproxTopK's comparator).
func eraseUnusedFuncs(m *ir.Module, names []string) {
	used := map[string]bool{}
	var visit func(a ir.Attribute)
	visit = func(a ir.Attribute) {
		switch a := a.(type) {
		case *ir.SymbolRefAttr:
			used[a.Root] = true
		case *ir.ArrayAttr:
			for _, e := range a.Elems {
				visit(e)
			}
		case *ir.DictAttr:
			for _, e := range a.Entries {
				visit(e.Value)
			}
		}
	}
	m.Op.Walk(func(op *ir.Operation) bool {
		for _, a := range op.Attrs {
			visit(a.Value)
		}
		return true
	})
	for _, name := range names {
		if fn := m.Lookup(name); fn != nil && !used[name] && fn.Name == "func.func" {
			fn.Erase()
		}
	}
}
