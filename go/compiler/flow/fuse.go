package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// users counts the uses of every value in fn.
func users(fn *ir.Operation) map[*ir.Value]int {
	n := map[*ir.Value]int{}
	fn.Walk(func(op *ir.Operation) bool {
		for _, v := range op.Operands {
			n[v]++
		}
		return true
	})
	return n
}

// FuseElementwise fuses element-wise generic producers into the generics
// that consume them as inputs, when the producer has no other use, until
// nothing changes.
func FuseElementwise(fn *ir.Operation) error {
	forwardDims(fn)
	hoistReshapes(fn)
	// Pads (producers that only select by index) go into the windows
	// that read them first, before other element-wise ops join the pad.
	fuseLoop(fn, true, false)
	// Single-use producers first, then (inputs merged) producers with
	// other uses as second results: a chain whose every use ends in one
	// consumer (GELU: x + b, then (x + b)/√2 into erf, then times x + b)
	// then becomes one generic, where fusing x + b first as a second
	// result would leave two.
	fuseLoop(fn, false, false)
	DedupInputs(fn)
	fuseLoop(fn, false, false)
	fuseLoop(fn, false, true)
	// Fusion can leave one generic reading a reshape that several read
	// before (SiLU: x·sigmoid(x), a Sigmoid and a Mul of the same
	// reshaped convolution): with its repeated inputs merged, hoist
	// again, so that it joins the convolution's epilogue, and fuse what
	// that exposes.
	DedupInputs(fn)
	if hoistReshapes(fn) {
		fuseLoop(fn, false, true)
	}
	return nil
}

// fuseLoop fuses until nothing changes; with padsOnly, only producers with
// a cheap body into consumers that read them through windows; with keep,
// also producers with other uses as a second result (keepsProducer).
func fuseLoop(fn *ir.Operation, padsOnly, keep bool) {
	for {
		changed := false
		uses := users(fn)
		var consumers []*ir.Operation
		fn.Walk(func(op *ir.Operation) bool {
			if op.Name == linalg.GenericName {
				consumers = append(consumers, op)
				return false
			}
			return true
		})
		for _, c := range consumers {
			cg, _ := linalg.AsGeneric(c)
			for i, in := range cg.Inputs() {
				p := in.Owner()
				pg, ok := linalg.AsGeneric(p)
				if !ok || len(p.Results) != 1 || p.Block() != c.Block() || !pg.IsElementwise() {
					continue
				}
				// A producer with other uses is fused only when it reads no
				// tensor (a fill): recomputing it is free; or, element for
				// element, as a second result of the consumer (keepsProducer).
				if uses[in] != 1 && !readsNoTensor(pg) {
					if keep && !padsOnly && keepsProducer(fn, pg, cg, i, uses) {
						changed = true
						break
					}
					continue
				}
				if padsOnly && (!windowed(cg.Maps()[i]) || !cheapBody(pg.Body())) {
					continue
				}
				if !padsOnly && rereads(cg, i) && !readsNoTensor(pg) {
					continue
				}
				if fused := fuse(pg, cg, i); fused != nil {
					ir.ReplaceAllUsesWith(fn, c.Results[0], fused.Results[0])
					for k := 1; k < len(c.Results); k++ {
						ir.ReplaceAllUsesWith(fn, c.Results[k], fused.Results[k])
					}
					c.Erase()
					if uses[in] == 1 {
						p.Erase()
					}
					changed = true
					break
				}
			}
			if changed {
				break
			}
		}
		if !changed {
			return
		}
	}
}

// fuse builds consumer c with its input i computed by producer p inline.
// It returns nil when the maps do not allow it.
func fuse(p, c linalg.Generic, i int) *ir.Operation { return fuseWith(p, c, i, false) }

