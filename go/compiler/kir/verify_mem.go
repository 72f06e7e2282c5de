package kir

// checkVectorMemory checks vector, memory, thread-level and tile ops.
func (v *verifier) checkVectorMemory(op *Op, ts []Type, rt Type) error {
	nargs := func(n int) error {
		if len(ts) != n {
			return v.errf(op, "has %d operands, want %d", len(ts), n)
		}
		return nil
	}
	idx := func(is ...int) error {
		for _, i := range is {
			if !IsIndexType(ts[i]) {
				return v.errf(op, "operand %d has type %s, want i64", i, ts[i])
			}
		}
		return nil
	}
	switch op.Kind {
	case Broadcast:
		if err := nargs(1); err != nil {
			return err
		}
		if ts[0].IsVector() || ts[0].Elem != rt.Elem {
			return v.errf(op, "broadcasts %s to %s; want a scalar of the element type", ts[0], rt)
		}
	case Extract:
		if err := nargs(1); err != nil {
			return err
		}
		if rt.IsVector() || ts[0].Elem != rt.Elem {
			return v.errf(op, "extracts %s from %s", rt, ts[0])
		}
		if op.Imm < 0 || op.Imm >= int64(ts[0].Width()) {
			return v.errf(op, "lane %d out of range for %s", op.Imm, ts[0])
		}
	case Insert:
		if err := nargs(2); err != nil {
			return err
		}
		if !SameType(ts[0], rt) || ts[1].IsVector() || ts[1].Elem != rt.Elem {
			return v.errf(op, "inserts %s into %s giving %s", ts[1], ts[0], rt)
		}
		if op.Imm < 0 || op.Imm >= int64(rt.Width()) {
			return v.errf(op, "lane %d out of range for %s", op.Imm, rt)
		}
	case LaneIota:
		if err := nargs(0); err != nil {
			return err
		}
		if !rt.Elem.IsInt() {
			return v.errf(op, "result %s is not an integer vector", rt)
		}
	case Reduce, SubgroupReduce:
		if err := nargs(1); err != nil {
			return err
		}
		if rt.IsVector() || ts[0].Elem != rt.Elem || (op.Kind == SubgroupReduce && ts[0].IsVector()) {
			return v.errf(op, "reduces %s to %s", ts[0], rt)
		}
		if op.Imm < 0 || op.Imm > int64(ReduceXor) || !ReduceKindFits(ReduceKind(op.Imm), rt.Elem) {
			return v.errf(op, "reduction kind %d does not apply to %s", op.Imm, rt.Elem)
		}
	case Load, LoadStrided, LoadShared:
		n := 1
		if op.Kind == LoadStrided {
			n = 2
		}
		if err := nargs(n); err != nil {
			return err
		}
		if err := idx(0, n-1); err != nil {
			return err
		}
		elem, err := v.memElem(op, Read)
		if err != nil {
			return err
		}
		if rt.Elem != elem {
			return v.errf(op, "loads %s from a buffer of %s", rt, elem)
		}
	case Store, StoreStrided, StoreShared:
		n := 2
		if op.Kind == StoreStrided {
			n = 3
		}
		if err := nargs(n); err != nil {
			return err
		}
		if err := idx(0, n-2); err != nil {
			return err
		}
		elem, err := v.memElem(op, Write)
		if err != nil {
			return err
		}
		if ts[n-1].Elem != elem {
			return v.errf(op, "stores %s to a buffer of %s", ts[n-1], elem)
		}
	case AtomicRMW:
		if err := nargs(2); err != nil {
			return err
		}
		if err := idx(0); err != nil {
			return err
		}
		if op.Imm < 0 || op.Imm > int64(AtomicOr) {
			return v.errf(op, "atomic kind %d out of range", op.Imm)
		}
		elem, err := v.binding(op, op.Binding, Write)
		if err != nil {
			return err
		}
		if elem != I32 || !SameType(ts[1], S(I32)) {
			return v.errf(op, "combines %s into a buffer of %s; atomics are defined on scalar i32 elements", ts[1], elem)
		}
	case FetchAdd, SpinUntil:
		if err := nargs(2); err != nil {
			return err
		}
		if err := idx(0); err != nil {
			return err
		}
		elem, err := v.binding(op, op.Binding, ReadWrite)
		if err != nil {
			return err
		}
		if elem != I32 || !SameType(ts[1], S(I32)) || (op.Kind == FetchAdd && !SameType(rt, S(I32))) {
			return v.errf(op, "counts with %s in a buffer of %s; counters are scalar i32 elements", ts[1], elem)
		}
	case Barrier:
		if op.Imm != 0 && op.Imm != BarrierBindings {
			return v.errf(op, "barrier flags %d (0 or BarrierBindings)", op.Imm)
		}
		return nargs(0)
	case SubgroupShuffle:
		if err := nargs(2); err != nil {
			return err
		}
		if !SameType(ts[0], rt) {
			return v.errf(op, "shuffles %s giving %s", ts[0], rt)
		}
		return idx(1)
	case Contract, DWConv:
		if v.threads > 1 {
			ws := v.k.WorkgroupSize
			return v.errf(op, "is a tile op, defined for one-thread workgroups only, but the workgroup has %dx%dx%d = %d threads, each of which would compute the whole tile; distribute the tile over the threads with thread-level ops instead", ws[0], ws[1], ws[2], v.threads)
		}
		if op.Kind == Contract {
			return v.contract(op, ts)
		}
		return v.dwconv(op, ts)
	default:
		return v.errf(op, "unknown op kind")
	}
	return nil
}

