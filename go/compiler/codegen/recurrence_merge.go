package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A merged step runs a cooperative recurrence's step as one phase: chunk
// c computes the product's batches c, c+chunks, … and then the rest of
// the step (the LSTM's or GRU's cell, the insert into Y) on the units
// those batches hold, so that a step has one hand-off between the
// workgroups instead of two and the cell runs on every core. It applies
// when the step is a product of the carried state h (split by batch)
// followed by element-wise ops over [1, …, H] that read the product only
// where chunk c's batches hold the units of chunk c (the gates of unit u
// at u + g·H, with H a multiple of chunks times the batch width), read
// their own results and the carried tensors only at the same unit, and
// insert h's next value into a carried Y at the step's index (at the
// start of the step's row, which may hold more: a bidirectional layer's
// forward direction).
//
// The product of step t reads h_{t-1} from Y[t-1], where the step before
// inserted it, not from h's buffer: the cell of step t writes h's next
// value there while the other workgroup may still read h_{t-1} for its
// product. The first step reads the initial h from the loop's initial
// value, a binding the kernel only reads.

// mergedStep is a merged step's plan (mergeSteps).
type mergedStep struct {
	prod    *ir.Operation   // the product, split by batch
	ops     []*ir.Operation // the ops after it
	chunks  int64
	batches int64
	units   int64     // H
	y       *ir.Value // the carried tensor h's values go into
	init    *ir.Value // h's initial value (the loop's operand)
	lb      int64     // the first step's index
}

// mergeSteps returns the plan of a merged step for phases, when the step
// has that form (see above), else nil.
func (g *gen) mergeSteps(rc *recurrence, body *ir.Block, phases []stepPhase) *mergedStep {
	if len(phases) != 2 || phases[0].chunks < 2 || phases[1].chunks != 1 {
		return nil
	}
	iters, yield := body.Args[1:], body.Terminator()
	ms := &mergedStep{prod: phases[0].ops[0], ops: phases[1].ops, chunks: phases[0].chunks, batches: phases[0].batches}
	pg, _ := linalg.AsGeneric(ms.prod)
	h := pg.Op.Operands[0]
	hk := -1
	for k, a := range iters {
		if a == h {
			hk = k
		}
	}
	prodRes := ms.prod.Results[0]
	ct, _ := prodRes.Type.(*ir.RankedTensorType)
	ht, _ := h.Type.(*ir.RankedTensorType)
	if hk < 0 || ct == nil || ht == nil || len(ct.Dims) != 3 || ct.Dims[0] != ms.batches || ct.Dims[1] != 1 {
		return nil
	}
	nb := ct.Dims[2]
	ms.init, ms.lb = rc.loop.Operands[3+hk], rc.lb
	ms.units = unitsOf(ht)
	if ms.units <= 0 || ms.units%ms.chunks != 0 {
		return nil
	}
	per := ms.units / ms.chunks
	// root follows reshapes to the value they rename.
	root := func(v *ir.Value) *ir.Value {
		for v.Owner() != nil && linalg.IsReshape(v.Owner()) && v.Owner().Block() == body {
			v = v.Owner().Operands[0]
		}
		return v
	}
	mine := map[*ir.Value]bool{} // the phase's generics' results
	var ins *ir.Operation        // the insert into Y
	for _, op := range ms.ops {
		switch {
		case linalg.IsReshape(op):
			continue
		case op.Name == "tensor.insert_slice":
			if ins != nil {
				return nil
			}
			ins = op
			continue
		case op.Name != linalg.GenericName:
			return nil
		}
		gen, _ := linalg.AsGeneric(op)
		if !allParallel(gen) {
			return nil
		}
		maps := gen.Maps()
		n := gen.NumLoops()
		for i, out := range gen.Outputs() {
			if unitsOf(out.Type.(*ir.RankedTensorType)) != ms.units || !maps[gen.NumInputs()+i].IsIdentity() || len(out.Type.(*ir.RankedTensorType).Dims) != n {
				return nil
			}
		}
		for i, in := range gen.Inputs() {
			it, ok := in.Type.(*ir.RankedTensorType)
			if !ok {
				continue // a scalar
			}
			r := root(in)
			switch {
			case r == prodRes:
				if !ms.gatesInChunk(maps[i], it, n, nb, per) {
					return nil
				}
			case mine[r] || r.ParentBlock() == body:
				// A result of the phase or a carried tensor: at the same
				// unit only.
				if !maps[i].IsIdentity() || unitsOf(it) != ms.units {
					return nil
				}
			}
		}
		for _, res := range op.Results {
			mine[res] = true
		}
	}
	// The insert puts h's next value into Y at the step's index.
	if ins == nil || len(ins.Operands) != 3 || ins.Operands[2] != body.Args[0] || root(ins.Operands[0]) != yield.Operands[hk] {
		return nil
	}
	st := ins.Operands[0].Type.(*ir.RankedTensorType)
	dt := ins.Operands[1].Type.(*ir.RankedTensorType)
	offs, _ := ins.Attr("static_offsets").(*ir.DenseArrayAttr)
	if unitsOf(st) != ms.units || offs == nil || len(offs.Ints) != len(dt.Dims) || offs.Ints[0] != linalg.DynamicIndex {
		return nil
	}
	// h's values start the step's row of Y (a bidirectional layer's row
	// holds both directions: the forward one's first).
	row := int64(1)
	for j, o := range offs.Ints[1:] {
		if o != 0 {
			return nil
		}
		row *= dt.Dims[j+1]
	}
	if row < ms.units {
		return nil
	}
	for _, a := range iters {
		if a == ins.Operands[1] {
			ms.y = a
		}
	}
	if ms.y == nil {
		return nil
	}
	return ms
}