// fuseWith is fuse; with keep, the producer's value is also the fused
// generic's last result (over p's own init, in c's loops).
func fuseWith(p, c linalg.Generic, i int, keep bool) *ir.Operation {
	cm := c.Maps()
	pm := p.Maps()
	n := c.NumLoops()
	pOut := pm[p.NumInputs()]
	// Producer loop j in consumer terms: the consumer's expression at the
	// position where the producer's output map has dj.
	subs := make([]ir.AffineExpr, p.NumLoops())
	for pos, r := range pOut.Results {
		d := r.(*ir.AffineDimExpr)
		subs[d.Pos] = cm[i].Results[pos]
	}
	pBody := p.Body()
	// A window reads each element several times: only a cheap producer
	// is recomputed at each read.
	if windowed(cm[i]) && !cheapBody(pBody) {
		return nil
	}
	for _, a := range pBody.Args[p.NumInputs():] {
		if usedIn(a, pBody) {
			return nil
		}
	}
	// linalg.index in the producer becomes the consumer's expression for
	// its loop, computed from the consumer's linalg.index values (a pad
	// fused into a convolution tests (2·oh + kh) for its border).
	for _, op := range pBody.Ops {
		if op.Name == "linalg.index" {
			dim := op.Attr("dim").(*ir.IntegerAttr).Value
			if !indexable(subs[dim]) {
				return nil
			}
		}
	}
	// New operands: consumer inputs before i, producer inputs, consumer
	// inputs after i, consumer outputs.
	var ins []*ir.Value
	var maps []*ir.AffineMap
	cIns := c.Inputs()
	ins = append(ins, cIns[:i]...)
	maps = append(maps, cm[:i]...)
	ins = append(ins, p.Inputs()...)
	for _, m := range pm[:p.NumInputs()] {
		maps = append(maps, compose(m, subs, n))
	}
	ins = append(ins, cIns[i+1:]...)
	maps = append(maps, cm[i+1:len(cIns)]...)
	maps = append(maps, cm[len(cIns):]...)
	if !everyLoopSized(maps, n) {
		return nil
	}
	b := ir.NewBuilder(c.Op.Loc)
	b.SetInsertionPointBefore(c.Op)
	its := c.Iterators()
	np := p.NumInputs()
	outs := c.Outputs()
	if keep {
		outs = append(append([]*ir.Value(nil), outs...), p.Outputs()...)
		maps = append(maps, cm[i])
	}
	return linalg.BuildGeneric(b, ins, outs, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		m := ir.Mapping{}
		for k := 0; k < np; k++ {
			m[pBody.Args[k]] = args[i+k]
		}
		var pYield *ir.Operation
		for _, op := range pBody.Ops {
			if op.Name == "linalg.yield" {
				pYield = op
				break
			}
			if op.Name == "linalg.index" {
				dim := op.Attr("dim").(*ir.IntegerAttr).Value
				m[op.Results[0]] = indexAt(bb, subs[dim])
				continue
			}
			bb.Clone(op, m)
		}
		cBody := c.Body()
		cm := ir.Mapping{}
		for k, a := range cBody.Args {
			switch {
			case k < i:
				cm[a] = args[k]
			case k == i:
				cm[a] = m.Lookup(pYield.Operands[0])
			default:
				cm[a] = args[k+np-1]
			}
		}
		for _, op := range cBody.Ops {
			if op.Name == "linalg.yield" {
				ys := make([]*ir.Value, len(op.Operands))
				for k, v := range op.Operands {
					ys[k] = cm.Lookup(v)
				}
				if keep {
					ys = append(ys, m.Lookup(pYield.Operands[0]))
				}
				return ys
			}
			bb.Clone(op, cm)
		}
		return nil
	})
}

// everyLoopSized reports whether each of the n loops is a plain dimension
// of some operand's map, which is where its size comes from. Fusing a
// producer that reads its input through an expression (a reverse reads at
// 2-d0) in place of the consumer's only plain use of a loop would leave
// that loop without a size.
func everyLoopSized(maps []*ir.AffineMap, n int) bool {
	sized := make([]bool, n)
	for _, m := range maps {
		for _, r := range m.Results {
			if d, ok := r.(*ir.AffineDimExpr); ok && d.Pos < n {
				sized[d.Pos] = true
			}
		}
	}
	for _, s := range sized {
		if !s {
			return false
		}
	}
	return true
}

// usedIn reports whether v is an operand of an op in blk (or nested).
func usedIn(v *ir.Value, blk *ir.Block) bool {
	found := false
	for _, op := range blk.Ops {
		op.Walk(func(o *ir.Operation) bool {
			for _, x := range o.Operands {
				if x == v {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// rereads reports whether consumer c reads each element of its input i
// more than once: it has a reduction loop and the input's map leaves out
// some loop (B of C = A·B is read once per row of C). An element-wise
// producer fused there would be recomputed at every read, and its body
// would keep codegen from recognizing a matrix product (MLIR's matmul
// after an element-wise op became a scalar loop nest: 1.9 ms instead of
// 65 µs for 16×32·32×12544). Pads, fused into the windows that read them
// before this runs, and producers that read no tensor (fills) are exempt.
func rereads(c linalg.Generic, i int) bool {
	reduces := false
	for _, it := range c.Iterators() {
		reduces = reduces || it != linalg.Parallel
	}
	if !reduces {
		return false
	}
	used := make([]bool, c.NumLoops())
	for _, r := range c.Maps()[i].Results {
		markDims(r, used)
	}
	for _, u := range used {
		if !u {
			return true
		}
	}
	return false
}

// markDims sets used[d] for every dimension d that e mentions.
func markDims(e ir.AffineExpr, used []bool) {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		if e.Pos < len(used) {
			used[e.Pos] = true
		}
	case *ir.AffineBinaryExpr:
		markDims(e.LHS, used)
		markDims(e.RHS, used)
	}
}

// readsNoTensor reports a generic whose inputs are all scalars.
func readsNoTensor(g linalg.Generic) bool {
	for _, in := range g.Inputs() {
		if _, ok := in.Type.(*ir.RankedTensorType); ok {
			return false
		}
	}
	return true
}

// forwardDims rewrites tensor.dim of a generic's result to tensor.dim of
// the matching init (they have the same shape), so shape queries do not
// count as uses that keep producers from fusing.
func forwardDims(fn *ir.Operation) {
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name != "tensor.dim" || len(op.Operands) != 2 {
			return true
		}
		for {
			src := op.Operands[0]
			g, ok := linalg.AsGeneric(src.Owner())
			if !ok {
				break
			}
			op.Operands[0] = g.Outputs()[src.Index()]
		}
		return true
	})
}
