package ptx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// translate emits one op that is not a Yield.
func (e *emitter) translate(op *kir.Op) {
	k := op.Kind
	var rt kir.Type
	if len(op.Results) == 1 {
		rt = e.k.Types[op.Results[0]]
	}
	switch {
	case k == kir.For:
		e.forOp(op)
	case k == kir.If:
		e.ifOp(op)
	case k == kir.ConstInt || k == kir.ConstFloat:
		e.constant(op, rt)
	case k >= kir.PushConstant && k <= kir.LaneID:
		e.query(op, rt)
	case k == kir.Add || k == kir.Sub || k == kir.Mul || kir.IsIntBinary(k) || kir.IsFloatBinary(k):
		e.lanewise(op, rt, func(i int) string {
			a, b := e.lane(op.Args[0], i), e.lane(op.Args[1], i)
			if rt.Elem.IsInt() {
				return e.intBinary(k, rt.Elem, a, b)
			}
			return e.floatBinary(k, rt.Elem, a, b)
		})
	case kir.IsUnary(k):
		e.lanewise(op, rt, func(i int) string {
			if rt.Elem.IsInt() {
				return e.intUnary(k, rt.Elem, e.lane(op.Args[0], i))
			}
			return e.floatUnary(k, rt.Elem, e.lane(op.Args[0], i))
		})
	case k == kir.IsNaN || k == kir.IsInf || k == kir.IsFinite:
		s := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) string { return e.classify(k, s, e.lane(op.Args[0], i)) })
	case k == kir.FMA:
		e.lanewise(op, rt, func(i int) string {
			return e.fma(rt.Elem, e.lane(op.Args[0], i), e.lane(op.Args[1], i), e.lane(op.Args[2], i))
		})
	case k == kir.Select:
		e.lanewise(op, rt, func(i int) string {
			return e.selectLane(rt.Elem, e.lane(op.Args[0], i), e.lane(op.Args[1], i), e.lane(op.Args[2], i))
		})
	case k == kir.CmpI || k == kir.CmpF:
		s := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) string {
			a, b := e.lane(op.Args[0], i), e.lane(op.Args[1], i)
			if k == kir.CmpI {
				return e.cmpInt(kir.Pred(op.Imm), s, a, b)
			}
			return e.cmpFloat(kir.Pred(op.Imm), s, a, b)
		})
	case kir.IsCast(k):
		from := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) string { return e.convert(k, from, rt.Elem, e.lane(op.Args[0], i)) })
	case k >= kir.Broadcast && k <= kir.Reduce:
		e.vector(op, rt)
	case k == kir.Load || k == kir.LoadStrided || k == kir.LoadShared:
		e.load(op, rt)
	case k == kir.Store || k == kir.StoreStrided || k == kir.StoreShared:
		e.store(op)
	case k == kir.AtomicRMW:
		e.atomicRMW(op)
	case k == kir.Barrier:
		e.barrier(op.Imm == kir.BarrierBindings)
	case k == kir.SubgroupReduce:
		e.set(op.Results[0], []string{e.subgroupReduce(kir.ReduceKind(op.Imm), rt.Elem, e.lane(op.Args[0], 0))})
	case k == kir.SubgroupShuffle:
		e.subgroupShuffle(op, rt)
	default:
		e.failf(status.Unimplemented, "op %d: %s is not implemented by the PTX target", e.opNo, k)
	}
}

// selectLane picks a (cond set) or b, lanes of s.
func (e *emitter) selectLane(s kir.Scalar, c, a, b string) string {
	r := e.regOf(s)
	if s == kir.I1 {
		t, f := e.reg(clsPred), e.reg(clsPred)
		e.ins("and.pred %s, %s, %s", t, c, a)
		e.ins("not.pred %s, %s", f, c)
		e.ins("and.pred %s, %s, %s", f, f, b)
		e.ins("or.pred %s, %s, %s", r, t, f)
		return r
	}
	e.ins("selp.%s %s, %s, %s, %s", movType(classOf(s)), r, a, b, c)
	return r
}

// Vectors are scalarized: a value of N lanes is N registers, so
// Broadcast, Extract and Insert only rearrange registers (no register is
// written twice while a value using it is live), and Reduce combines the
// lanes in order, lane 0 first.

// vector translates Broadcast, Extract, Insert, LaneIota and Reduce.
func (e *emitter) vector(op *kir.Op, rt kir.Type) {
	switch op.Kind {
	case kir.Broadcast:
		x := e.lane(op.Args[0], 0)
		e.lanewise(op, rt, func(int) string { return x })
	case kir.Extract:
		e.set(op.Results[0], []string{e.lane(op.Args[0], int(op.Imm))})
	case kir.Insert:
		lanes := append([]string(nil), e.vals[op.Args[0]]...)
		for len(lanes) < rt.Width() {
			lanes = append(lanes, lanes[0])
		}
		lanes[op.Imm] = e.lane(op.Args[1], 0)
		e.set(op.Results[0], lanes)
	case kir.LaneIota:
		e.lanewise(op, rt, func(i int) string { return e.imm(classOf(rt.Elem), uint64(i)) })
	case kir.Reduce:
		src := e.k.Types[op.Args[0]]
		acc := e.lane(op.Args[0], 0)
		for i := 1; i < src.Width(); i++ {
			acc = e.combine(kir.ReduceKind(op.Imm), rt.Elem, acc, e.lane(op.Args[0], i))
		}
		e.set(op.Results[0], []string{acc})
	}
}

// reduceKinds maps reduction kinds to the binary op that combines.
var reduceKinds = map[kir.ReduceKind]kir.Kind{
	kir.ReduceAdd: kir.Add, kir.ReduceMul: kir.Mul, kir.ReduceMinS: kir.MinS, kir.ReduceMaxS: kir.MaxS,
	kir.ReduceMinU: kir.MinU, kir.ReduceMaxU: kir.MaxU, kir.ReduceMinF: kir.MinF, kir.ReduceMaxF: kir.MaxF,
	kir.ReduceAnd: kir.And, kir.ReduceOr: kir.Or, kir.ReduceXor: kir.Xor,
}

// combine applies reduction kind r to two lanes of s.
func (e *emitter) combine(r kir.ReduceKind, s kir.Scalar, a, b string) string {
	k, ok := reduceKinds[r]
	if !ok {
		e.failf(status.InvalidArgument, "op %d: unknown reduction kind %d", e.opNo, r)
	}
	if s.IsInt() {
		return e.intBinary(k, s, a, b)
	}
	return e.floatBinary(k, s, a, b)
}
