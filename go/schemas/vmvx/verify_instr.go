package vmvx

import "fmt"

// Comparison predicates and reduction kinds, numbered as in package kir.
const (
	MaxIntPred   = 9  // eq ne slt sle sgt sge ult ule ugt uge
	MaxFloatPred = 15 // false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true
)

// Reduction kinds for Reduce and SubgroupReduce.
const (
	ReduceAdd = iota
	ReduceMul
	ReduceMinS
	ReduceMaxS
	ReduceMinU
	ReduceMaxU
	ReduceMinF
	ReduceMaxF
	ReduceAnd
	ReduceOr
	ReduceXor
)

// ReduceFits reports whether reduction kind k applies to element type e.
func ReduceFits(k int64, e Elem) bool {
	switch k {
	case ReduceAdd, ReduceMul:
		return true
	case ReduceMinF, ReduceMaxF:
		return e.IsFloat()
	case ReduceMinS, ReduceMaxS, ReduceMinU, ReduceMaxU, ReduceAnd, ReduceOr, ReduceXor:
		return e.IsInt()
	}
	return false
}

// CastFits reports whether conversion op from element type from to to is
// valid (kir's rules: extensions widen, truncations narrow, bitcasts keep
// the width).
func CastFits(op Opcode, from, to Elem) bool {
	switch op {
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

var index = RegType{Elem: I64, Lanes: 1}

func (v *instrVerifier) instr(in *Instr) error {
	if err := v.operands(in); err != nil {
		return err
	}
	reg := func(r uint32) RegType { return v.e.Regs[r] }
	var d RegType
	if in.Op.HasDst() {
		d = reg(in.Dst)
	}
	a := make([]RegType, len(in.Args))
	for i, r := range in.Args {
		a[i] = reg(r)
	}
	indices := func(from int) error {
		for i := from; i < len(a); i++ {
			if a[i] != index {
				return fmt.Errorf("operand %d is %s, want i64", i, a[i])
			}
		}
		return nil
	}
	op := in.Op
	switch {
	case op == ConstInt && !d.Elem.IsInt(), op == ConstFloat && !d.Elem.IsFloat():
		return fmt.Errorf("cannot hold a constant in %s", d)
	case op == ConstInt, op == ConstFloat:
	case op == PushConstant:
		if in.Imm < 0 || in.Imm >= int64(v.e.NumPushConstants) {
			return fmt.Errorf("push constant %d of %d", in.Imm, v.e.NumPushConstants)
		}
		return wantIndex(d)
	case op >= WorkgroupID && op <= WorkgroupSize:
		if in.Imm < 0 || in.Imm > 2 {
			return fmt.Errorf("dimension %d out of 0..2", in.Imm)
		}
		return wantIndex(d)
	case op == SubgroupSize, op == LaneID:
		return wantIndex(d)
	case op >= Add && op <= CopySign:
		if a[0] != d || a[1] != d {
			return fmt.Errorf("operands %s, %s and result %s differ", a[0], a[1], d)
		}
		if op >= DivS && op <= ShrU && !d.Elem.IsInt() || op >= DivF && !d.Elem.IsFloat() {
			return fmt.Errorf("not defined on %s", d)
		}
	case op >= NegF && op <= CtPop:
		if a[0] != d {
			return fmt.Errorf("operand %s and result %s differ", a[0], d)
		}
		intOp := op == AbsI || op == CtLz || op == CtTz || op == CtPop
		if intOp != d.Elem.IsInt() {
			return fmt.Errorf("not defined on %s", d)
		}
	case op >= IsNaN && op <= IsFinite:
		if !a[0].Elem.IsFloat() || d != (RegType{I1, a[0].Lanes}) {
			return fmt.Errorf("takes a float and gives i1 of as many lanes, not %s to %s", a[0], d)
		}
	case op == FMA:
		if !d.Elem.IsFloat() || a[0] != d || a[1] != d || a[2] != d {
			return fmt.Errorf("operands and result must be the same float type")
		}
	case op == Select:
		if a[0].Elem != I1 || a[0].Lanes != 1 && a[0].Lanes != d.Lanes || a[1] != d || a[2] != d {
			return fmt.Errorf("select %s ? %s : %s into %s", a[0], a[1], a[2], d)
		}
	case op == CmpI || op == CmpF:
		maxPred := int64(MaxIntPred)
		if op == CmpF {
			maxPred = MaxFloatPred
		}
		if a[0] != a[1] || (op == CmpI) != a[0].Elem.IsInt() || d != (RegType{I1, a[0].Lanes}) {
			return fmt.Errorf("compares %s with %s into %s", a[0], a[1], d)
		}
		if in.Imm < 0 || in.Imm > maxPred {
			return fmt.Errorf("predicate %d out of range", in.Imm)
		}
	case op >= ExtS && op <= Bitcast:
		if a[0].Lanes != d.Lanes || !CastFits(op, a[0].Elem, d.Elem) {
			return fmt.Errorf("cannot convert %s to %s", a[0], d)
		}
	case op == Mov:
		if a[0] != d {
			return fmt.Errorf("moves %s into %s", a[0], d)
		}
	default:
		return v.vectorMemory(in, d, a, indices)
	}
	return nil
}

func wantIndex(d RegType) error {
	if d != index {
		return fmt.Errorf("result register is %s, want i64", d)
	}
	return nil
}

func (v *instrVerifier) vectorMemory(in *Instr, d RegType, a []RegType, indices func(int) error) error {
	switch in.Op {
	case Broadcast:
		if a[0].Lanes != 1 || a[0].Elem != d.Elem {
			return fmt.Errorf("broadcasts %s to %s", a[0], d)
		}
	case Extract:
		if d.Lanes != 1 || a[0].Elem != d.Elem || in.Imm < 0 || in.Imm >= int64(a[0].Lanes) {
			return fmt.Errorf("extracts lane %d of %s into %s", in.Imm, a[0], d)
		}
	case Insert:
		if a[0] != d || a[1] != (RegType{d.Elem, 1}) || in.Imm < 0 || in.Imm >= int64(d.Lanes) {
			return fmt.Errorf("inserts %s at lane %d of %s into %s", a[1], in.Imm, a[0], d)
		}
	case LaneIota:
		if !d.Elem.IsInt() {
			return fmt.Errorf("result %s is not an integer register", d)
		}
	case Reduce, SubgroupReduce:
		if d.Lanes != 1 || a[0].Elem != d.Elem || in.Op == SubgroupReduce && a[0].Lanes != 1 {
			return fmt.Errorf("reduces %s into %s", a[0], d)
		}
		if !ReduceFits(in.Imm, d.Elem) {
			return fmt.Errorf("reduction kind %d does not apply to %s", in.Imm, d.Elem)
		}
	case Load, LoadStrided, LoadShared:
		e, err := v.memory(in, Read)
		if err != nil {
			return err
		}
		if d.Elem != e {
			return fmt.Errorf("loads %s from a buffer of %s", d, e)
		}
		return indices(0)
	case Store, StoreStrided, StoreShared:
		e, err := v.memory(in, Write)
		if err != nil {
			return err
		}
		if val := a[len(a)-1]; val.Elem != e {
			return fmt.Errorf("stores %s to a buffer of %s", val, e)
		}
		for i := 0; i < len(a)-1; i++ {
			if a[i] != index {
				return fmt.Errorf("operand %d is %s, want i64", i, a[i])
			}
		}
	case AtomicRMW:
		e, err := v.binding(in.Bindings[0], Write)
		if err != nil {
			return err
		}
		if e != I32 || a[1] != (RegType{I32, 1}) {
			return fmt.Errorf("combines %s into a buffer of %s; atomics take i32 scalars", a[1], e)
		}
		if in.Imm < 0 || in.Imm > 1 {
			return fmt.Errorf("atomic kind %d out of 0..1", in.Imm)
		}
		if a[0] != index {
			return fmt.Errorf("offset is %s, want i64", a[0])
		}
	case Barrier:
	case SubgroupShuffle:
		if a[0] != d || d.Lanes != 1 || a[1] != index {
			return fmt.Errorf("shuffles %s by %s into %s; want scalars and an i64 lane", a[0], a[1], d)
		}
	case Contract:
		return v.contract(in, indices)
	case Jmp:
	case Jz, Jnz:
		if a[0] != (RegType{I1, 1}) {
			return fmt.Errorf("condition is %s, want i1", a[0])
		}
	case ForInit, ForNext:
		return indices(0)
	default:
		return fmt.Errorf("opcode without verification rule")
	}
	return nil
}

// memory checks the binding or shared allocation of a load or store.
func (v *instrVerifier) memory(in *Instr, need Access) (Elem, error) {
	i := in.Bindings[0]
	if in.Op == LoadShared || in.Op == StoreShared {
		if uint64(i) >= uint64(len(v.e.Shared)) {
			return 0, fmt.Errorf("shared allocation %d of %d", i, len(v.e.Shared))
		}
		return v.e.Shared[i].Elem, nil
	}
	return v.binding(i, need)
}

func (v *instrVerifier) binding(i uint32, need Access) (Elem, error) {
	if uint64(i) >= uint64(len(v.e.Bindings)) {
		return 0, fmt.Errorf("binding %d of %d", i, len(v.e.Bindings))
	}
	b := v.e.Bindings[i]
	if b.Access&need != need {
		return 0, fmt.Errorf("binding %d is not accessible for this use (access %d, need %d)", i, b.Access, need)
	}
	return b.Elem, nil
}

func (v *instrVerifier) contract(in *Instr, indices func(int) error) error {
	ea, err := v.binding(in.Bindings[0], Read)
	if err != nil {
		return err
	}
	eb, err := v.binding(in.Bindings[1], Read)
	if err != nil {
		return err
	}
	need := ReadWrite
	if in.Imm&2 != 0 {
		need = Write // C = A·B does not read C
	}
	ec, err := v.binding(in.Bindings[2], need)
	if err != nil {
		return err
	}
	if ea.IsFloat() != ec.IsFloat() || eb.IsFloat() != ec.IsFloat() {
		return fmt.Errorf("mixes %s·%s into %s", ea, eb, ec)
	}
	if in.Imm&^3 != 0 {
		return fmt.Errorf("flags %#x: only bits 0 and 1 are defined", in.Imm)
	}
	return indices(0)
}
