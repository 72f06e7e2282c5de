package gpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// NarrowIndices computes k's index arithmetic in i32 (see LowerInt64's
// comment for what an index is and the int32-range assumption): every
// index value becomes i32 — push constants and id queries then read
// their low 32 bits, For bounds and induction variables, offsets,
// strides and shuffle lanes are i32. Where an index flows into i64 data
// it is sign-extended (ExtS), except a push constant, which is read again
// as an i64; where i64 data flows into an index operand it is narrowed
// with saturation (an int32 value stays, others become the int32 minimum
// or maximum: out of bounds as an offset). i64 data stays i64, for
// EmulateInt64. A loop bound that is an i64 constant outside the int32
// range is a FAILED_PRECONDITION error.
//
// The result is a kernel kir does not accept yet: it needs kir to accept
// i32 wherever it now requires kir.Index — the results of PushConstant
// (the push constant's low 32 bits) and of the id queries, For bounds and
// induction variables (all of one type), the offsets and strides of loads
// and stores, and the lane of SubgroupShuffle — and, for EmulateInt64
// after it, a PushConstant of type vector<2xi32> (the push constant's low
// and high words).
func NarrowIndices(k *kir.Kernel) error {
	n := &narrower{rewriter: newRewriter(k), c: classifyI64(k)}
	for v := range n.c.i64 {
		if n.c.isIndex(kir.Value(v)) {
			k.Types[v].Elem = kir.I32
		}
	}
	body, err := n.block(k.Body, nil, nil)
	if err != nil {
		return err
	}
	k.Body = body
	return nil
}

type narrower struct {
	rewriter
	c *i64Classes
}

// block rebuilds blk; its Yield carries values into the slots yieldTo.
func (n *narrower) block(blk *kir.Block, args, yieldTo []kir.Value) (*kir.Block, error) {
	if args == nil {
		args = blk.Args
	}
	nb, outer := n.enter(args)
	defer n.leave(outer)
	for _, op := range blk.Ops {
		if err := n.op(op, yieldTo); err != nil {
			return nil, err
		}
	}
	return nb, nil
}

func (n *narrower) op(op *kir.Op, yieldTo []kir.Value) error {
	orig := append([]kir.Value(nil), op.Args...) // before renaming: the types the op was built for
	n.rename(op)
	for _, j := range sinkArgs(op) {
		v, err := n.sink(op, op.Args[j])
		if err != nil {
			return err
		}
		op.Args[j] = v
	}
	switch op.Kind {
	case kir.For:
		body := op.Regions[0]
		for i := range op.Results {
			if n.c.isIndex(orig[3+i]) {
				op.Args[3+i] = n.slot(op.Args[3+i], body.Args[1+i])
			}
		}
		nb, err := n.block(body, nil, body.Args[1:])
		if err != nil {
			return err
		}
		op.Regions[0] = nb
	case kir.If:
		for i, r := range op.Regions {
			if len(r.Ops) == 0 {
				continue
			}
			nb, err := n.block(r, nil, op.Results)
			if err != nil {
				return err
			}
			op.Regions[i] = nb
		}
	case kir.Yield:
		for i, a := range op.Args {
			if i < len(yieldTo) && n.c.isIndex(orig[i]) {
				op.Args[i] = n.slot(a, yieldTo[i])
			}
		}
	case kir.TruncI:
		if a := op.Args[0]; n.c.isIndex(orig[0]) && n.k.Types[op.Results[0]].Elem == kir.I32 {
			n.sub[op.Results[0]] = a // now an i32 already
			return nil
		}
	default:
		sinks := sinkArgs(op)
		for j, a := range op.Args {
			if !contains(sinks, j) && n.c.isIndex(orig[j]) && n.needsI64(op, j) {
				op.Args[j] = n.widen(a)
			}
		}
	}
	n.b.Append(op)
	return nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// needsI64 reports whether operand j of op, an index, must be i64 data
// there.
func (n *narrower) needsI64(op *kir.Op, j int) bool {
	if len(op.Results) == 1 && n.c.isData(op.Results[0]) {
		return true
	}
	switch op.Kind {
	case kir.CmpI:
		return n.c.isData(op.Args[1-j])
	case kir.Store, kir.StoreStrided, kir.StoreShared:
		return true // the value stored to i64 memory
	case kir.UIToFP:
		return !n.c.nn(op.Args[j])
	case kir.Bitcast:
		return true
	}
	return false
}

// slot converts v, flowing into the loop-carried value or If result
// target, to target's class.
func (n *narrower) slot(v, target kir.Value) kir.Value {
	if n.c.isData(target) && n.c.isIndex(v) {
		return n.widen(v)
	}
	return v
}

// widen sign-extends the (narrowed) index v to i64 data.
func (n *narrower) widen(v kir.Value) kir.Value {
	t := n.k.Types[v]
	key := memoKey{what: memoExt, v: v}
	if w, ok := n.memo[key]; ok {
		return w
	}
	wt := kir.Type{Elem: kir.I64, Lanes: t.Lanes}
	if x, ok := n.constOf(v); ok {
		return n.remember(key, n.cint(wt, x))
	}
	if d := n.def[v]; d != nil && d.Kind == kir.PushConstant {
		// Data, all 64 bits (EmulateInt64 reads both words).
		return n.remember(key, n.b.EmitImm(kir.PushConstant, wt, d.Imm))
	}
	return n.remember(key, n.b.Emit(kir.ExtS, wt, v))
}

// sink returns v, an operand op requires to be an index, as an i32
// index: i64 data narrowed with saturation.
func (n *narrower) sink(op *kir.Op, v kir.Value) (kir.Value, error) {
	if !n.c.isData(v) {
		return v, nil
	}
	key := memoKey{what: memoIndex, v: v}
	if w, ok := n.memo[key]; ok {
		return w, nil
	}
	t := n.k.Types[v]
	it := kir.Type{Elem: kir.I32, Lanes: t.Lanes}
	if x, ok := n.constOf(v); ok {
		if op.Kind == kir.For {
			return 0, status.Errorf(status.FailedPrecondition, "gpu: kernel %s: a loop bound is the constant %d, outside the int32 range that index arithmetic is narrowed to", n.k.Name, x)
		}
		return n.remember(key, n.cint(it, int64(satInt32(x)))), nil
	}
	// Extensions of narrower integers are in range: use their source.
	if d := n.def[v]; d != nil && (d.Kind == kir.ExtS || d.Kind == kir.ExtU) {
		src := d.Args[0]
		bits := n.k.Types[src].Elem.Bits()
		switch {
		case bits == 32 && d.Kind == kir.ExtS:
			return n.remember(key, src), nil
		case bits < 32:
			return n.remember(key, n.b.Emit(d.Kind, it, src)), nil
		}
	}
	tr := n.b.Emit(kir.TruncI, it, v)
	fits := n.b.Cmp(kir.CmpI, kir.PredEQ, n.b.Emit(kir.ExtS, t, tr), v)
	neg := n.b.Cmp(kir.CmpI, kir.PredSLT, v, n.cint(t, 0))
	sat := n.b.Select(neg, n.cint(it, math.MinInt32), n.cint(it, math.MaxInt32))
	return n.remember(key, n.b.Select(fits, tr, sat)), nil
}

// satInt32 clamps x to the int32 range.
func satInt32(x int64) int32 {
	return int32(min(max(x, math.MinInt32), math.MaxInt32))
}
