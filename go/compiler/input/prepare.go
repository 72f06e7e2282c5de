package input

import (
	"github.com/gree-ml/gree/go/compiler/input/stablehlo"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// prepareModule rewrites what conversion cannot take op by op: global
// addresses and indirect loads become direct loads, Householder products
// become generics, tuple signatures are flattened, and complex calls and
// composites are inlined.
func prepareModule(m *ir.Module) error {
	resolveGlobalAddresses(m)
	if err := outlineParameterConstants(m); err != nil {
		return err
	}
	stablehlo.RewriteHouseholder(m)
	if err := stablehlo.FlattenTupleSignatures(m); err != nil {
		return err
	}
	return inlineComplexCalls(m)
}

// resolveGlobalAddresses turns util.global.load.indirect of a
// util.global.address into util.global.load of the global, dropping the
// addresses left unused.
func resolveGlobalAddresses(m *ir.Module) {
	var loads, addrs []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		switch op.Name {
		case "util.global.load.indirect":
			loads = append(loads, op)
		case "util.global.address":
			addrs = append(addrs, op)
		}
		return true
	})
	for _, ld := range loads {
		a := ld.Operands[0].Owner()
		if a == nil || a.Name != "util.global.address" {
			continue
		}
		b := ir.NewBuilder(ld.Loc)
		b.SetInsertionPointBefore(ld)
		nl := b.Create("util.global.load", nil, []ir.Type{ld.Results[0].Type}, ir.Named("global", a.Attr("global")))
		fn := ld.ParentOp()
		for fn != nil && fn.Name != "func.func" && fn.Name != "util.func" {
			fn = fn.ParentOp()
		}
		if fn != nil {
			ir.ReplaceAllUsesWith(fn, ld.Results[0], nl.Result(0))
		}
		ld.Erase()
	}
	for _, a := range addrs {
		used := false
		if fn := a.ParentOp(); fn != nil {
			fn.Walk(func(op *ir.Operation) bool {
				for _, v := range op.Operands {
					used = used || v == a.Results[0]
				}
				return !used
			})
		}
		if !used {
			a.Erase()
		}
	}
}
