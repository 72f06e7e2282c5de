package kir

// Op classes shared by the verifier and the interpreter.

// IsIntBinary reports the binary ops defined only on integers.
func IsIntBinary(k Kind) bool { return k >= DivS && k <= ShrU }

// IsFloatBinary reports the binary ops defined only on floats.
func IsFloatBinary(k Kind) bool { return k >= DivF && k <= CopySign }

// IsUnary reports the unary elementwise ops (a) → x.
func IsUnary(k Kind) bool { return k >= NegF && k <= CtPop }

// IsIntUnary reports the unary ops defined only on integers.
func IsIntUnary(k Kind) bool { return k == AbsI || k == CtLz || k == CtTz || k == CtPop }

// IsCast reports the conversion ops (a) → Type.
func IsCast(k Kind) bool { return k >= ExtS && k <= Bitcast }

// ReduceKindFits reports whether r can combine elements of type s.
func ReduceKindFits(r ReduceKind, s Scalar) bool {
	switch r {
	case ReduceAdd, ReduceMul:
		return true
	case ReduceMinF, ReduceMaxF:
		return s.IsFloat()
	case ReduceMinS, ReduceMaxS, ReduceMinU, ReduceMaxU, ReduceAnd, ReduceOr, ReduceXor:
		return s.IsInt()
	}
	return false
}

// CastFits reports whether conversion k from elements of type from to
// elements of type to is valid.
func CastFits(k Kind, from, to Scalar) bool {
	switch k {
	case ExtS, ExtU:
		return from.IsInt() && to.IsInt() && to.Bits() > from.Bits()
	case TruncI:
		return from.IsInt() && to.IsInt() && to.Bits() < from.Bits()
	case SIToFP, UIToFP:
		return from.IsInt() && to.IsFloat()
	case FPToSI, FPToUI:
		return from.IsFloat() && to.IsInt()
	case FPExt:
		return from.IsFloat() && to.IsFloat() && to.Bits() > from.Bits()
	case FPTrunc:
		return from.IsFloat() && to.IsFloat() && to.Bits() < from.Bits()
	case Bitcast:
		return from.Bits() == to.Bits()
	}
	return false
}

func (v *verifier) check(op *Op, ts []Type) error {
	switch op.Kind {
	case For:
		return v.forOp(op, ts)
	case If:
		return v.ifOp(op, ts)
	}
	nres := 1
	switch op.Kind {
	case Store, StoreStrided, StoreShared, AtomicRMW, SpinUntil, Barrier, Contract, DWConv:
		nres = 0
	}
	if len(op.Results) != nres {
		return v.errf(op, "has %d results, want %d", len(op.Results), nres)
	}
	var rt Type
	if nres == 1 {
		r := op.Results[0]
		if r < 0 || int(r) >= len(v.k.Types) {
			return v.errf(op, "result %%%d has no type", r)
		}
		rt = v.k.Types[r]
	}
	nargs := func(n int) error {
		if len(ts) != n {
			return v.errf(op, "has %d operands, want %d", len(ts), n)
		}
		return nil
	}
	k := op.Kind
	switch {
	case k == ConstInt || k == ConstFloat:
		if err := nargs(0); err != nil {
			return err
		}
		if (k == ConstInt) != rt.Elem.IsInt() {
			return v.errf(op, "cannot make a constant of type %s", rt)
		}
	case k == PushConstant:
		if op.Imm < 0 || op.Imm >= int64(v.k.NumPushConstants) {
			return v.errf(op, "push constant %d of %d", op.Imm, v.k.NumPushConstants)
		}
		if SameType(rt, V(I32, 2)) {
			return nil // both words
		}
		return v.indexResult(op, ts, rt)
	case k == WorkgroupID || k == WorkgroupCount || k == ThreadID || k == WorkgroupSize:
		if op.Imm < 0 || op.Imm > 2 {
			return v.errf(op, "dimension %d out of 0..2", op.Imm)
		}
		return v.indexResult(op, ts, rt)
	case k == SubgroupSize || k == LaneID:
		return v.indexResult(op, ts, rt)
	case k == Add || k == Sub || k == Mul || IsIntBinary(k) || IsFloatBinary(k):
		if err := nargs(2); err != nil {
			return err
		}
		if !SameType(ts[0], ts[1]) || !SameType(ts[0], rt) {
			return v.errf(op, "operand types %s, %s and result %s differ", ts[0], ts[1], rt)
		}
		if IsIntBinary(k) && !rt.Elem.IsInt() || IsFloatBinary(k) && !rt.Elem.IsFloat() {
			return v.errf(op, "not defined on %s", rt)
		}
	case IsUnary(k):
		if err := nargs(1); err != nil {
			return err
		}
		if !SameType(ts[0], rt) {
			return v.errf(op, "operand %s and result %s differ", ts[0], rt)
		}
		if IsIntUnary(k) != rt.Elem.IsInt() {
			return v.errf(op, "not defined on %s", rt)
		}
	case k == IsNaN || k == IsInf || k == IsFinite:
		if err := nargs(1); err != nil {
			return err
		}
		if !ts[0].Elem.IsFloat() || !SameType(rt, V(I1, ts[0].Width())) {
			return v.errf(op, "takes a float and gives i1 of as many lanes, not %s to %s", ts[0], rt)
		}
	case k == FMA:
		if err := nargs(3); err != nil {
			return err
		}
		if !rt.Elem.IsFloat() || !SameType(ts[0], rt) || !SameType(ts[1], rt) || !SameType(ts[2], rt) {
			return v.errf(op, "operands %s, %s, %s and result %s must be the same float type", ts[0], ts[1], ts[2], rt)
		}
	case k == Select:
		if err := nargs(3); err != nil {
			return err
		}
		if ts[0].Elem != I1 || (ts[0].Width() != 1 && ts[0].Width() != rt.Width()) {
			return v.errf(op, "condition has type %s; want i1 or %d lanes of i1", ts[0], rt.Width())
		}
		if !SameType(ts[1], rt) || !SameType(ts[2], rt) {
			return v.errf(op, "operands %s, %s and result %s differ", ts[1], ts[2], rt)
		}
	case k == CmpI || k == CmpF:
		if err := nargs(2); err != nil {
			return err
		}
		if !SameType(ts[0], ts[1]) || (k == CmpI) != ts[0].Elem.IsInt() {
			return v.errf(op, "compares %s with %s", ts[0], ts[1])
		}
		maxPred := int64(PredUGE)
		if k == CmpF {
			maxPred = int64(FPredTrue)
		}
		if op.Imm < 0 || op.Imm > maxPred {
			return v.errf(op, "predicate %d out of range", op.Imm)
		}
		if !SameType(rt, V(I1, ts[0].Width())) {
			return v.errf(op, "result %s, want i1 with %d lanes", rt, ts[0].Width())
		}
	case IsCast(k):
		if err := nargs(1); err != nil {
			return err
		}
		if ts[0].Width() != rt.Width() || !CastFits(k, ts[0].Elem, rt.Elem) {
			return v.errf(op, "cannot convert %s to %s", ts[0], rt)
		}
	default:
		return v.checkVectorMemory(op, ts, rt)
	}
	return nil
}

func (v *verifier) indexResult(op *Op, ts []Type, rt Type) error {
	if len(ts) != 0 {
		return v.errf(op, "takes no operands")
	}
	if !IsIndexType(rt) {
		return v.errf(op, "result has type %s, want i64", rt)
	}
	return nil
}