// unitsOf returns the last dimension of t when every other is 1, else 0.
func unitsOf(t *ir.RankedTensorType) int64 {
	if t == nil || len(t.Dims) == 0 {
		return 0
	}
	for _, d := range t.Dims[:len(t.Dims)-1] {
		if d != 1 {
			return 0
		}
	}
	return t.Dims[len(t.Dims)-1]
}

// gatesInChunk reports whether every read of the product's result (of
// type t, a reshape of [batches, 1, nb]) through map m, at unit u of
// chunk c (the last of the generic's n loops), lies in a batch that chunk
// c computes (≡ c mod chunks).
func (ms *mergedStep) gatesInChunk(m *ir.AffineMap, t *ir.RankedTensorType, n int, nb, per int64) bool {
	if len(m.Results) != len(t.Dims) {
		return false
	}
	strides := make([]int64, len(t.Dims))
	s := int64(1)
	for j := len(t.Dims) - 1; j >= 0; j-- {
		strides[j] = s
		s *= t.Dims[j]
	}
	dims := make([]int64, n)
	for c := int64(0); c < ms.chunks; c++ {
		for u := c * per; u < (c+1)*per; u++ {
			dims[n-1] = u
			flat := int64(0)
			for j, e := range m.Results {
				v, err := e.Eval(dims, nil)
				if err != nil || v < 0 || v >= t.Dims[j] {
					return false
				}
				flat += v * strides[j]
			}
			if (flat/nb)%ms.chunks != c {
				return false
			}
		}
	}
	return true
}

// work emits chunk c of a merged step at index iv (step apart from the
// one before): the product's batches c, c+chunks, … reading h from Y at
// iv - step (from h's initial value at the first step), then the ops
// after it on the chunk's units.
func (ms *mergedStep) work(g *gen, b *kir.Builder, body *ir.Block, iv kir.Value, step int64, c kir.Value) error {
	var err error
	product := func(b *kir.Builder, bind int, off kir.Value) []kir.Value {
		pr := &stepRange{lo: c, hi: g.idx(ms.batches), step: ms.chunks, aBind: bind, aOff: off}
		if e := g.recurrenceOp(b, ms.prod, body, pr); e != nil && err == nil {
			err = e
		}
		return nil
	}
	first := b.Cmp(kir.CmpI, kir.PredEQ, iv, g.idx(ms.lb))
	b.If(first, nil, func(b *kir.Builder) []kir.Value {
		return product(b, g.bindingOf[ms.init], g.idx(0))
	}, func(b *kir.Builder) []kir.Value {
		prev := b.Bin(kir.Mul, b.Bin(kir.Sub, iv, g.idx(step)), g.strides[ms.y][0])
		return product(b, g.bindingOf[ms.y], prev)
	})
	if err != nil {
		return err
	}
	per := ms.units / ms.chunks
	lo := b.Bin(kir.Mul, c, g.idx(per))
	ur := &stepRange{lo: lo, hi: b.Bin(kir.Add, lo, g.idx(per)), n: per, aBind: -1}
	for _, op := range ms.ops {
		if err := g.recurrenceOp(b, op, body, ur); err != nil {
			return err
		}
	}
	return nil
}
