package kir

import "math"

// op executes one op that is not control flow.
func (t *thread) op(op *Op) error {
	k := t.m.k
	var rt Type
	if len(op.Results) == 1 {
		rt = k.Types[op.Results[0]]
	}
	n := rt.Width()
	arg := func(i int) []uint64 { return t.vals[op.Args[i]] }
	out := func() []uint64 { return make([]uint64, n) }
	set := func(r []uint64) { t.vals[op.Results[0]] = r }
	splat := func(x uint64) {
		r := out()
		for i := range r {
			r[i] = x
		}
		set(r)
	}
	kind := op.Kind
	switch {
	case kind == ConstInt:
		splat(sext(uint64(op.Imm), rt.Elem.Bits()))
	case kind == ConstFloat:
		splat(fromF(rt.Elem, op.F))
	case kind == PushConstant:
		x := uint64(t.m.pcs[op.Imm])
		if rt.Width() == 2 {
			set([]uint64{sext(x, 32), sext(x>>32, 32)})
			break
		}
		splat(sext(x, rt.Elem.Bits()))
	case kind == WorkgroupID:
		splat(sext(uint64(t.m.wg[op.Imm]), rt.Elem.Bits()))
	case kind == WorkgroupCount:
		splat(sext(uint64(t.m.grid[op.Imm]), rt.Elem.Bits()))
	case kind == ThreadID:
		splat(sext(uint64(t.tid[op.Imm]), rt.Elem.Bits()))
	case kind == WorkgroupSize:
		splat(sext(uint64(k.WorkgroupSize[op.Imm]), rt.Elem.Bits()))
	case kind == SubgroupSize:
		splat(sext(uint64(t.m.sgSize), rt.Elem.Bits()))
	case kind == LaneID:
		splat(sext(uint64(t.linear%t.m.sgSize), rt.Elem.Bits()))
	case kind == Add || kind == Sub || kind == Mul || IsIntBinary(kind) || IsFloatBinary(kind):
		a, b, r := arg(0), arg(1), out()
		if rt.Elem.IsInt() {
			for i := range r {
				r[i] = intBin(kind, rt.Elem.Bits(), a[i], b[i])
			}
		} else {
			for i := range r {
				r[i] = floatBin(kind, rt.Elem, a[i], b[i])
			}
		}
		set(r)
	case IsUnary(kind):
		a, r := arg(0), out()
		for i := range r {
			if rt.Elem.IsInt() {
				r[i] = intUnary(kind, rt.Elem.Bits(), a[i])
			} else {
				r[i] = floatUnary(kind, rt.Elem, a[i])
			}
		}
		set(r)
	case kind == IsNaN || kind == IsInf || kind == IsFinite:
		a, r := arg(0), out()
		s := k.Types[op.Args[0]].Elem
		for i := range r {
			x := toF(s, a[i])
			switch kind {
			case IsNaN:
				r[i] = bit(math.IsNaN(x))
			case IsInf:
				r[i] = bit(math.IsInf(x, 0))
			default:
				r[i] = bit(!math.IsNaN(x) && !math.IsInf(x, 0))
			}
		}
		set(r)
	case kind == FMA:
		a, b, c, r := arg(0), arg(1), arg(2), out()
		for i := range r {
			r[i] = fmaLane(rt.Elem, a[i], b[i], c[i])
		}
		set(r)
	case kind == Select:
		c, a, b, r := arg(0), arg(1), arg(2), out()
		for i := range r {
			ci := c[0]
			if len(c) > 1 {
				ci = c[i]
			}
			if ci&1 != 0 {
				r[i] = a[i]
			} else {
				r[i] = b[i]
			}
		}
		set(r)
	case kind == CmpI || kind == CmpF:
		a, b, r := arg(0), arg(1), out()
		s := k.Types[op.Args[0]].Elem
		for i := range r {
			if kind == CmpI {
				r[i] = bit(cmpInt(Pred(op.Imm), s.Bits(), a[i], b[i]))
			} else {
				r[i] = bit(cmpFloat(Pred(op.Imm), toF(s, a[i]), toF(s, b[i])))
			}
		}
		set(r)
	case IsCast(kind):
		a, r := arg(0), out()
		from := k.Types[op.Args[0]].Elem
		for i := range r {
			r[i] = cast(kind, from, rt.Elem, a[i])
		}
		set(r)
	case kind == Broadcast:
		splat(arg(0)[0])
	case kind == Extract:
		set([]uint64{arg(0)[op.Imm]})
	case kind == Insert:
		r := append(out()[:0], arg(0)...)
		r[op.Imm] = arg(1)[0]
		set(r)
	case kind == LaneIota:
		r := out()
		for i := range r {
			r[i] = sext(uint64(i), rt.Elem.Bits())
		}
		set(r)
	case kind == Reduce:
		a := arg(0)
		acc := a[0]
		for _, x := range a[1:] {
			acc = reduceLane(ReduceKind(op.Imm), rt.Elem, acc, x)
		}
		set([]uint64{acc})
	default:
		return t.memOp(op, rt)
	}
	return nil
}

// fmaLane computes a*b+c rounded once (f32 and f64); f16 and bf16 compute
// the f32 fma and round it to their type.
func fmaLane(s Scalar, a, b, c uint64) uint64 {
	x, y, z := toF(s, a), toF(s, b), toF(s, c)
	if s == F64 {
		return fromF(s, math.FMA(x, y, z))
	}
	return fromF(s, float64(fma32(float32(x), float32(y), float32(z))))
}
