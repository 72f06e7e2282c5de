package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// StableHLO's region control flow becomes the host's structured control
// flow: stablehlo.while → scf.while, stablehlo.if → scf.if, and
// stablehlo.case → a chain of scf.if on the branch index (an index out of
// range takes the last branch, as StableHLO specifies). Predicates and
// indices are rank-0 tensors, read on the host with tensor.extract. The
// regions move into the new ops unchanged; their StableHLO ops are
// converted afterwards like any other (the walk collected them first).

// moveRegion moves the blocks of from into to.
func moveRegion(from, to *ir.Region) {
	for _, blk := range from.Blocks {
		to.AddBlock(blk)
	}
	from.Blocks = nil
}

// retargetReturn replaces the stablehlo.return ending reg's block by the
// op that build creates from its operands.
func retargetReturn(op *ir.Operation, reg *ir.Region, build func(b *ir.Builder, vals []*ir.Value)) error {
	if len(reg.Blocks) != 1 {
		return ir.OpErrorf(op, "needs single-block regions")
	}
	blk := reg.Blocks[0]
	term := blk.Terminator()
	if term == nil || term.Name != "stablehlo.return" {
		return ir.OpErrorf(op, "has a region that does not end in stablehlo.return")
	}
	b := ir.NewBuilder(term.Loc)
	b.SetInsertionPointBefore(term)
	build(b, term.Operands)
	term.Erase()
	return nil
}

// hostScalar reads the element of a rank-0 tensor on the host.
func hostScalar(b *ir.Builder, v *ir.Value) *ir.Value {
	return b.Create("tensor.extract", []*ir.Value{v}, []ir.Type{ir.ElementTypeOf(v.Type)}).Result(0)
}

// resultTypes returns op's result types, complex tensors as the pair
// tensors that carry them.
func resultTypes(op *ir.Operation) []ir.Type {
	var ts []ir.Type
	for _, v := range op.Results {
		ts = append(ts, carrierType(v.Type))
	}
	return ts
}

// carrierType is the type that carries a value of type t after conversion.
func carrierType(t ir.Type) ir.Type {
	if ct, _, ok := complexTensor(t); ok {
		return pairType(ct)
	}
	return t
}

// retypeArgs gives the complex block arguments of reg their pair types.
func (r *rewriter) retypeArgs(reg *ir.Region) {
	for _, blk := range reg.Blocks {
		for _, a := range blk.Args {
			if ct, _, ok := complexTensor(a.Type); ok {
				a.Type = pairType(ct)
				r.MarkPair(a)
			}
		}
	}
}

// hloWhile converts stablehlo.while (cond region returning tensor<i1>,
// body region returning the next values).
func (r *rewriter) hloWhile(b *ir.Builder, op *ir.Operation) error {
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "needs cond and body regions")
	}
	for _, reg := range op.Regions {
		if len(reg.Blocks) != 1 || len(reg.Blocks[0].Args) != len(op.Operands) {
			return ir.OpErrorf(op, "needs single-block regions taking one argument per loop value")
		}
	}
	w := b.CreateWithRegions("scf.while", op.Operands, resultTypes(op), 2)
	moveRegion(op.Regions[0], w.Regions[0])
	moveRegion(op.Regions[1], w.Regions[1])
	r.retypeArgs(w.Regions[0])
	r.retypeArgs(w.Regions[1])
	if err := retargetReturn(op, w.Regions[0], func(bb *ir.Builder, vals []*ir.Value) {
		args := w.Regions[0].Blocks[0].Args
		bb.Create("scf.condition", append([]*ir.Value{hostScalar(bb, vals[0])}, args...), nil)
	}); err != nil {
		return err
	}
	if err := retargetReturn(op, w.Regions[1], func(bb *ir.Builder, vals []*ir.Value) {
		bb.Create("scf.yield", vals, nil)
	}); err != nil {
		return err
	}
	r.replacePairs(op, w.Results)
	return nil
}

