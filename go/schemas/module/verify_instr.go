package module

func (v *fnVerifier) target(t int32) error {
	if t < 0 || int(t) >= len(v.f.Code) {
		return v.errf("branch target %d outside the function's %d instructions", t, len(v.f.Code))
	}
	return nil
}

// instr checks one instruction; a long opcode switch.
func (v *fnVerifier) instr() error {
	in := &v.f.Code[v.pc]
	m := v.m
	switch in.Op {
	case OpMove:
		if err := v.counts(1, 1); err != nil {
			return err
		}
		if err := v.reg(in.Src[0]); err != nil {
			return err
		}
		return v.reg(in.Dst[0], v.f.Regs[in.Src[0]])
	case OpConstI, OpConstF:
		if err := v.counts(1, 0); err != nil {
			return err
		}
		ks := scalarKinds(in.Type)
		if ks == nil || (in.Op == OpConstI) != (in.Type <= TypeI64) {
			return v.errf("invalid scalar type %d", in.Type)
		}
		return v.reg(in.Dst[0], ks...)
	case OpArith:
		ks := scalarKinds(in.Type)
		if ks == nil || in.Sub == 0 || in.Sub >= uint8(arithCount) {
			return v.errf("invalid arithmetic op %d on type %d", in.Sub, in.Type)
		}
		isF := in.Type >= TypeF16
		if (ArithOp(in.Sub) >= ArithAddF) != isF {
			return v.errf("arithmetic op %d does not apply to type %d", in.Sub, in.Type)
		}
		n := 2
		if ArithOp(in.Sub) == ArithNegF {
			n = 1
		}
		if err := v.counts(1, n); err != nil {
			return err
		}
		if err := v.regs(in.Src, ks...); err != nil {
			return err
		}
		return v.reg(in.Dst[0], ks...)
	case OpCmp:
		ks := scalarKinds(in.Type)
		if ks == nil || in.Sub > 15 {
			return v.errf("invalid comparison %d on type %d", in.Sub, in.Type)
		}
		if err := v.counts(1, 2); err != nil {
			return err
		}
		if err := v.regs(in.Src, ks...); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindI32)
	case OpCast:
		from, to := scalarKinds(in.Type), scalarKinds(in.Type2)
		if from == nil || to == nil || in.Sub == 0 || in.Sub >= uint8(castCount) {
			return v.errf("invalid conversion %d from type %d to %d", in.Sub, in.Type, in.Type2)
		}
		if err := v.counts(1, 1); err != nil {
			return err
		}
		if err := v.reg(in.Src[0], from...); err != nil {
			return err
		}
		return v.reg(in.Dst[0], to...)
	case OpSelect:
		if err := v.counts(1, 3); err != nil {
			return err
		}
		if err := v.reg(in.Src[0], KindI32); err != nil {
			return err
		}
		if err := v.reg(in.Src[1]); err != nil {
			return err
		}
		k := v.f.Regs[in.Src[1]]
		if err := v.reg(in.Src[2], k); err != nil {
			return err
		}
		return v.reg(in.Dst[0], k)
	case OpBranch:
		if len(in.Dst) != len(in.Src) {
			return v.errf("branch copies %d values into %d registers", len(in.Src), len(in.Dst))
		}
		for i := range in.Src {
			if err := v.reg(in.Src[i]); err != nil {
				return err
			}
			if err := v.reg(in.Dst[i], v.f.Regs[in.Src[i]]); err != nil {
				return err
			}
		}
		return v.target(in.Index)
	case OpCondBranch:
		if err := v.counts(0, 1); err != nil {
			return err
		}
		if err := v.reg(in.Src[0], KindI32); err != nil {
			return err
		}
		if err := v.target(in.Index); err != nil {
			return err
		}
		return v.target(in.Index2)
	case OpCall:
		if in.Index < 0 || int(in.Index) >= len(m.Functions) {
			return v.errf("calls function %d of %d", in.Index, len(m.Functions))
		}
		callee := &m.Functions[in.Index]
		if err := v.sig(in.Src, callee.Args, "arguments"); err != nil {
			return err
		}
		return v.sig(in.Dst, callee.Results, "results")
	case OpCallImport:
		if in.Index < 0 || int(in.Index) >= len(m.Imports) {
			return v.errf("calls import %d of %d", in.Index, len(m.Imports))
		}
		im := &m.Imports[in.Index]
		if err := v.sig(in.Src, im.Args, "arguments"); err != nil {
			return err
		}
		return v.sig(in.Dst, im.Results, "results")
	case OpReturn:
		return v.sig(in.Src, v.f.Results, "returned values")
	case OpFail:
		return v.counts(0, 0)
	case OpGlobalLoad, OpGlobalStore:
		if in.Index < 0 || int(in.Index) >= len(m.Globals) {
			return v.errf("global %d of %d", in.Index, len(m.Globals))
		}
		g := m.Globals[in.Index]
		if in.Op == OpGlobalLoad {
			if err := v.counts(1, 0); err != nil {
				return err
			}
			return v.reg(in.Dst[0], g.Kind)
		}
		if !g.Mutable {
			return v.errf("stores to immutable global %q", g.Name)
		}
		if err := v.counts(0, 1); err != nil {
			return err
		}
		return v.reg(in.Src[0], g.Kind)
	case OpConstant:
		if in.Index < 0 || int(in.Index) >= len(m.Constants) {
			return v.errf("constant %d of %d", in.Index, len(m.Constants))
		}
		if err := v.counts(1, 0); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindRef)
	case OpAlloc, OpReshape:
		if err := v.counts(1, -1); err != nil {
			return err
		}
		dims := in.Src
		if in.Op == OpReshape {
			if len(in.Src) < 1 {
				return v.errf("missing operand")
			}
			if err := v.reg(in.Src[0], KindRef); err != nil {
				return err
			}
			dims = in.Src[1:]
		} else if in.Imm <= 0 || in.Imm > 0xffffffff || in.Imm&0xff == 0 || in.Sub > 1 {
			return v.errf("invalid element type 0x%x", in.Imm)
		}
		if err := v.regs(dims, KindI64); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindRef)
	case OpDim:
		if err := v.counts(1, 1); err != nil {
			return err
		}
		if err := v.reg(in.Src[0], KindRef); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindI64)
	case OpClone:
		if err := v.counts(1, 1); err != nil {
			return err
		}
		if err := v.reg(in.Src[0], KindRef); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindRef)
	case OpLoad, OpStore:
		ks := scalarKinds(in.Type)
		if ks == nil {
			return v.errf("invalid element type %d", in.Type)
		}
		idx := 1
		if in.Op == OpLoad {
			if err := v.counts(1, -1); err != nil {
				return err
			}
			if err := v.reg(in.Dst[0], ks...); err != nil {
				return err
			}
		} else {
			if err := v.counts(0, -1); err != nil {
				return err
			}
			idx = 2
			if len(in.Src) < 2 {
				return v.errf("missing operands")
			}
			if err := v.reg(in.Src[1], ks...); err != nil {
				return err
			}
		}
		if len(in.Src) < idx {
			return v.errf("missing operands")
		}
		if err := v.reg(in.Src[0], KindRef); err != nil {
			return err
		}
		return v.regs(in.Src[idx:], KindI64)
	case OpDispatch:
		if in.Index < 0 || int(in.Index) >= len(m.Executables) {
			return v.errf("executable %d of %d", in.Index, len(m.Executables))
		}
		if in.Index2 < 0 || int(in.Index2) >= len(m.Executables[in.Index].Entries) {
			return v.errf("entry %d of %d", in.Index2, len(m.Executables[in.Index].Entries))
		}
		if err := v.counts(0, -1); err != nil {
			return err
		}
		// One workgroup-count triple per variant of the executable's group.
		nv := m.VariantCount(int(in.Index))
		if nv == 0 {
			return v.errf("executable %d is variant %d of a group; a dispatch names the group's first executable", in.Index, m.Executables[in.Index].Variant)
		}
		ng := 3 * nv
		npc := int(in.Imm)
		if in.Imm < 0 || in.Imm > int64(len(in.Src)) || len(in.Src) < ng+npc {
			return v.errf("has %d operands for %d workgroup counts and %d push constants", len(in.Src), ng, in.Imm)
		}
		if err := v.regs(in.Src[:ng+npc], KindI64); err != nil {
			return err
		}
		return v.regs(in.Src[ng+npc:], KindRef)
	}
	if in.Op == OpSubview {
		if err := v.counts(1, -1); err != nil {
			return err
		}
		if len(in.Src) < 2 {
			return v.errf("missing operands")
		}
		if err := v.reg(in.Src[0], KindRef); err != nil {
			return err
		}
		if err := v.regs(in.Src[1:], KindI64); err != nil {
			return err
		}
		return v.reg(in.Dst[0], KindRef)
	}
	if in.Op == OpCopy {
		if err := v.counts(0, 3); err != nil {
			return err
		}
		if err := v.regs(in.Src[:2], KindRef); err != nil {
			return err
		}
		return v.reg(in.Src[2], KindI64)
	}
	if in.Op == OpDiscard && in.Sub > DiscardKeep {
		return v.errf("discard kind %d", in.Sub)
	}
	if in.Op == OpTrace || in.Op == OpDiscard {
		if err := v.counts(0, -1); err != nil {
			return err
		}
		return v.regs(in.Src, KindRef)
	}
	return v.errf("invalid opcode %d", in.Op)
}
