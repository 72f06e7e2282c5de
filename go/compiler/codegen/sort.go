package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// lowerSort sorts every slice along the sort dimension on a workgroup of
// its own (the grid spans the other dimensions): the operands are copied
// to the results, then sorted stably there, all operands moving together:
// by a bottom-up merge sort through the op's scratch results when it has
// them (dynamic slices, and static ones of linalg.SortScratchMin or more
// elements), else by an insertion sort.
func (g *gen) lowerSort(op *ir.Operation, results []*ir.Value) error {
	da, ok := op.Attr("dimension").(*ir.IntegerAttr)
	rt, ok2 := results[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || da.Value < 0 || int(da.Value) >= len(rt.Dims) {
		return ir.OpErrorf(op, "needs a dimension within the operands' rank")
	}
	dim := int(da.Value)
	var scratch []*ir.Value
	if len(results) == 2*len(op.Operands) {
		results, scratch = results[:len(op.Operands)], results[len(op.Operands):]
	}
	if len(op.Operands) != len(results) {
		return ir.OpErrorf(op, "needs one result per operand")
	}
	ins := make([]int, len(results))
	outs := make([]int, len(results))
	for k, v := range op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || !sameShape(t.Dims, rt.Dims) {
			return ir.OpErrorf(op, "needs operands of one shape")
		}
		var err error
		if ins[k], err = g.bind(v, kir.Read); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		if outs[k], err = g.bind(results[k], kir.ReadWrite); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
	}
	dims, strides := g.dims[results[0]], g.strides[results[0]]
	// One workgroup per slice.
	grid := kir.GridDim{Static: 1, Tile: 1}
	for d, sz := range rt.Dims {
		switch {
		case d == dim:
		case sz >= 0:
			grid.Static *= sz
		default:
			grid.PushConstants = append(grid.PushConstants, g.pushOf[Push{Value: results[0], Dim: d}])
		}
	}
	g.k.Grid[0] = grid
	b := g.b
	rem := b.Query(kir.WorkgroupID, 0)
	base := g.idx(0)
	for d := len(dims) - 1; d >= 0; d-- {
		if d == dim {
			continue
		}
		c := b.Bin(kir.RemU, rem, dims[d])
		rem = b.Bin(kir.DivU, rem, dims[d])
		base = b.Bin(kir.Add, base, b.Bin(kir.Mul, c, strides[d]))
	}
	st, n := strides[dim], dims[dim]
	at := func(b *kir.Builder, i kir.Value) kir.Value { return b.Bin(kir.Add, base, b.Bin(kir.Mul, i, st)) }
	b.For(g.idx(0), n, g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		off := at(b, i)
		for k := range ins {
			b.Store(outs[k], off, b.Load(ins[k], kir.S(g.k.Bindings[ins[k]].Elem), off))
		}
		return nil
	})
	if scratch != nil {
		tmp := make([]int, len(scratch))
		for k, v := range scratch {
			var err error
			if tmp[k], err = g.bind(v, kir.ReadWrite); err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
		}
		return g.mergeSort(op, results, outs, tmp, at, rt.Dims[dim], n)
	}
	return g.insertionSort(op, results, outs, at, n, st)
}

// insertionSort sorts the slice in place in the results: each element
// moves left past the elements the comparator puts after it (stable; the
// time is quadratic, for short or dynamic slices).
func (g *gen) insertionSort(op *ir.Operation, results []*ir.Value, outs []int, at func(*kir.Builder, kir.Value) kir.Value, n, st kir.Value) error {
	b := g.b
	var err error
	b.For(g.idx(1), n, g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		offI := at(b, i)
		keyRaw := make([]kir.Value, len(outs))
		keys := make([]kir.Value, len(outs))
		for k := range outs {
			keyRaw[k], keys[k] = g.loadElem(b, results[k], outs[k], offI)
		}
		no := b.Int(kir.S(kir.I1), 0)
		pos := b.For(g.idx(0), i, g.idx(1), []kir.Value{i, no}, func(b *kir.Builder, t kir.Value, it []kir.Value) []kir.Value {
			j := b.Bin(kir.Sub, b.Bin(kir.Sub, i, g.idx(1)), t)
			offJ := at(b, j)
			raw := make([]kir.Value, len(outs))
			args := make([]kir.Value, 0, 2*len(outs))
			for k := range outs {
				var v kir.Value
				raw[k], v = g.loadElem(b, results[k], outs[k], offJ)
				args = append(args, keys[k], v)
			}
			ys, e := g.regionBody(b, op, args)
			if e == nil && len(ys) != 1 {
				e = ir.OpErrorf(op, "must yield one i1")
			}
			if e != nil {
				err = e
				return it
			}
			less := ys[0]
			if b.K.Type(less).Elem != kir.I1 {
				less = b.Cmp(kir.CmpI, kir.PredNE, less, b.Int(b.K.Type(less), 0))
			}
			done := it[1]
			move := b.Bin(kir.And, less, b.Bin(kir.Xor, done, b.Int(kir.S(kir.I1), 1)))
			b.If(move, nil, func(b *kir.Builder) []kir.Value {
				next := b.Bin(kir.Add, offJ, st)
				for k := range outs {
					b.Store(outs[k], next, raw[k])
				}
				return nil
			}, nil)
			p := b.Select(move, j, it[0])
			stop := b.Bin(kir.Or, done, b.Bin(kir.Xor, less, b.Int(kir.S(kir.I1), 1)))
			return []kir.Value{p, stop}
		})
		offP := at(b, pos[0])
		for k := range outs {
			b.Store(outs[k], offP, keyRaw[k])
		}
		return nil
	})
	return err
}

// sameShape reports equal ranks and equal sizes where both are static.
func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] >= 0 && b[i] >= 0 && a[i] != b[i] {
			return false
		}
	}
	return true
}
