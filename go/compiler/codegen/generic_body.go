package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// point emits the work of one point (w lanes along the vectorized loop)
// of the parallel loops: load the inits, run the reduction loops (if any)
// carrying the outputs, and store the results.
func (l *genericLowering) point(b *kir.Builder, ivs []kir.Value, w int) error {
	g := l.g
	nOut := len(l.op.Outputs())
	outAcc := make([]access, nOut)
	inits := make([]kir.Value, nOut)
	for j := 0; j < nOut; j++ {
		if l.epi == nil {
			r := l.results[j]
			outAcc[j] = l.address(b, r, g.bindingOf[r], l.maps[l.nIn+j], ivs, w)
		}
		src := l.initOf[j]
		switch {
		case src.fill != nil:
			s, err := g.scalarCapture(src.fill)
			if err != nil {
				return l.errorf("%v", err)
			}
			inits[j] = g.topBroadcast(s, w)
		case src.binding >= 0:
			a := outAcc[j]
			if l.epi != nil || src.binding != a.binding {
				a = l.address(b, l.g.d.Bindings[src.binding], src.binding, l.maps[l.nIn+j], ivs, w)
			}
			inits[j] = l.load(b, a, w)
		default:
			inits[j] = -1
		}
	}
	var outs []kir.Value
	var err error
	if len(l.reds) == 0 {
		outs, err = l.body(b, ivs, w, inits)
	} else {
		outs, err = l.reduce(b, ivs, w, 0, inits)
	}
	if err != nil {
		return err
	}
	if l.epi != nil {
		vals, accs, err := l.runEpilogue(b, ivs, w, outs)
		if err != nil {
			return err
		}
		outs, outAcc = vals, accs
	}
	if l.coop {
		// Every thread holds the results; the first stores them.
		b.If(b.Cmp(kir.CmpI, kir.PredEQ, l.tid, g.idx(0)), nil, func(b *kir.Builder) []kir.Value {
			for j := range outs {
				l.store(b, outAcc[j], outs[j], w)
			}
			return nil
		}, nil)
		return nil
	}
	for j := range outs {
		l.store(b, outAcc[j], outs[j], w)
	}
	return nil
}

// reduce emits reduction loop i carrying the outputs.
func (l *genericLowering) reduce(b *kir.Builder, ivs []kir.Value, w, i int, accs []kir.Value) ([]kir.Value, error) {
	if i == len(l.reds) {
		return l.body(b, ivs, w, accs)
	}
	k := l.reds[i]
	if l.coop && i == len(l.reds)-1 {
		return l.reduceCooperative(b, ivs, k, accs)
	}
	if l.redVec && i == len(l.reds)-1 {
		return l.reduceVector(b, ivs, k, accs)
	}
	if s := l.sizes[k].static; l.unrollReds && s >= 0 {
		// One body per iteration, each with its index known (the caller
		// bounds the bodies).
		for v := int64(0); v < s; v++ {
			l.setRange(k, &interval{v, v})
			ivs[k] = l.g.idx(v)
			out, err := l.reduce(b, ivs, w, i+1, accs)
			l.setRange(k, nil)
			if err != nil {
				return nil, err
			}
			accs = out
		}
		return accs, nil
	}
	var err error
	res := b.For(l.g.idx(0), l.sizes[k].value, l.g.idx(1), accs, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
		ivs[k] = iv
		out, e := l.reduce(b, ivs, w, i+1, iters)
		if e != nil {
			err = e
			return iters
		}
		return out
	})
	return res, err
}

func broadcast(b *kir.Builder, v kir.Value, w int) kir.Value {
	if w <= 1 || b.K.Type(v).IsVector() {
		return v
	}
	return b.Emit(kir.Broadcast, kir.V(b.K.Type(v).Elem, w), v)
}

