package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// lowerTopKV2 runs IREE's topk_v2 algorithm on one workgroup per slice:
// the outputs start as their initial values; every input element, in
// order, is carried through the K outputs, swapping places with each one
// the region puts after it (indices swap on the same test, or on equal
// values when the carried index is smaller); with is_sorted, a bubble
// sort of the outputs (swapping unless the region keeps the order)
// follows each insertion.
func (g *gen) lowerTopKV2(op *ir.Operation, results []*ir.Value) error {
	seg := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr).Ints
	dim := int(op.Attr("dimension").(*ir.IntegerAttr).Value)
	hasIn, hasOut := seg[1] == 1, seg[3] == 1
	vals := op.Operands[0]
	next := 1
	var inIdx *ir.Value
	if hasIn {
		inIdx, next = op.Operands[1], 2
	}
	initV := op.Operands[next]
	var initI *ir.Value
	if hasOut {
		initI = op.Operands[next+1]
	}
	bind := func(v *ir.Value, a kir.Access) (int, error) {
		i, err := g.bind(v, a)
		if err != nil {
			return 0, ir.OpErrorf(op, "%v", err)
		}
		return i, nil
	}
	bv, err := bind(vals, kir.Read)
	if err != nil {
		return err
	}
	bInit, err := bind(initV, kir.Read)
	if err != nil {
		return err
	}
	bOut, err := bind(results[0], kir.ReadWrite)
	if err != nil {
		return err
	}
	bIn, bInitI, bOutI := -1, -1, -1
	if hasIn {
		if bIn, err = bind(inIdx, kir.Read); err != nil {
			return err
		}
	}
	if hasOut {
		if bInitI, err = bind(initI, kir.Read); err != nil {
			return err
		}
		if bOutI, err = bind(results[1], kir.ReadWrite); err != nil {
			return err
		}
	}
	vt := vals.Type.(*ir.RankedTensorType)
	grid := kir.GridDim{Static: 1, Tile: 1}
	for d, sz := range vt.Dims {
		switch {
		case d == dim:
		case sz >= 0:
			grid.Static *= sz
		default:
			grid.PushConstants = append(grid.PushConstants, g.pushOf[Push{Value: vals, Dim: d}])
		}
	}
	g.k.Grid[0] = grid
	b := g.b
	rem := b.Query(kir.WorkgroupID, 0)
	baseIn, baseOut := g.idx(0), g.idx(0)
	inDims, inStr, outStr := g.dims[vals], g.strides[vals], g.strides[results[0]]
	for d := len(inDims) - 1; d >= 0; d-- {
		if d == dim {
			continue
		}
		c := b.Bin(kir.RemU, rem, inDims[d])
		rem = b.Bin(kir.DivU, rem, inDims[d])
		baseIn = b.Bin(kir.Add, baseIn, b.Bin(kir.Mul, c, inStr[d]))
		baseOut = b.Bin(kir.Add, baseOut, b.Bin(kir.Mul, c, outStr[d]))
	}
	inAt := func(b *kir.Builder, i kir.Value) kir.Value {
		return b.Bin(kir.Add, baseIn, b.Bin(kir.Mul, i, inStr[dim]))
	}
	outAt := func(b *kir.Builder, i kir.Value) kir.Value {
		return b.Bin(kir.Add, baseOut, b.Bin(kir.Mul, i, outStr[dim]))
	}
	N, K := inDims[dim], g.dims[results[0]][dim]
	one := g.idx(1)
	idxT := kir.Type{}
	if hasOut {
		idxT = kir.S(g.k.Bindings[bOutI].Elem)
	}
	// The outputs start as their initial values.
	b.For(g.idx(0), K, one, nil, func(b *kir.Builder, k kir.Value, _ []kir.Value) []kir.Value {
		off := outAt(b, k)
		b.Store(bOut, off, b.Load(bInit, kir.S(g.k.Bindings[bInit].Elem), off))
		if hasOut {
			b.Store(bOutI, off, b.Load(bInitI, idxT, off))
		}
		return nil
	})
	cmp := func(b *kir.Builder, x, y kir.Value) kir.Value {
		ys, e := g.regionBody(b, op, []kir.Value{x, y})
		if e == nil && len(ys) != 1 {
			e = ir.OpErrorf(op, "must yield one i1")
		}
		if e != nil {
			err = e
			return b.Int(kir.S(kir.I1), 0)
		}
		c := ys[0]
		if b.K.Type(c).Elem != kir.I1 {
			c = b.Cmp(kir.CmpI, kir.PredNE, c, b.Int(b.K.Type(c), 0))
		}
		return c
	}
	b.For(g.idx(0), N, one, nil, func(b *kir.Builder, n kir.Value, _ []kir.Value) []kir.Value {
		_, cv := g.loadElem(b, vals, bv, inAt(b, n))
		carry := []kir.Value{cv}
		if hasOut {
			var ci kir.Value
			if hasIn {
				ci = b.Load(bIn, kir.S(g.k.Bindings[bIn].Elem), inAt(b, n))
				ci = convertInt(b, ci, idxT.Elem)
			} else {
				ci = convertInt(b, n, idxT.Elem)
			}
			carry = append(carry, ci)
		}
		b.For(g.idx(0), K, one, carry, func(b *kir.Builder, k kir.Value, it []kir.Value) []kir.Value {
			off := outAt(b, k)
			_, kv := g.loadElem(b, results[0], bOut, off)
			f := cmp(b, it[0], kv)
			g.storeElem(b, results[0], bOut, off, b.Select(f, it[0], kv))
			out := []kir.Value{b.Select(f, kv, it[0])}
			if hasOut {
				ki := b.Load(bOutI, idxT, off)
				r := cmp(b, kv, it[0])
				eq := b.Cmp(kir.CmpI, kir.PredEQ, f, r)
				first := b.Cmp(kir.CmpI, kir.PredSLT, it[1], ki)
				ic := b.Bin(kir.Or, f, b.Bin(kir.And, eq, first))
				b.Store(bOutI, off, b.Select(ic, it[1], ki))
				out = append(out, b.Select(ic, ki, it[1]))
			}
			return out
		})
		if op.Attr("is_sorted") != nil {
			g.bubbleSort(b, results, bOut, bOutI, idxT, K, outAt, cmp)
		}
		return nil
	})
	return err
}

