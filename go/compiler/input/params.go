package input

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// outlineParameterConstants turns each flow.tensor.constant of a named
// parameter (#flow.parameter.named<"scope"::"key"> : T inside a function)
// into a load of a private immutable util.global initialized with the
// reference, as IREE's constant outlining does; one global serves every
// use of the same reference and type. Such globals become module globals
// loaded from the parameter files when a context is created.
func outlineParameterConstants(m *ir.Module) error {
	var uses []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == "flow.tensor.constant" && ir.IsParameterAttr(op.Attr("value")) {
			uses = append(uses, op)
		}
		return true
	})
	if len(uses) == 0 {
		return nil
	}
	top := m.Body()
	names := map[string]string{} // reference and type → global
	taken := map[string]bool{}
	for _, op := range top.Ops {
		if s, ok := op.Attr("sym_name").(*ir.StringAttr); ok {
			taken[s.Value] = true
		}
	}
	for _, op := range uses {
		v := op.Attr("value")
		ref, err := ir.ParseParameterAttr(v)
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		if len(op.Results) != 1 {
			return ir.OpErrorf(op, "needs one result")
		}
		t := op.Results[0].Type
		if _, ok := t.(*ir.RankedTensorType); !ok {
			return ir.OpErrorf(op, "parameter '%s' has type %s; parameters need a ranked tensor type", ref.Key, t)
		}
		id := v.String() + "|" + t.String()
		name, ok := names[id]
		if !ok {
			name = uniqueName(parameterGlobalName(ref, t), taken)
			names[id] = name
			g := ir.NewOperation(&ir.OperationState{Name: "util.global", Loc: op.Loc, Attrs: []ir.NamedAttr{
				ir.Named("sym_name", ir.Str(name)), ir.Named("sym_visibility", ir.Str("private")),
				ir.Named("type", ir.TypeAttrOf(t)), ir.Named("initial_value", v)}})
			top.Insert(0, g)
		}
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		ld := b.Create("util.global.load", nil, []ir.Type{t}, ir.Named("global", ir.SymRef(name)), ir.Named("is_immutable", ir.Unit))
		fn := op.ParentOp()
		for fn != nil && fn.Name != "func.func" && fn.Name != "util.func" {
			fn = fn.ParentOp()
		}
		if fn == nil {
			return ir.OpErrorf(op, "is not inside a function")
		}
		ir.ReplaceAllUsesWith(fn, op.Results[0], ld.Result(0))
		op.Erase()
	}
	return nil
}

// parameterGlobalName is IREE's name for an outlined parameter:
// __parameter_<scope>_<key>_<type>.
func parameterGlobalName(ref ir.ParameterRef, t ir.Type) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	ts := strings.NewReplacer("<", "_", ">", "", "x", "x").Replace(t.String())
	return fmt.Sprintf("__parameter_%s_%s_%s", clean(ref.Scope), clean(ref.Key), clean(ts))
}

func uniqueName(base string, taken map[string]bool) string {
	name := base
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	taken[name] = true
	return name
}
