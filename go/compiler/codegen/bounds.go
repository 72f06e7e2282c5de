package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// interval is the range [lo, hi] an index value of a generic's body takes
// over the lanes and loop points being emitted.
type interval struct{ lo, hi int64 }

// boundLimit keeps interval arithmetic far from int64 overflow.
const boundLimit = int64(1) << 40

// loopRange returns the range of loop k's index: the narrowed range of the
// points being emitted (ranges), or the whole loop when its size is static.
func (l *genericLowering) loopRange(k int) (interval, bool) {
	if r, ok := l.ranges[k]; ok {
		return r, true
	}
	if s := l.sizes[k].static; s >= 1 {
		return interval{0, s - 1}, true
	}
	return interval{}, false
}

// indexBounds propagates intervals through the index arithmetic of a body
// op: linalg.index, integer constants, addi, subi and muli. It records the
// result's interval in rng when known.
func (l *genericLowering) indexBounds(op *ir.Operation, rng map[*ir.Value]interval) {
	if len(op.Results) != 1 {
		return
	}
	r := op.Results[0]
	if !wideIndex(r.Type) {
		// Narrower integers wrap: their intervals are not tracked.
		return
	}
	switch op.Name {
	case "linalg.index":
		if dim, ok := op.Attr("dim").(*ir.IntegerAttr); ok && int(dim.Value) < len(l.its) {
			if it, ok := l.loopRange(int(dim.Value)); ok {
				rng[r] = it
			}
		}
	case "arith.constant":
		if c, ok := op.Attr("value").(*ir.IntegerAttr); ok && c.Value > -boundLimit && c.Value < boundLimit {
			rng[r] = interval{c.Value, c.Value}
		}
	case "arith.addi", "arith.subi", "arith.muli":
		a, aok := rng[op.Operands[0]]
		b, bok := rng[op.Operands[1]]
		if !aok || !bok {
			return
		}
		var out interval
		switch op.Name {
		case "arith.addi":
			out = interval{a.lo + b.lo, a.hi + b.hi}
		case "arith.subi":
			out = interval{a.lo - b.hi, a.hi - b.lo}
		default:
			ps := []int64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
			out = interval{ps[0], ps[0]}
			for _, p := range ps[1:] {
				out.lo, out.hi = min(out.lo, p), max(out.hi, p)
			}
		}
		if out.lo > -boundLimit && out.hi < boundLimit {
			rng[r] = out
		}
	}
}

// decidedCmp returns the value of an arith.cmpi that its operands'
// intervals decide (a pad's border test inside the range where no read
// wraps is always true).
func decidedCmp(op *ir.Operation, rng map[*ir.Value]interval) (bool, bool) {
	if op.Name != "arith.cmpi" || len(op.Operands) != 2 {
		return false, false
	}
	a, aok := rng[op.Operands[0]]
	b, bok := rng[op.Operands[1]]
	p, pok := op.Attr("predicate").(*ir.IntegerAttr)
	if !aok || !bok || !pok {
		return false, false
	}
	pred := p.Value
	if pred >= 6 {
		// Unsigned predicates agree with the signed ones on non-negative
		// operands.
		if a.lo < 0 || b.lo < 0 {
			return false, false
		}
		pred -= 4
	}
	switch pred {
	case 0: // eq
		return decidedEq(a, b)
	case 1: // ne
		if v, ok := decidedEq(a, b); ok {
			return !v, true
		}
	case 2: // lt
		if a.hi < b.lo {
			return true, true
		}
		if a.lo >= b.hi {
			return false, true
		}
	case 3: // le
		if a.hi <= b.lo {
			return true, true
		}
		if a.lo > b.hi {
			return false, true
		}
	case 4: // gt
		if a.lo > b.hi {
			return true, true
		}
		if a.hi <= b.lo {
			return false, true
		}
	case 5: // ge
		if a.lo >= b.hi {
			return true, true
		}
		if a.hi < b.lo {
			return false, true
		}
	}
	return false, false
}

func decidedEq(a, b interval) (bool, bool) {
	if a.lo == a.hi && b.lo == b.hi && a.lo == b.lo {
		return true, true
	}
	if a.hi < b.lo || b.hi < a.lo {
		return false, true
	}
	return false, false
}

// boolConst returns a constant i1 of w lanes.
func boolConst(b *kir.Builder, v bool, w int) kir.Value {
	t := kir.S(kir.I1)
	if w > 1 {
		t = kir.V(kir.I1, w)
	}
	x := int64(0)
	if v {
		x = 1
	}
	return b.Int(t, x)
}

// wideIndex reports index and i64, whose arithmetic on bounded values
// does not wrap.
func wideIndex(t ir.Type) bool {
	switch t := t.(type) {
	case *ir.IndexType:
		return true
	case *ir.IntegerType:
		return t.Width == 64
	}
	return false
}

// affineRange returns the range of a linear affine expression over the
// loop ranges of the points being emitted.
func (l *genericLowering) affineRange(e ir.AffineExpr) (interval, bool) {
	coef, c, ok := linearForm(e, len(l.its))
	if !ok {
		return interval{}, false
	}
	out := interval{c, c}
	for k, a := range coef {
		if a == 0 {
			continue
		}
		r, ok := l.loopRange(k)
		if !ok || a > boundLimit || a < -boundLimit {
			return interval{}, false
		}
		lo, hi := a*r.lo, a*r.hi
		out.lo += min(lo, hi)
		out.hi += max(lo, hi)
		if out.lo < -boundLimit || out.hi > boundLimit {
			return interval{}, false
		}
	}
	return out, true
}

// emitIndex emits e at ivs like emitAffine, but a result X mod n whose X
// stays in one block [q·n, (q+1)·n) over the points being emitted (a
// pad's read inside the range where it does not wrap) is X - q·n, with no
// division.
func (l *genericLowering) emitIndex(b *kir.Builder, e ir.AffineExpr, ivs []kir.Value) kir.Value {
	if m, ok := e.(*ir.AffineBinaryExpr); ok && m.Kind == ir.AffineMod {
		if n, ok := m.RHS.(*ir.AffineConstantExpr); ok && n.Value > 0 {
			if r, ok := l.affineRange(m.LHS); ok {
				if q := floorDiv(r.lo, n.Value); floorDiv(r.hi, n.Value) == q {
					x := emitAffine(b, l.g, m.LHS, ivs)
					if q != 0 {
						x = b.Bin(kir.Sub, x, l.g.idx(q*n.Value))
					}
					return x
				}
			}
		}
	}
	return emitAffine(b, l.g, e, ivs)
}

// setRange narrows loop k's range to r, or (r nil) ends the narrowing.
func (l *genericLowering) setRange(k int, r *interval) {
	if r == nil {
		delete(l.ranges, k)
		return
	}
	if l.ranges == nil {
		l.ranges = map[int]interval{}
	}
	l.ranges[k] = *r
}
