package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// FlattenTupleSignatures rewrites entry functions that take or return
// tuples (XLA-style programs, IREE's stablehlo_xla input): a tuple
// argument becomes one argument per element (its get_tuple_element reads
// become those arguments) and a returned stablehlo.tuple returns its
// elements, as IREE flattens them. Functions that are called, nested
// tuples and tuples used otherwise are errors naming the op.
func FlattenTupleSignatures(m *ir.Module) error {
	called := map[string]bool{}
	m.Op.Walk(func(op *ir.Operation) bool {
		if ref, ok := op.Attr("callee").(*ir.SymbolRefAttr); ok {
			called[ref.Root] = true
		}
		return true
	})
	for _, fn := range m.Body().Ops {
		if fn.Name != "func.func" || len(fn.Regions) != 1 || len(fn.Regions[0].Blocks) == 0 {
			continue
		}
		ta, ok := fn.Attr("function_type").(*ir.TypeAttr)
		if !ok {
			continue
		}
		ft, ok := ta.Type.(*ir.FunctionType)
		if !ok || !hasTuple(ft.Inputs) && !hasTuple(ft.Results) {
			continue
		}
		if name, _ := fn.Attr("sym_name").(*ir.StringAttr); name != nil && called[name.Value] {
			return ir.OpErrorf(fn, "passes tuples to or from a called function, which gree does not flatten")
		}
		if err := flattenFunc(fn, ft); err != nil {
			return err
		}
	}
	return nil
}

func hasTuple(ts []ir.Type) bool {
	for _, t := range ts {
		if _, ok := t.(*ir.TupleType); ok {
			return true
		}
	}
	return false
}

// flatTypes expands one level of tuples (nested tuples are refused).
func flatTypes(ts []ir.Type) ([]ir.Type, bool) {
	var out []ir.Type
	for _, t := range ts {
		if tt, ok := t.(*ir.TupleType); ok {
			if hasTuple(tt.Types) {
				return nil, false
			}
			out = append(out, tt.Types...)
		} else {
			out = append(out, t)
		}
	}
	return out, true
}

func flattenFunc(fn *ir.Operation, ft *ir.FunctionType) error {
	ins, ok1 := flatTypes(ft.Inputs)
	outs, ok2 := flatTypes(ft.Results)
	if !ok1 || !ok2 {
		return ir.OpErrorf(fn, "has nested tuples in its signature, which gree does not flatten")
	}
	blk := fn.Regions[0].Blocks[0]
	old := blk.Args
	blk.Args = nil
	for _, a := range old {
		tt, isTuple := a.Type.(*ir.TupleType)
		if !isTuple {
			ir.ReplaceAllUsesWith(fn, a, blk.AddArgument(a.Type, a.Loc))
			continue
		}
		var elems []*ir.Value
		for _, t := range tt.Types {
			elems = append(elems, blk.AddArgument(t, a.Loc))
		}
		var bad *ir.Operation
		var reads []*ir.Operation
		fn.Walk(func(op *ir.Operation) bool {
			for _, v := range op.Operands {
				if v == a {
					if op.Name == "stablehlo.get_tuple_element" {
						reads = append(reads, op)
					} else if bad == nil {
						bad = op
					}
				}
			}
			return true
		})
		if bad != nil {
			return ir.OpErrorf(bad, "uses a tuple argument other than through stablehlo.get_tuple_element")
		}
		for _, g := range reads {
			i, ok := g.Attr("index").(*ir.IntegerAttr)
			if !ok || i.Value < 0 || int(i.Value) >= len(elems) {
				return ir.OpErrorf(g, "reads a tuple element out of range")
			}
			ir.ReplaceAllUsesWith(fn, g.Results[0], elems[i.Value])
			g.Erase()
		}
	}
	var err error
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name != "func.return" || err != nil {
			return true
		}
		var vals []*ir.Value
		for _, v := range op.Operands {
			if _, ok := v.Type.(*ir.TupleType); !ok {
				vals = append(vals, v)
				continue
			}
			t := v.Owner()
			if t == nil || t.Name != "stablehlo.tuple" {
				err = ir.OpErrorf(op, "returns a tuple not built by stablehlo.tuple, which gree does not flatten")
				return false
			}
			vals = append(vals, t.Operands...)
		}
		op.Operands = vals
		return true
	})
	if err != nil {
		return err
	}
	fn.SetAttr("function_type", ir.TypeAttrOf(&ir.FunctionType{Inputs: ins, Results: outs}))
	fn.RemoveAttr("arg_attrs")
	fn.RemoveAttr("res_attrs")
	return nil
}
