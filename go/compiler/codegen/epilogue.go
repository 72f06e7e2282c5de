package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// epilogue is an element-wise consumer fused after a reduction root: it
// runs on each output point of the root, with its maps rewritten over the
// root's loops, and its results are what the dispatch stores.
type epilogue struct {
	op      linalg.Generic
	rootArg int             // the input that is the root's result
	maps    []*ir.AffineMap // its maps over the root's loops
	results []*ir.Value     // the tensors it writes
	nIn     int
	// pre holds the scalar value of inputs that do not vary along the
	// vectorized loop, loaded once per row (preloadRowInvariants).
	pre map[int]kir.Value
}

// constScalar returns the value of v when it is an f32 constant tensor of
// one element (an ONNX Clip's bounds): epilogues use it as a kernel
// constant instead of reading a binding, so LLVM folds it into the
// arithmetic (a NaN-propagating maximum with a known non-NaN bound is a
// plain max and a sign fix).
func constScalar(v *ir.Value) (float64, bool) {
	t, ok := v.Type.(*ir.RankedTensorType)
	if !ok || t.Elem.String() != "f32" {
		return 0, false
	}
	for _, d := range t.Dims {
		if d != 1 {
			return 0, false
		}
	}
	def := v.Owner()
	if def == nil || def.Name != "arith.constant" {
		return 0, false
	}
	var d *ir.DenseElementsAttr
	switch a := def.Attr("value").(type) {
	case *ir.DenseElementsAttr:
		d = a
	case *ir.DenseResourceAttr:
		if e, err := a.Elements(); err == nil {
			d = e
		}
	}
	if d == nil || d.NumElements() != 1 || d.IsComplex() || len(d.Floats) == 0 {
		return 0, false
	}
	return d.FloatAt(0), true
}

// tensorConstant is constScalar's value as a kernel constant, made once.
func (g *gen) tensorConstant(v *ir.Value, x float64) kir.Value {
	key := hoistKey{v, 0}
	if r, ok := g.hoisted[key]; ok {
		return r
	}
	r := g.b.Float(kir.S(kir.F32), x)
	g.hoisted[key] = r
	return r
}

// preloadRowInvariants loads, at ivs, the epilogue's tensor inputs whose
// maps do not use the vectorized loop, for runEpilogue to broadcast.
func (l *genericLowering) preloadRowInvariants(b *kir.Builder, ivs []kir.Value) {
	e, g := l.epi, l.g
	e.pre = map[int]kir.Value{}
	for i, in := range e.op.Inputs() {
		if i == e.rootArg {
			continue
		}
		if _, ok := in.Type.(*ir.RankedTensorType); !ok {
			continue
		}
		if _, ok := constScalar(in); ok {
			continue
		}
		invariant := true
		for _, r := range e.maps[i].Results {
			if c, ok := linearCoef(r, l.vecDim); !ok || c != 0 {
				invariant = false
			}
		}
		if invariant {
			e.pre[i] = l.load(b, l.address(b, in, g.bindingOf[in], e.maps[i], ivs, 1), 1)
		}
	}
}

// lowerWithEpilogue lowers root followed by consumer epi in one kernel.
func (g *gen) lowerWithEpilogue(root, epi linalg.Generic, results []*ir.Value) error {
	if err := root.Verify(); err != nil {
		return ir.OpErrorf(root.Op, "%v", err)
	}
	if err := epi.Verify(); err != nil {
		return ir.OpErrorf(epi.Op, "%v", err)
	}
	e, err := newEpilogue(root, epi, results)
	if err != nil {
		return err
	}
	l := &genericLowering{g: g, op: root, maps: root.Maps(), its: root.Iterators(), nIn: root.NumInputs(), vecDim: -1, epi: e}
	// The root's result lives only in registers: its "results" are the
	// epilogue's, bound for writing.
	l.results = results
	if err := l.analyze(); err != nil {
		return err
	}
	for i, in := range epi.Inputs() {
		if i == e.rootArg {
			continue
		}
		if _, ok := in.Type.(*ir.RankedTensorType); ok {
			if _, err := g.bind(in, kir.Read); err != nil {
				return ir.OpErrorf(epi.Op, "%v", err)
			}
		}
	}
	return l.emit()
}