// memElem checks the binding or shared allocation op refers to and returns
// its element type.
func (v *verifier) memElem(op *Op, need Access) (Scalar, error) {
	switch op.Kind {
	case LoadShared, StoreShared:
		if op.Binding < 0 || op.Binding >= len(v.k.Shared) {
			return 0, v.errf(op, "shared allocation %d of %d", op.Binding, len(v.k.Shared))
		}
		return v.k.Shared[op.Binding].Elem, nil
	}
	return v.binding(op, op.Binding, need)
}

func (v *verifier) binding(op *Op, i int, need Access) (Scalar, error) {
	if i < 0 || i >= len(v.k.Bindings) {
		return 0, v.errf(op, "binding %d of %d", i, len(v.k.Bindings))
	}
	b := v.k.Bindings[i]
	if b.Access&need != need {
		return 0, v.errf(op, "needs %s access to binding %d, which is %s", need, i, b.Access)
	}
	return b.Elem, nil
}

// tileMem checks a tile op's memory operand b (Kernel.TileMem): a
// binding with the access needed, or a shared allocation.
func (v *verifier) tileMem(op *Op, b int, need Access) (Scalar, error) {
	e, shared, ok := v.k.TileMem(b)
	if ok && shared >= 0 {
		return e, nil
	}
	return v.binding(op, b, need)
}

func (v *verifier) contract(op *Op, ts []Type) error {
	if op.Imm&^(ContractUnsigned|ContractZero|contractEpilogueFlags) != 0 {
		return v.errf(op, "flags %#x: only bits 0 (zero-extend), 1 (C starts at zero) and 2-6 (epilogue) are defined", op.Imm)
	}
	if _, n := ContractOperands(op.Imm); len(ts) != n {
		return v.errf(op, "has %d operands, want %d", len(ts), n)
	}
	for i, t := range ts[:12] {
		if !SameType(t, S(Index)) {
			return v.errf(op, "operand %d has type %s, want i64", i, t)
		}
	}
	a, err := v.tileMem(op, op.Bindings[0], Read)
	if err != nil {
		return err
	}
	b, err := v.tileMem(op, op.Bindings[1], Read)
	if err != nil {
		return err
	}
	need := ReadWrite
	if op.Imm&ContractZero != 0 {
		need = Write
	}
	c, err := v.tileMem(op, op.Bindings[2], need)
	if err != nil {
		return err
	}
	if a.IsFloat() != c.IsFloat() || b.IsFloat() != c.IsFloat() {
		return v.errf(op, "mixes %s·%s into %s; operands and accumulator must all be integers or all floats", a, b, c)
	}
	return v.verifyContractEpilogue(op, ts, c)
}

func (v *verifier) dwconv(op *Op, ts []Type) error {
	if op.Imm&^(DWConvBias|DWConvMax|DWConvMin) != 0 {
		return v.errf(op, "flags %#x: only bits 0 (bias), 1 (maximumf) and 2 (minimumf) are defined", op.Imm)
	}
	if n := DWConvOperands(op.Imm); len(ts) != n {
		return v.errf(op, "has %d operands, want %d", len(ts), n)
	}
	nIdx := DWConvArgs
	if op.Imm&DWConvBias != 0 {
		nIdx += 2
	}
	for i, t := range ts {
		want := S(Index)
		if i >= nIdx {
			want = S(F32)
		}
		if !SameType(t, want) {
			return v.errf(op, "operand %d has type %s, want %s", i, t, want)
		}
	}
	bs := op.Bindings[:]
	access := []Access{Read, Read, Write}
	if op.Imm&DWConvBias != 0 {
		bs = append(bs, op.Binding)
		access = append(access, Read)
	}
	for i, b := range bs {
		check := v.tileMem
		if i == 3 {
			check = v.binding // the bias
		}
		e, err := check(op, b, access[i])
		if err != nil {
			return err
		}
		if e != F32 {
			return v.errf(op, "binding %d holds %s; dwconv is defined for f32", b, e)
		}
	}
	return nil
}