// bubbleSort is IREE's pass over the K outputs: K-1 sweeps of adjacent
// pairs, swapping (values and indices) unless the region keeps the pair's
// order.
func (g *gen) bubbleSort(b *kir.Builder, results []*ir.Value, bOut, bOutI int, idxT kir.Type, K kir.Value,
	at func(*kir.Builder, kir.Value) kir.Value, cmp func(*kir.Builder, kir.Value, kir.Value) kir.Value) {
	one := g.idx(1)
	last := b.Bin(kir.Sub, K, one)
	b.For(g.idx(0), b.Bin(kir.MaxS, last, g.idx(0)), one, nil, func(b *kir.Builder, s kir.Value, _ []kir.Value) []kir.Value {
		b.For(g.idx(0), b.Bin(kir.Sub, last, s), one, nil, func(b *kir.Builder, j kir.Value, _ []kir.Value) []kir.Value {
			lo, hi := at(b, j), at(b, b.Bin(kir.Add, j, one))
			rawL, l := g.loadElem(b, results[0], bOut, lo)
			rawH, h := g.loadElem(b, results[0], bOut, hi)
			keep := cmp(b, l, h)
			b.Store(bOut, lo, b.Select(keep, rawL, rawH))
			b.Store(bOut, hi, b.Select(keep, rawH, rawL))
			if bOutI >= 0 {
				il, ih := b.Load(bOutI, idxT, lo), b.Load(bOutI, idxT, hi)
				b.Store(bOutI, lo, b.Select(keep, il, ih))
				b.Store(bOutI, hi, b.Select(keep, ih, il))
			}
			return nil
		})
		return nil
	})
}

// convertInt sign-extends or truncates an integer scalar to s.
func convertInt(b *kir.Builder, v kir.Value, s kir.Scalar) kir.Value {
	from := b.K.Type(v).Elem
	switch {
	case from == s:
		return v
	case from.Bits() < s.Bits():
		return b.Emit(kir.ExtS, kir.S(s), v)
	}
	return b.Emit(kir.TruncI, kir.S(s), v)
}
