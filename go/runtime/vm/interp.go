package vm

import (
	"fmt"
	"slices"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// maxDepth bounds recursion of host calls.
const maxDepth = 256

// checkArgs verifies that args match the function's argument kinds.
func checkArgs(f *module.Function, args []Value) error {
	if len(args) != len(f.Args) {
		return status.Errorf(status.InvalidArgument, "function '%s' expects %d arguments (signature %s), got %d", f.Name, len(f.Args), f.CConv(), len(args))
	}
	for i, k := range f.Args {
		if !kindMatches(k, args[i]) {
			return status.Errorf(status.InvalidArgument, "function '%s' argument %d must be %s, got %s", f.Name, i, kindText(k), args[i].kindText())
		}
	}
	return nil
}

func kindMatches(k module.Kind, v Value) bool {
	switch k {
	case module.KindI32:
		return v.Kind == KindI32
	case module.KindI64:
		return v.Kind == KindI64
	case module.KindF32:
		return v.Kind == KindF32
	case module.KindF64:
		return v.Kind == KindF64
	}
	return v.Kind == KindRef || v.Kind == KindNull
}

func kindText(k module.Kind) string {
	return map[module.Kind]string{module.KindI32: "an i32", module.KindI64: "an i64", module.KindF32: "an f32", module.KindF64: "an f64", module.KindRef: "a buffer view"}[k]
}

func (v Value) kindText() string {
	return map[Kind]string{KindNull: "null", KindI32: "an i32", KindI64: "an i64", KindF32: "an f32", KindF64: "an f64", KindRef: fmt.Sprintf("a %T", v.Ref)}[v.Kind]
}

// call runs function fi of the instance inside the outermost call st.
func (inst *instance) call(fi int, args []Value, st *stack) ([]Value, error) {
	f := &inst.m.Def.Functions[fi]
	if err := checkArgs(f, args); err != nil {
		return nil, err
	}
	if len(st.frames) > maxDepth {
		return nil, status.Errorf(status.ResourceExhausted, "call depth exceeds %d in '%s'", maxDepth, f.Name)
	}
	regs := inst.newFrame(fi)
	copy(regs, args)
	st.frames = append(st.frames, frame{regs: regs, refRegs: inst.refRegs[fi]})
	defer func() {
		st.pop()
		inst.freeFrame(fi, regs)
	}()
	dev := st.dev
	pc := 0
	fail := func(err error) ([]Value, error) {
		return nil, fmt.Errorf("%s: instruction %d (%s): %w", f.Name, pc, f.Code[pc].Op, err)
	}
	for {
		in := &f.Code[pc]
		next := pc + 1
		switch in.Op {
		case module.OpMove:
			regs[in.Dst[0]] = regs[in.Src[0]]
		case module.OpConstI:
			regs[in.Dst[0]] = intValue(in.Type, in.Imm)
		case module.OpConstF:
			regs[in.Dst[0]] = floatValue(in.Type, in.F)
		case module.OpArith:
			v, err := arith(module.ArithOp(in.Sub), in.Type, regs, in.Src)
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = v
		case module.OpCmp:
			regs[in.Dst[0]] = compare(in.Sub, in.Type, regs[in.Src[0]], regs[in.Src[1]])
		case module.OpCast:
			regs[in.Dst[0]] = cast(module.CastOp(in.Sub), in.Type, in.Type2, regs[in.Src[0]])
		case module.OpSelect:
			if regs[in.Src[0]].I != 0 {
				regs[in.Dst[0]] = regs[in.Src[1]]
			} else {
				regs[in.Dst[0]] = regs[in.Src[2]]
			}
		case module.OpBranch:
			if len(in.Src) > 0 {
				tmp := make([]Value, len(in.Src))
				for i, s := range in.Src {
					tmp[i] = regs[s]
				}
				for i, d := range in.Dst {
					regs[d] = tmp[i]
				}
			}
			next = int(in.Index)
			if st.w.on && next <= pc {
				if err := st.w.poll(false); err != nil {
					return nil, err
				}
			}
		case module.OpCondBranch:
			if regs[in.Src[0]].I != 0 {
				next = int(in.Index)
			} else {
				next = int(in.Index2)
			}
			if st.w.on && next <= pc {
				if err := st.w.poll(false); err != nil {
					return nil, err
				}
			}
		case module.OpCall:
			if st.w.on {
				if err := st.w.poll(false); err != nil {
					return nil, err
				}
			}
			res, err := inst.call(int(in.Index), gather(regs, in.Src), st)
			if err != nil {
				return nil, err
			}
			scatter(regs, in.Dst, res)
		case module.OpCallImport:
			if st.w.on {
				if err := st.w.poll(false); err != nil {
					return nil, err
				}
			}
			res, err := inst.callImport(int(in.Index), gather(regs, in.Src), st)
			if err != nil {
				return nil, err
			}
			scatter(regs, in.Dst, res)
		case module.OpReturn:
			return gather(regs, in.Src), nil
		case module.OpFail:
			return nil, status.New(status.Code(in.Imm), in.Str)
		case module.OpGlobalLoad:
			regs[in.Dst[0]] = inst.globals[in.Index].load()
		case module.OpGlobalStore:
			h, _ := dev.(Holder)
			inst.globals[in.Index].store(regs[in.Src[0]], h)
		case module.OpConstant:
			regs[in.Dst[0]] = RefValue(inst.consts[in.Index])
		case module.OpAlloc:
			r, err := dev.Alloc(uint32(in.Imm), st.intsOf(regs, in.Src), in.Sub == 1)
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = RefValue(r)
		case module.OpDim:
			d, err := dev.Dim(regs[in.Src[0]].Ref, int(in.Imm))
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = I64(d)
		case module.OpReshape:
			r, err := dev.Reshape(regs[in.Src[0]].Ref, st.intsOf(regs, in.Src[1:]))
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = RefValue(r)
		case module.OpClone:
			if in.Sub == module.CloneMayMove && inst.move(st, regs, in.Src[0], in.Dst[0]) {
				break
			}
			r, err := dev.Clone(regs[in.Src[0]].Ref)
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = RefValue(r)
		case module.OpCopy:
			c, ok := dev.(Copier)
			if !ok {
				return fail(status.New(status.Unimplemented, "the device cannot copy into part of a buffer (module op copy)"))
			}
			if err := c.CopyInto(regs[in.Src[0]].Ref, regs[in.Src[1]].Ref, regs[in.Src[2]].I); err != nil {
				return fail(err)
			}
		case module.OpSubview:
			sv, ok := dev.(Subviewer)
			if !ok {
				return fail(status.New(status.Unimplemented, "the device cannot view part of a buffer (module op subview)"))
			}
			r, err := sv.Subview(regs[in.Src[0]].Ref, regs[in.Src[1]].I, st.intsOf(regs, in.Src[2:]))
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = RefValue(r)
		case module.OpLoad:
			v, err := dev.Load(regs[in.Src[0]].Ref, in.Type, st.intsOf(regs, in.Src[1:]))
			if err != nil {
				return fail(err)
			}
			regs[in.Dst[0]] = v
		case module.OpStore:
			if err := dev.Store(regs[in.Src[0]].Ref, in.Type, st.intsOf(regs, in.Src[2:]), regs[in.Src[1]]); err != nil {
				return fail(err)
			}
		case module.OpDispatch:
			if st.w.on {
				if err := st.w.poll(true); err != nil {
					return nil, err
				}
			}
			npc := int(in.Imm)
			g, rest := dispatchOperands(in, inst.sels[in.Index])
			grid := [3]int64{regs[g[0]].I, regs[g[1]].I, regs[g[2]].I}
			push := st.intsOf(regs, rest[:npc])
			bindings := st.bind[:0]
			for _, r := range rest[npc:] {
				bindings = append(bindings, regs[r].Ref)
			}
			err := dev.Dispatch(inst.execs[in.Index], int(in.Index2), grid, push, bindings)
			clear(bindings) // the scratch keeps no buffer alive
			st.bind = bindings
			if err != nil {
				return fail(err)
			}
		case module.OpTrace:
			var refs []any
			for _, r := range in.Src {
				refs = append(refs, regs[r].Ref)
			}
			if err := dev.Trace(in.Str, refs); err != nil {
				return fail(err)
			}
		case module.OpDiscard:
			inst.discard(st, regs, in.Src, in.Sub)
		default:
			return fail(status.Errorf(status.Internal, "unknown opcode"))
		}
		pc = next
	}
}

func gather(regs []Value, rs []int32) []Value {
	out := make([]Value, len(rs))
	for i, r := range rs {
		out[i] = regs[r]
	}
	return out
}

func scatter(regs []Value, rs []int32, vals []Value) {
	for i, r := range rs {
		regs[r] = vals[i]
	}
}

// zeroRegisters returns the initial register file of a function whose
// registers are of kinds ks.
func zeroRegisters(ks []module.Kind) []Value {
	regs := make([]Value, len(ks))
	for i, k := range ks {
		regs[i] = zeroOf(k)
	}
	return regs
}

// newFrame returns a register file for a call of function fi, every
// register its kind's zero: one a finished call left, or a new one.
func (inst *instance) newFrame(fi int) []Value {
	if p, ok := inst.frames[fi].Get().(*[]Value); ok {
		return *p
	}
	return slices.Clone(inst.zero[fi])
}

// freeFrame resets a finished call's register file, so that it keeps
// nothing alive, and keeps it for the next call.
func (inst *instance) freeFrame(fi int, regs []Value) {
	copy(regs, inst.zero[fi])
	inst.frames[fi].Put(&regs)
}

func zeroOf(k module.Kind) Value {
	switch k {
	case module.KindI32:
		return I32(0)
	case module.KindI64:
		return I64(0)
	case module.KindF32:
		return F32(0)
	case module.KindF64:
		return F64(0)
	}
	return Value{Kind: KindNull}
}

func (inst *instance) callImport(i int, args []Value, st *stack) ([]Value, error) {
	r := inst.imports[i]
	im := inst.m.Def.Imports[i]
	switch {
	case r.native != nil:
		if dev := st.dev; dev != nil {
			if err := dev.Sync(); err != nil {
				return nil, err
			}
		}
		if r.native.CallIn != nil {
			return r.native.CallIn(&st.call, args)
		}
		return r.native.Call(args)
	case r.inst != nil:
		return r.inst.call(r.fn, args, st)
	}
	return nil, status.Errorf(status.NotFound, "optional import %s.%s is not available in this context (register the '%s' module)", im.Module, im.Name, im.Module)
}
