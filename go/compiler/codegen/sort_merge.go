package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// mergeSort sorts the slice of static length n held in the results
// (element i of operand k at at(i) in binding outs[k]) with a bottom-up
// merge sort: each pass merges runs of width w from one buffer into the
// other (the results and the scratch results, bound at tmp, laid out
// alike), taking the left element unless the comparator puts the right
// one strictly first, so equal elements keep their order. A final copy
// brings the data back when the passes end in scratch.
func (g *gen) mergeSort(op *ir.Operation, results []*ir.Value, outs, tmp []int, at func(*kir.Builder, kir.Value) kir.Value, n int64) error {
	load := func(b *kir.Builder, inScratch bool, k int, i kir.Value) kir.Value {
		t := kir.S(g.k.Bindings[outs[k]].Elem)
		if inScratch {
			return b.Load(tmp[k], t, at(b, i))
		}
		return b.Load(outs[k], t, at(b, i))
	}
	store := func(b *kir.Builder, inScratch bool, k int, i, v kir.Value) {
		if inScratch {
			b.Store(tmp[k], at(b, i), v)
		} else {
			b.Store(outs[k], at(b, i), v)
		}
	}
	decode := func(b *kir.Builder, k int, raw kir.Value) kir.Value {
		if f, ok := f8Of(ir.ElementTypeOf(results[k].Type)); ok {
			return f.decode(b, raw, 1)
		}
		return raw
	}
	one, nv := g.idx(1), g.idx(n)
	var err error
	inScratch := false
	for w := int64(1); w < n; w *= 2 {
		src, dst := inScratch, !inScratch
		pairs := (n + 2*w - 1) / (2 * w)
		g.b.For(g.idx(0), g.idx(pairs), one, nil, func(b *kir.Builder, p kir.Value, _ []kir.Value) []kir.Value {
			lo := b.Bin(kir.Mul, p, g.idx(2*w))
			mid := b.Bin(kir.MinS, b.Bin(kir.Add, lo, g.idx(w)), nv)
			hi := b.Bin(kir.MinS, b.Bin(kir.Add, lo, g.idx(2*w)), nv)
			midLast, hiLast := b.Bin(kir.Sub, mid, one), b.Bin(kir.Sub, hi, one)
			b.For(lo, hi, one, []kir.Value{lo, mid}, func(b *kir.Builder, x kir.Value, it []kir.Value) []kir.Value {
				i, j := it[0], it[1]
				iOK := b.Cmp(kir.CmpI, kir.PredSLT, i, mid)
				jOK := b.Cmp(kir.CmpI, kir.PredSLT, j, hi)
				ic, jc := b.Bin(kir.MinS, i, midLast), b.Bin(kir.MinS, j, hiLast)
				left := make([]kir.Value, len(outs))
				right := make([]kir.Value, len(outs))
				args := make([]kir.Value, 0, 2*len(outs))
				for k := range outs {
					left[k], right[k] = load(b, src, k, ic), load(b, src, k, jc)
					args = append(args, decode(b, k, right[k]), decode(b, k, left[k]))
				}
				ys, e := g.regionBody(b, op, args)
				if e == nil && len(ys) != 1 {
					e = ir.OpErrorf(op, "must yield one i1")
				}
				if e != nil {
					err = e
					return it
				}
				before := ys[0]
				if b.K.Type(before).Elem != kir.I1 {
					before = b.Cmp(kir.CmpI, kir.PredNE, before, b.Int(b.K.Type(before), 0))
				}
				// Right when the left run is done, or the right element is
				// strictly first.
				notI := b.Bin(kir.Xor, iOK, b.Int(kir.S(kir.I1), 1))
				takeR := b.Bin(kir.And, jOK, b.Bin(kir.Or, notI, before))
				for k := range outs {
					store(b, dst, k, x, b.Select(takeR, right[k], left[k]))
				}
				return []kir.Value{
					b.Select(takeR, i, b.Bin(kir.Add, i, one)),
					b.Select(takeR, b.Bin(kir.Add, j, one), j),
				}
			})
			return nil
		})
		inScratch = dst
	}
	if inScratch {
		g.b.For(g.idx(0), nv, one, nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			for k := range outs {
				store(b, false, k, i, load(b, true, k, i))
			}
			return nil
		})
	}
	return err
}
