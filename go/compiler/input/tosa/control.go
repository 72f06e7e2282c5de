package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// tosaPredicate extracts the i1 of a tensor<i1> (or tensor<1x…xi1>)
// condition.
func tosaPredicate(b *ir.Builder, op *ir.Operation, v *ir.Value) (*ir.Value, error) {
	t, ok := v.Type.(*ir.RankedTensorType)
	if !ok || !core.IsBool(t.Elem) {
		return nil, ir.OpErrorf(op, "needs a tensor<i1> condition")
	}
	ops := []*ir.Value{v}
	for range t.Dims {
		ops = append(ops, b.Constant(ir.IntAttr(0, ir.Index)))
	}
	return b.Create("tensor.extract", ops, []ir.Type{ir.I1}).Result(0), nil
}

// adoptRegion prepares a TOSA region for an scf op: block arguments (the
// TOSA 1.0 input list) are replaced by the values passed in when inline
// is set, and the tosa.yield terminator is rewritten by term.
func (r *rewriter) adoptRegion(reg *ir.Region, inline []*ir.Value, term func(b *ir.Builder, y *ir.Operation) error) error {
	if reg == nil || len(reg.Blocks) != 1 {
		return nil
	}
	blk := reg.Blocks[0]
	if inline != nil {
		for i, a := range blk.Args {
			if i < len(inline) {
				ir.ReplaceAllUsesWith(r.Fn, a, inline[i])
			}
		}
		blk.Args = nil
	}
	y := blk.Terminator()
	if y == nil || y.Name != "tosa.yield" {
		return nil
	}
	tb := ir.NewBuilder(y.Loc)
	tb.SetInsertionPointBefore(y)
	if err := term(tb, y); err != nil {
		return err
	}
	y.Erase()
	return nil
}

// tosaIf lowers cond_if to scf.if on the extracted condition; the
// branches' tosa.yield become scf.yield.
func (r *rewriter) tosaIf(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) == 0 || len(op.Regions) != 2 {
		return ir.OpErrorf(op, "needs a condition and then/else regions")
	}
	c, err := tosaPredicate(b, op, op.Operands[0])
	if err != nil {
		return err
	}
	inputs := op.Operands[1:]
	yield := func(tb *ir.Builder, y *ir.Operation) error {
		tb.Create("scf.yield", y.Operands, nil)
		return nil
	}
	for _, reg := range op.Regions {
		if err := r.adoptRegion(reg, append([]*ir.Value{}, inputs...), yield); err != nil {
			return err
		}
	}
	var types []ir.Type
	for _, v := range op.Results {
		types = append(types, v.Type)
	}
	s := b.Insert(ir.NewOperation(&ir.OperationState{Name: "scf.if", Loc: op.Loc, Operands: []*ir.Value{c}, ResultTypes: types, Regions: op.Regions}))
	op.Regions = nil
	r.Replace(op, s.Results)
	return nil
}

// tosaWhile lowers while_loop to scf.while: the cond region yields a
// tensor<i1> that becomes scf.condition(extracted) with the loop values;
// the body's tosa.yield becomes scf.yield.
func (r *rewriter) tosaWhile(b *ir.Builder, op *ir.Operation) error {
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "needs cond and body regions")
	}
	before, after := op.Regions[0], op.Regions[1]
	if len(before.Blocks) != 1 || len(after.Blocks) != 1 {
		return ir.OpErrorf(op, "needs single-block regions")
	}
	args := before.Blocks[0].Args
	err := r.adoptRegion(before, nil, func(tb *ir.Builder, y *ir.Operation) error {
		if len(y.Operands) != 1 {
			return ir.OpErrorf(y, "in a while_loop condition must yield one tensor<i1>")
		}
		c, err := tosaPredicate(tb, y, y.Operands[0])
		if err != nil {
			return err
		}
		tb.Create("scf.condition", append([]*ir.Value{c}, args...), nil)
		return nil
	})
	if err != nil {
		return err
	}
	err = r.adoptRegion(after, nil, func(tb *ir.Builder, y *ir.Operation) error {
		tb.Create("scf.yield", y.Operands, nil)
		return nil
	})
	if err != nil {
		return err
	}
	var types []ir.Type
	for _, v := range op.Results {
		types = append(types, v.Type)
	}
	s := b.Insert(ir.NewOperation(&ir.OperationState{Name: "scf.while", Loc: op.Loc, Operands: op.Operands, ResultTypes: types, Regions: op.Regions}))
	op.Regions = nil
	r.Replace(op, s.Results)
	return nil
}

// Variables turns the module-level tosa.variable ops of m into
// private mutable util.globals (zero-initialized when they have no
// initial value).
func Variables(m *ir.Module) error {
	var vars []*ir.Operation
	for _, reg := range m.Op.Regions {
		for _, blk := range reg.Blocks {
			for _, op := range blk.Ops {
				if op.Name == "tosa.variable" {
					vars = append(vars, op)
				}
			}
		}
	}
	for _, op := range vars {
		if err := tosaVariable(op); err != nil {
			return err
		}
	}
	return nil
}

func tosaVariable(op *ir.Operation) error {
	ta, ok := op.Attr("type").(*ir.TypeAttr)
	name, ok2 := op.Attr("sym_name").(*ir.StringAttr)
	if !ok || !ok2 {
		return ir.OpErrorf(op, "needs a name and a type")
	}
	rt, ok := ta.Type.(*ir.RankedTensorType)
	if !ok || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "with a dynamic or unranked type %s is not supported by gree", ta.Type)
	}
	init := op.Attr("initial_value")
	if init == nil {
		init = &ir.DenseElementsAttr{Type: rt, Splat: true, Ints: []int64{0}, Floats: []float64{0}}
	}
	attrs := []ir.NamedAttr{ir.Named("sym_name", name), ir.Named("sym_visibility", ir.Str("private")),
		ir.Named("is_mutable", ir.Unit), ir.Named("type", ta), ir.Named("initial_value", init)}
	g := ir.NewOperation(&ir.OperationState{Name: "util.global", Loc: op.Loc, Attrs: attrs})
	blk := op.Block()
	blk.Insert(blk.IndexOf(op), g)
	op.Erase()
	return nil
}

// tosaVariableAccess lowers variable_read / variable_write to
// util.global.load / util.global.store.
func (r *rewriter) tosaVariableAccess(b *ir.Builder, op *ir.Operation) error {
	name, ok := op.Attr("name").(*ir.StringAttr)
	if !ok {
		return ir.OpErrorf(op, "needs a variable name")
	}
	ref := ir.Named("global", ir.SymRef(name.Value))
	if op.Name == "tosa.variable_read" {
		l := b.Create("util.global.load", nil, []ir.Type{op.Results[0].Type}, ref)
		r.Replace(op, l.Results)
		return nil
	}
	b.Create("util.global.store", op.Operands, nil, ref)
	op.Erase()
	return nil
}
