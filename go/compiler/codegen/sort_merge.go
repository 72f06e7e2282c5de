package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// merger emits the merge passes of one sort: element i of operand k is at
// at(i) in binding outs[k] (the results) and tmp[k] (the scratch
// results, laid out alike).
type merger struct {
	g         *gen
	op        *ir.Operation
	results   []*ir.Value
	outs, tmp []int
	at        func(*kir.Builder, kir.Value) kir.Value
	err       error
}

func (m *merger) load(b *kir.Builder, inScratch bool, k int, i kir.Value) kir.Value {
	bi := m.outs[k]
	if inScratch {
		bi = m.tmp[k]
	}
	return b.Load(bi, kir.S(m.g.k.Bindings[m.outs[k]].Elem), m.at(b, i))
}

func (m *merger) store(b *kir.Builder, inScratch bool, k int, i, v kir.Value) {
	bi := m.outs[k]
	if inScratch {
		bi = m.tmp[k]
	}
	b.Store(bi, m.at(b, i), v)
}

// pass merges the runs of width w of the slice of length n from one
// buffer into the other (src says which holds the data), taking the left
// element unless the comparator puts the right one strictly first, so
// equal elements keep their order.
func (m *merger) pass(b *kir.Builder, src bool, w, n kir.Value) {
	g := m.g
	one := g.idx(1)
	w2 := b.Bin(kir.Add, w, w)
	pairs := b.Bin(kir.CeilDivS, n, w2)
	b.For(g.idx(0), pairs, one, nil, func(b *kir.Builder, p kir.Value, _ []kir.Value) []kir.Value {
		lo := b.Bin(kir.Mul, p, w2)
		mid := b.Bin(kir.MinS, b.Bin(kir.Add, lo, w), n)
		hi := b.Bin(kir.MinS, b.Bin(kir.Add, lo, w2), n)
		midLast, hiLast := b.Bin(kir.Sub, mid, one), b.Bin(kir.Sub, hi, one)
		b.For(lo, hi, one, []kir.Value{lo, mid}, func(b *kir.Builder, x kir.Value, it []kir.Value) []kir.Value {
			i, j := it[0], it[1]
			iOK := b.Cmp(kir.CmpI, kir.PredSLT, i, mid)
			jOK := b.Cmp(kir.CmpI, kir.PredSLT, j, hi)
			ic, jc := b.Bin(kir.MinS, i, midLast), b.Bin(kir.MinS, j, hiLast)
			left := make([]kir.Value, len(m.outs))
			right := make([]kir.Value, len(m.outs))
			args := make([]kir.Value, 0, 2*len(m.outs))
			for k := range m.outs {
				left[k], right[k] = m.load(b, src, k, ic), m.load(b, src, k, jc)
				args = append(args, m.decode(b, k, right[k]), m.decode(b, k, left[k]))
			}
			ys, e := g.regionBody(b, m.op, args)
			if e == nil && len(ys) != 1 {
				e = ir.OpErrorf(m.op, "must yield one i1")
			}
			if e != nil {
				m.err = e
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
			for k := range m.outs {
				m.store(b, !src, k, x, b.Select(takeR, right[k], left[k]))
			}
			return []kir.Value{
				b.Select(takeR, i, b.Bin(kir.Add, i, one)),
				b.Select(takeR, b.Bin(kir.Add, j, one), j),
			}
		})
		return nil
	})
}

func (m *merger) decode(b *kir.Builder, k int, raw kir.Value) kir.Value {
	if f, ok := f8Of(ir.ElementTypeOf(m.results[k].Type)); ok {
		return f.decode(b, raw, 1)
	}
	return raw
}

// copyBack copies the scratch slice of length n to the results.
func (m *merger) copyBack(b *kir.Builder, n kir.Value) {
	b.For(m.g.idx(0), n, m.g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		for k := range m.outs {
			m.store(b, false, k, i, m.load(b, true, k, i))
		}
		return nil
	})
}

// mergeSort sorts the slice held in the results with a bottom-up merge
// sort through the scratch results. A static length n (≥ 0) unrolls the
// passes; otherwise nv is the length and the passes run two per
// iteration of a loop over widths 4^t, each under a test that it is
// needed. A final copy brings the data back when the passes end in
// scratch.
func (g *gen) mergeSort(op *ir.Operation, results []*ir.Value, outs, tmp []int, at func(*kir.Builder, kir.Value) kir.Value, n int64, nv kir.Value) error {
	m := &merger{g: g, op: op, results: results, outs: outs, tmp: tmp, at: at}
	b := g.b
	if n >= 0 {
		inScratch := false
		for w := int64(1); w < n; w *= 2 {
			m.pass(b, inScratch, g.idx(w), nv)
			inScratch = !inScratch
		}
		if inScratch {
			m.copyBack(b, nv)
		}
		return m.err
	}
	no := b.Int(kir.S(kir.I1), 0)
	last := b.For(g.idx(0), g.idx(32), g.idx(1), []kir.Value{no}, func(b *kir.Builder, t kir.Value, it []kir.Value) []kir.Value {
		w := b.Bin(kir.Shl, g.idx(1), b.Bin(kir.Add, t, t))
		w2 := b.Bin(kir.Add, w, w)
		first := b.Cmp(kir.CmpI, kir.PredSLT, w, nv)
		second := b.Cmp(kir.CmpI, kir.PredSLT, w2, nv)
		b.If(first, nil, func(b *kir.Builder) []kir.Value {
			m.pass(b, false, w, nv)
			return nil
		}, nil)
		b.If(second, nil, func(b *kir.Builder) []kir.Value {
			m.pass(b, true, w2, nv)
			return nil
		}, nil)
		// The data is in scratch after an odd number of passes.
		odd := b.Bin(kir.And, first, b.Bin(kir.Xor, second, b.Int(kir.S(kir.I1), 1)))
		return []kir.Value{b.Bin(kir.Or, it[0], odd)}
	})
	b.If(last[0], nil, func(b *kir.Builder) []kir.Value {
		m.copyBack(b, nv)
		return nil
	}, nil)
	return m.err
}
