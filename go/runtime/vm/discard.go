package vm

import "github.com/gree-ml/gree/go/schemas/module"

// stack is the state of one outermost call (an Invoke): its arguments and
// the register files of its active frames. A discard instruction consults
// them before it lets the device recycle a buffer: any of them may hold
// another view of the same storage.
type stack struct {
	args   []Value
	frames []frame
	// Scratch slices reused by discard and by the operands the
	// interpreter hands the device (see Device: it keeps none of them).
	refs, keep, bind []any
	ints             []int64
	// w is the call's cancellation and deadline checks (cancel.go).
	w watch
	// dev is the device the call's operations go to (see Scoper), and
	// call what its native functions record (see Call).
	dev  Device
	call Call
}

// reset empties st for another outermost call with args.
func (st *stack) reset(args []Value) {
	st.args = args
	st.call.reset()
	clear(st.frames[:cap(st.frames)])
	st.frames = st.frames[:0]
}

// intsOf returns the integer values of registers rs in st's scratch.
func (st *stack) intsOf(regs []Value, rs []int32) []int64 {
	st.ints = st.ints[:0]
	for _, r := range rs {
		st.ints = append(st.ints, regs[r].I)
	}
	return st.ints
}

// frame is the register file of one active call.
type frame struct {
	regs    []Value
	refRegs []int32
}

func (st *stack) pop() {
	st.frames[len(st.frames)-1] = frame{}
	st.frames = st.frames[:len(st.frames)-1]
}

// refRegisters lists, per function, the registers of kind ref that may
// hold device storage: all but those only module constants, or reshapes
// and moves of such registers, are written into (a constant's storage is
// the module's, which the device never recycles, and a reshape shares
// its source's storage; see Device), so that a discard does not scan a
// model's hundreds of weight registers.
func refRegisters(m *module.Module) [][]int32 {
	out := make([][]int32, len(m.Functions))
	for i, f := range m.Functions {
		fromConst := f.ConstantRegisters()
		for r, k := range f.Regs {
			if k == module.KindRef && !fromConst[r] {
				out[i] = append(out[i], int32(r))
			}
		}
	}
	return out
}

// discard nulls the registers rs of the current frame (regs) and hands the
// buffers they held back to the device, except storage that anything the
// program can still read refers to: a ref register of any active frame,
// an argument of the outermost call, or a global of any module of the
// context. The device itself recycles only storage it allocated, so
// module constants and caller buffers are never reused. The compiler's
// kind (module.DiscardScan…) spares the search where it proved its
// outcome: DiscardRelease, no other reference; DiscardKeep, another live
// register.
func (inst *instance) discard(st *stack, regs []Value, rs []int32, kind uint8) {
	dev := st.dev
	refs := st.refs[:0]
	for _, r := range rs {
		v := regs[r]
		regs[r] = Value{Kind: KindNull}
		if kind != module.DiscardKeep && v.Kind == KindRef && dev != nil && dev.Recyclable(v.Ref) {
			refs = append(refs, v.Ref)
		}
	}
	if len(refs) == 0 {
		st.refs = refs
		return
	}
	keep := st.keep[:0]
	if kind != module.DiscardRelease {
		keep = inst.appendLiveRefs(keep, st)
	}
	dev.Release(refs, keep)
	// Drop the references so the scratch slices keep nothing alive.
	clear(refs)
	clear(keep)
	st.refs, st.keep = refs[:0], keep[:0]
}

// move hands the buffer of register src, dead after a clone into dst,
// over to dst when the device says no other reference the program can
// read uses its storage (see Mover); src is then null, so its discard
// releases nothing.
func (inst *instance) move(st *stack, regs []Value, src, dst int32) bool {
	m, ok := st.dev.(Mover)
	v := regs[src]
	if !ok || v.Kind != KindRef || !st.dev.Recyclable(v.Ref) {
		return false
	}
	regs[src] = Value{Kind: KindNull}
	keep := inst.appendLiveRefs(st.keep[:0], st)
	exclusive := m.Exclusive(v.Ref, keep)
	clear(keep)
	st.keep = keep[:0]
	if !exclusive {
		regs[src] = v
		return false
	}
	regs[dst] = v
	return true
}

// appendLiveRefs appends every reference the program can still read: the
// ref registers of the active frames, the outermost call's arguments and
// the globals of the context's modules.
func (inst *instance) appendLiveRefs(keep []any, st *stack) []any {
	var seen []*List
	for _, fr := range st.frames {
		regs := fr.regs
		for _, r := range fr.refRegs {
			v := &regs[r]
			if v.Kind != KindRef {
				continue
			}
			if _, isList := v.Ref.(*List); isList {
				keep = appendRefs(keep, *v, &seen)
			} else {
				keep = append(keep, v.Ref)
			}
		}
	}
	for _, a := range st.args {
		keep = appendRefs(keep, a, &seen)
	}
	for _, m := range inst.ctx.mods {
		for i := range m.globals {
			keep = appendRefs(keep, m.globals[i].load(), &seen)
		}
	}
	return keep
}

// appendRefs appends the references v holds: v itself, or the items of a
// list, recursively (each list once: a list may contain itself).
func appendRefs(dst []any, v Value, seen *[]*List) []any {
	if v.Kind != KindRef {
		return dst
	}
	l, ok := v.Ref.(*List)
	if !ok {
		return append(dst, v.Ref)
	}
	for _, s := range *seen {
		if s == l {
			return dst
		}
	}
	*seen = append(*seen, l)
	for _, it := range l.Items {
		dst = appendRefs(dst, it, seen)
	}
	return dst
}