// newEpilogue prepares consumer epi of root: which input is the root's
// result and epi's maps rewritten over the root's loops.
func newEpilogue(root, epi linalg.Generic, results []*ir.Value) (*epilogue, error) {
	e := &epilogue{op: epi, results: results, nIn: epi.NumInputs(), rootArg: -1}
	for i, in := range epi.Inputs() {
		if in == root.Op.Results[0] {
			e.rootArg = i
		}
	}
	if e.rootArg < 0 {
		return nil, ir.OpErrorf(epi.Op, "does not consume its dispatch's root")
	}
	// Epilogue loop j is the root's loop at result j of the root's
	// output map.
	out := root.Maps()[root.NumInputs()]
	subs := make([]ir.AffineExpr, len(out.Results))
	copy(subs, out.Results)
	n := root.NumLoops()
	for _, m := range epi.Maps() {
		cm := &ir.AffineMap{NumDims: n}
		for _, r := range m.Results {
			cm.Results = append(cm.Results, substituteDims(r, subs))
		}
		e.maps = append(e.maps, cm)
	}
	return e, nil
}

// substituteDims replaces dk in e with subs[k].
func substituteDims(e ir.AffineExpr, subs []ir.AffineExpr) ir.AffineExpr {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		return subs[e.Pos]
	case *ir.AffineBinaryExpr:
		return ir.AffineBinary(e.Kind, substituteDims(e.LHS, subs), substituteDims(e.RHS, subs))
	}
	return e
}

// runEpilogue computes the epilogue at the current point from the root's
// output values and returns the values to store, with their accesses.
func (l *genericLowering) runEpilogue(b *kir.Builder, ivs []kir.Value, w int, rootOut []kir.Value) ([]kir.Value, []access, error) {
	e := l.epi
	g := l.g
	body := e.op.Body()
	vals := map[*ir.Value]kir.Value{}
	for i, arg := range body.Args[:e.nIn] {
		if i == e.rootArg {
			vals[arg] = rootOut[0]
			continue
		}
		in := e.op.Op.Operands[i]
		if _, ok := in.Type.(*ir.RankedTensorType); !ok {
			s, err := g.scalarCapture(in)
			if err != nil {
				return nil, nil, l.errorf("%v", err)
			}
			vals[arg] = g.topBroadcast(s, w)
			continue
		}
		if x, ok := constScalar(in); ok {
			vals[arg] = g.topBroadcast(g.tensorConstant(in, x), w)
			continue
		}
		if v, ok := e.pre[i]; ok {
			vals[arg] = broadcast(b, v, w)
			continue
		}
		vals[arg] = l.load(b, l.address(b, in, g.bindingOf[in], e.maps[i], ivs, w), w)
	}
	get := func(v *ir.Value) (kir.Value, error) {
		if kv, ok := vals[v]; ok {
			return kv, nil
		}
		s, err := g.scalarCapture(v)
		if err != nil {
			return 0, l.errorf("%v", err)
		}
		return g.topBroadcast(s, w), nil
	}
	for _, op := range body.Ops {
		switch op.Name {
		case "linalg.yield":
			var outs []kir.Value
			var accs []access
			for j, v := range op.Operands {
				y, err := get(v)
				if err != nil {
					return nil, nil, err
				}
				outs = append(outs, broadcast(b, y, w))
				r := e.results[j]
				accs = append(accs, l.address(b, r, g.bindingOf[r], e.maps[e.nIn+j], ivs, w))
			}
			return outs, accs, nil
		case "arith.constant":
			c, err := g.topConstant(op, w)
			if err != nil {
				return nil, nil, err
			}
			vals[op.Results[0]] = c
		case "linalg.index", "tensor.extract":
			return nil, nil, ir.OpErrorf(op, "is not supported in a fused epilogue")
		default:
			rs, err := scalarOp(b, op, w, get)
			if err != nil {
				return nil, nil, err
			}
			for i, r := range rs {
				vals[op.Results[i]] = r
			}
		}
	}
	return nil, nil, l.errorf("epilogue has no linalg.yield")
}