// hloIf converts stablehlo.if.
func (r *rewriter) hloIf(b *ir.Builder, op *ir.Operation) error {
	if len(op.Regions) != 2 || len(op.Operands) != 1 {
		return ir.OpErrorf(op, "needs a predicate and two regions")
	}
	res := r.branches(b, op, hostScalar(b, op.Operands[0]), op.Regions[0], op.Regions[1])
	if res == nil {
		return ir.OpErrorf(op, "has a branch that does not end in stablehlo.return")
	}
	r.replacePairs(op, res.Results)
	return nil
}

// branches builds scf.if cond { then } else { otherwise } with op's
// result types, or nil when a region is malformed.
func (r *rewriter) branches(b *ir.Builder, op *ir.Operation, cond *ir.Value, then, otherwise *ir.Region) *ir.Operation {
	s := b.CreateWithRegions("scf.if", []*ir.Value{cond}, resultTypes(op), 2)
	moveRegion(then, s.Regions[0])
	if otherwise != nil {
		moveRegion(otherwise, s.Regions[1])
	}
	for _, reg := range s.Regions {
		if len(reg.Blocks) == 0 {
			continue
		}
		if retargetReturn(op, reg, func(bb *ir.Builder, vals []*ir.Value) { bb.Create("scf.yield", vals, nil) }) != nil {
			return nil
		}
	}
	return s
}

// hloCase converts stablehlo.case: branch i runs when the index is i, the
// last one otherwise.
func (r *rewriter) hloCase(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) != 1 || len(op.Regions) == 0 {
		return ir.OpErrorf(op, "needs an index and at least one branch")
	}
	n := len(op.Regions)
	if n == 1 {
		// One branch: its body runs unconditionally, in place.
		if len(op.Regions[0].Blocks) != 1 {
			return ir.OpErrorf(op, "needs single-block regions")
		}
		blk := op.Regions[0].Blocks[0]
		term := blk.Terminator()
		if term == nil || term.Name != "stablehlo.return" {
			return ir.OpErrorf(op, "has a branch that does not end in stablehlo.return")
		}
		for _, o := range append([]*ir.Operation{}, blk.Ops...) {
			if o != term {
				blk.Remove(o)
				b.Insert(o)
			}
		}
		r.Replace(op, term.Operands)
		return nil
	}
	idx := hostScalar(b, op.Operands[0])
	it := idx.Type
	// if idx == 0 {b0} else { if idx == 1 {b1} else { … {b(n-1)} } }
	var build func(bb *ir.Builder, i int) (*ir.Operation, error)
	build = func(bb *ir.Builder, i int) (*ir.Operation, error) {
		eq := core.CmpI(bb, core.PredEQ, idx, bb.Constant(ir.IntAttr(int64(i), it)))
		s := bb.CreateWithRegions("scf.if", []*ir.Value{eq}, resultTypes(op), 2)
		moveRegion(op.Regions[i], s.Regions[0])
		if err := retargetReturn(op, s.Regions[0], func(yb *ir.Builder, vals []*ir.Value) { yb.Create("scf.yield", vals, nil) }); err != nil {
			return nil, err
		}
		if i+2 == n {
			moveRegion(op.Regions[n-1], s.Regions[1])
			return s, retargetReturn(op, s.Regions[1], func(yb *ir.Builder, vals []*ir.Value) { yb.Create("scf.yield", vals, nil) })
		}
		blk := ir.NewBlock()
		s.Regions[1].AddBlock(blk)
		eb := ir.AtEnd(blk, op.Loc)
		inner, err := build(eb, i+1)
		if err != nil {
			return nil, err
		}
		eb.Create("scf.yield", inner.Results, nil)
		return s, nil
	}
	s, err := build(b, 0)
	if err != nil {
		return err
	}
	r.replacePairs(op, s.Results)
	return nil
}