// body translates the generic's scalar body at one point; outs are the
// current output values (the out block arguments).
func (l *genericLowering) body(b *kir.Builder, ivs []kir.Value, w int, outs []kir.Value) ([]kir.Value, error) {
	g := l.g
	blk := l.op.Body()
	vals := map[*ir.Value]kir.Value{}
	operands := l.op.Op.Operands
	for i, arg := range blk.Args {
		if !l.used[i] {
			continue
		}
		if i >= l.nIn {
			if outs[i-l.nIn] < 0 {
				return nil, l.errorf("reads output %d, whose initial value is unknown", i-l.nIn)
			}
			vals[arg] = outs[i-l.nIn]
			continue
		}
		in := operands[i]
		if kv, ok := g.locals[in]; ok {
			vals[arg] = broadcast(b, kv, w)
			continue
		}
		if _, ok := in.Type.(*ir.RankedTensorType); !ok {
			s, err := g.scalarCapture(in)
			if err != nil {
				return nil, l.errorf("%v", err)
			}
			vals[arg] = g.topBroadcast(s, w)
			continue
		}
		a := l.address(b, in, g.bindingOf[in], l.maps[i], ivs, w)
		vals[arg] = l.load(b, a, w)
	}
	get := func(v *ir.Value) (kir.Value, error) {
		if kv, ok := vals[v]; ok {
			return kv, nil
		}
		if kv, ok := g.locals[v]; ok {
			return broadcast(b, kv, w), nil
		}
		// Defined outside the generic: a captured scalar.
		s, err := g.scalarCapture(v)
		if err != nil {
			return 0, l.errorf("%v", err)
		}
		return g.topBroadcast(s, w), nil
	}
	rng := map[*ir.Value]interval{}
	for _, op := range blk.Ops {
		l.indexBounds(op, rng)
		if v, ok := decidedCmp(op, rng); ok {
			vals[op.Results[0]] = boolConst(b, v, w)
			continue
		}
		switch op.Name {
		case "linalg.yield":
			ys := make([]kir.Value, len(op.Operands))
			for i, v := range op.Operands {
				y, err := get(v)
				if err != nil {
					return nil, err
				}
				ys[i] = broadcast(b, y, w)
			}
			return ys, nil
		case "linalg.index":
			dim, _ := op.Attr("dim").(*ir.IntegerAttr)
			if dim == nil || int(dim.Value) >= len(ivs) {
				return nil, ir.OpErrorf(op, "has an invalid dimension")
			}
			iv := ivs[dim.Value]
			if int(dim.Value) == l.vecDim && w > 1 {
				iv = b.Bin(kir.Add, broadcast(b, iv, w), b.Emit(kir.LaneIota, kir.V(kir.I64, w)))
			}
			vals[op.Results[0]] = broadcast(b, iv, w)
		case "arith.constant":
			c, err := g.topConstant(op, w)
			if err != nil {
				return nil, err
			}
			vals[op.Results[0]] = c
		case "tensor.extract":
			v, err := l.extract(b, op, get, w)
			if err != nil {
				return nil, err
			}
			vals[op.Results[0]] = v
		default:
			rs, err := scalarOp(b, op, w, get)
			if err != nil {
				return nil, err
			}
			for i, r := range rs {
				vals[op.Results[i]] = r
			}
		}
	}
	return nil, l.errorf("body has no linalg.yield")
}

// extract loads one element of a tensor captured by the body, or w
// lanes of one when its indices are linear in the vectorized loop (see
// extractsLinear).
func (l *genericLowering) extract(b *kir.Builder, op *ir.Operation, get func(*ir.Value) (kir.Value, error), w int) (kir.Value, error) {
	g := l.g
	t := op.Operands[0]
	bi, err := g.bind(t, kir.Read)
	if err != nil {
		return 0, ir.OpErrorf(op, "%v", err)
	}
	if w > 1 {
		idx := make([]kir.Value, len(op.Operands)-1)
		for r, iv := range op.Operands[1:] {
			if idx[r], err = get(iv); err != nil {
				return 0, err
			}
		}
		v := l.extractVector(b, op, bi, idx, w)
		if f, ok := f8Of(ir.ElementTypeOf(t.Type)); ok {
			v = f.decode(b, v, w)
		}
		return v, nil
	}
	var off kir.Value = -1
	for r, iv := range op.Operands[1:] {
		x, err := get(iv)
		if err != nil {
			return 0, err
		}
		term := b.Bin(kir.Mul, x, g.strides[t][r])
		if off < 0 {
			off = term
		} else {
			off = b.Bin(kir.Add, off, term)
		}
	}
	if off < 0 {
		off = g.idx(0)
	}
	v := b.Load(bi, kir.S(g.k.Bindings[bi].Elem), off)
	if f, ok := f8Of(ir.ElementTypeOf(t.Type)); ok {
		v = f.decode(b, v, 1)
	}
	return v, nil
}
