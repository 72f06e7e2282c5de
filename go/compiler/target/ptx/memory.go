package ptx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// Parameters, bounds-checked loads and stores, shared memory and atomics.

// loadParams allocates the registers of the entry's parameters (loaded
// by paramLoads once it is known whether the entry reports errors).
func (e *emitter) loadParams() {
	for range e.k.Bindings {
		e.ptrs = append(e.ptrs, e.reg(cls64))
		e.lens = append(e.lens, e.reg(cls64))
		e.counts = append(e.counts, "")
	}
	e.status = e.reg(cls64)
	for i := 0; i < e.k.NumPushConstants; i++ {
		e.push = append(e.push, e.reg(cls64))
	}
}

// paramLoads loads the parameters in the ABI's order: binding pointers,
// binding lengths, the status buffer (when the entry reports errors),
// push constants.
func (e *emitter) paramLoads() string {
	var b []byte
	p := 0
	ld := func(r string, global bool) {
		b = fmt.Appendf(b, "\tld.param.u64 %s, [%s_param_%d];\n", r, e.sym, p)
		if global {
			b = fmt.Appendf(b, "\tcvta.to.global.u64 %s, %s;\n", r, r)
		}
		p++
	}
	for _, r := range e.ptrs {
		ld(r, true)
	}
	for _, r := range e.lens {
		ld(r, false)
	}
	if e.reports {
		ld(e.status, true)
	}
	for _, r := range e.push {
		ld(r, false)
	}
	return string(b)
}

// count returns a register holding binding b's count of whole elements:
// like llvm-cpu, and unlike the interpreter, a partial last element is
// outside the binding (an access to it is reported, never a load or store
// of bytes past the binding's range).
func (e *emitter) count(b int) string {
	if e.counts[b] == "" {
		sz := e.k.Bindings[b].Elem.ByteSize()
		r := e.reg(cls64)
		fmt.Fprintf(&e.prologue, "\tshr.u64 %s, %s, %d;\n", r, e.lens[b], log2(sz))
		e.counts[b] = r
	}
	return e.counts[b]
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// sharedBytes is the declared size of a shared allocation: whole words,
// at least one.
func sharedBytes(s kir.SharedAlloc) int64 {
	n := s.Count * int64(s.Elem.ByteSize())
	return max((n+3)&^3, 4)
}

// declareShared names the shared allocations and checks their size.
func (e *emitter) declareShared() {
	total := int64(0)
	for i, s := range e.k.Shared {
		e.shared = append(e.shared, fmt.Sprintf("%s_shared_%d", e.sym, i))
		total += (sharedBytes(s) + 15) &^ 15
		if s.Count < 0 || total > cuda.MaxStaticSharedBytes {
			e.failf(status.ResourceExhausted, "its shared allocations take %d bytes or more, over the %d bytes of static shared memory a CUDA kernel may declare", total, cuda.MaxStaticSharedBytes)
		}
	}
	e.sharedB = int(total)
}

// report records a failed check of kind on binding (or allocation) b
// when the predicate fail holds: the first failure of the dispatch wins
// the status word by a compare-and-swap from zero.
func (e *emitter) report(fail string, kind llvmcpu.ErrorKind, b int) {
	e.checkNo++
	e.reports = true
	code := uint64(llvmcpu.MakeError(kind, b, e.checkNo))
	c := e.imm(cls64, code)
	old := e.reg(cls64)
	e.ins("@%s atom.global.cas.b64 %s, [%s], 0, %s", fail, old, e.status, c)
}

// access describes the memory a load, store or atomic addresses.
type access struct {
	shared bool
	index  int // binding or allocation
	elem   kir.Scalar
	off    kir.Value
	stride kir.Value // -1 when contiguous
	lanes  int
}

func (e *emitter) accessOf(op *kir.Op, lanes int) access {
	a := access{index: op.Binding, off: op.Args[0], stride: -1, lanes: lanes}
	switch op.Kind {
	case kir.LoadShared, kir.StoreShared:
		a.shared, a.elem = true, e.k.Shared[op.Binding].Elem
	case kir.AtomicRMW:
		a.elem = kir.I32
	default:
		a.elem = e.k.Bindings[op.Binding].Elem
	}
	if op.Kind == kir.LoadStrided || op.Kind == kir.StoreStrided {
		a.stride = op.Args[1]
	}
	return a
}

// constIndex returns v's value when a ConstInt defines it.
func (e *emitter) constIndex(v kir.Value) (int64, bool) {
	if d := e.defs[v]; d != nil && d.Kind == kir.ConstInt {
		return d.Imm, true
	}
	return 0, false
}

// staticInBounds reports whether a shared access is in bounds by its
// constant operands.
func (e *emitter) staticInBounds(a access) bool {
	if !a.shared {
		return false
	}
	n := e.k.Shared[a.index].Count
	off, ok := e.constIndex(a.off)
	if !ok || off < 0 || off >= n {
		return false
	}
	s := int64(1)
	if a.stride >= 0 {
		if s, ok = e.constIndex(a.stride); !ok || s < -(1<<20) || s > 1<<20 {
			return false
		}
	}
	last := off + int64(a.lanes-1)*s
	return last >= 0 && last < n
}

// index64 returns an index value's lane 0 as a 64-bit register.
func (e *emitter) index64(v kir.Value) string {
	x := e.lane(v, 0)
	if wide(e.k.Types[v].Elem) {
		return x
	}
	r := e.reg(cls64)
	e.ins("cvt.s64.s32 %s, %s", r, x)
	return r
}

// check returns a predicate that holds when a's lanes lie in its buffer,
// as the interpreter checks it (the offset and the last lane's offset in
// range, the stride's magnitude below 2^40, beyond any buffer), and
// records the failure when it does not; "" when statically in bounds.
func (e *emitter) check(a access, off, stride string) string {
	if e.staticInBounds(a) {
		return ""
	}
	var count string
	if a.shared {
		count = fmt.Sprint(e.k.Shared[a.index].Count)
	} else {
		count = e.count(a.index)
	}
	ok := e.reg(clsPred)
	e.ins("setp.lo.u64 %s, %s, %s", ok, off, count)
	if a.lanes > 1 {
		var last string
		if stride == "" {
			last = e.op3(cls64, "add.s64", off, fmt.Sprint(a.lanes-1))
		} else {
			t := e.op3(cls64, "add.s64", stride, "0x10000000000")
			small := e.reg(clsPred)
			e.ins("setp.lo.u64 %s, %s, 0x20000000000", small, t)
			e.ins("and.pred %s, %s, %s", ok, ok, small)
			last = e.reg(cls64)
			e.ins("mad.lo.s64 %s, %s, %d, %s", last, stride, a.lanes-1, off)
		}
		in := e.reg(clsPred)
		e.ins("setp.lo.u64 %s, %s, %s", in, last, count)
		e.ins("and.pred %s, %s, %s", ok, ok, in)
	}
	bad := e.reg(clsPred)
	e.ins("not.pred %s, %s", bad, ok)
	kind := llvmcpu.ErrOutOfBounds
	if a.shared {
		kind = llvmcpu.ErrShared
	}
	e.report(bad, kind, a.index)
	return ok
}

// addresses returns each lane's address register and immediate byte
// offset, and the space ("global" or "shared").
func (e *emitter) addresses(a access, off, stride string) (regs []string, imms []int, space string) {
	sz := a.elem.ByteSize()
	base, space := "", "global"
	if a.shared {
		space = "shared"
		base = e.reg(cls64)
		e.ins("mov.u64 %s, %s", base, e.shared[a.index])
	} else {
		base = e.ptrs[a.index]
	}
	addr := func(idx string) string {
		r := e.reg(cls64)
		e.ins("mad.lo.s64 %s, %s, %d, %s", r, idx, sz, base)
		return r
	}
	first := addr(off)
	for i := 0; i < a.lanes; i++ {
		switch {
		case stride == "":
			regs, imms = append(regs, first), append(imms, i*sz)
		case i == 0:
			regs, imms = append(regs, first), append(imms, 0)
		default:
			idx := e.reg(cls64)
			e.ins("mad.lo.s64 %s, %s, %d, %s", idx, stride, i, off)
			regs, imms = append(regs, addr(idx)), append(imms, 0)
		}
	}
	return regs, imms, space
}

// memType is the ld/st type of an element of s.
func memType(s kir.Scalar, load bool) string {
	switch s {
	case kir.I1:
		return "u8"
	case kir.I8:
		if load {
			return "s8"
		}
		return "u8"
	case kir.I16:
		if load {
			return "s16"
		}
		return "u16"
	case kir.F16, kir.BF16:
		return "b16"
	}
	return "b" + bitsOf(s)
}

// guard returns the predicate prefix of a guarded instruction.
func guard(ok string) string {
	if ok == "" {
		return ""
	}
	return "@" + ok + " "
}

// operands returns the offset and stride (or "") registers of op.
func (e *emitter) operands(a access) (off, stride string) {
	off = e.index64(a.off)
	if a.stride >= 0 {
		stride = e.index64(a.stride)
	}
	return off, stride
}

// load translates Load, LoadStrided and LoadShared; a failed bounds check
// loads zeros.
func (e *emitter) load(op *kir.Op, rt kir.Type) {
	a := e.accessOf(op, rt.Width())
	off, stride := e.operands(a)
	ok := e.check(a, off, stride)
	regs, imms, space := e.addresses(a, off, stride)
	out := make([]string, a.lanes)
	for i := range out {
		c := classOf(a.elem)
		if c == clsPred {
			c = cls32
		}
		r := e.imm(c, 0)
		e.ins("%sld.%s.%s %s, [%s+%d]", guard(ok), space, memType(a.elem, true), r, regs[i], imms[i])
		if a.elem == kir.I1 {
			r = e.lower(kir.I1, r)
		}
		out[i] = r
	}
	e.set(op.Results[0], out)
}

// store translates Store, StoreStrided and StoreShared; a failed bounds
// check stores nothing.
func (e *emitter) store(op *kir.Op) {
	val := op.Args[len(op.Args)-1]
	a := e.accessOf(op, e.k.Types[val].Width())
	off, stride := e.operands(a)
	ok := e.check(a, off, stride)
	regs, imms, space := e.addresses(a, off, stride)
	for i := 0; i < a.lanes; i++ {
		x := e.lane(val, i)
		if a.elem == kir.I1 {
			t := e.reg(cls32)
			e.ins("selp.b32 %s, 1, 0, %s", t, x)
			x = t
		}
		e.ins("%sst.%s.%s [%s+%d], %s", guard(ok), space, memType(a.elem, false), regs[i], imms[i], x)
	}
}

// atomicRMW translates AtomicRMW (atom.global.and/or.b32, relaxed, device
// scope).
func (e *emitter) atomicRMW(op *kir.Op) {
	a := e.accessOf(op, 1)
	off, _ := e.operands(a)
	ok := e.check(a, off, "")
	regs, _, _ := e.addresses(a, off, "")
	name := "and"
	if kir.AtomicKind(op.Imm) == kir.AtomicOr {
		name = "or"
	}
	old := e.reg(cls32)
	e.ins("%satom.global.%s.b32 %s, [%s], %s", guard(ok), name, old, regs[0], e.lane(op.Args[1], 0))
}

// zeroShared zeroes the shared allocations that are not Scratch,
// cooperatively (thread t stores words t, t+threads, …), then waits at a
// barrier.
func (e *emitter) zeroShared() {
	any := false
	threads := e.threads()
	var p = &e.prologue
	for i, s := range e.k.Shared {
		if s.Scratch || s.Count == 0 {
			continue
		}
		lid := e.linear()
		any = true
		base, at, c := e.reg(cls64), e.reg(cls64), e.reg(clsPred)
		loop, done := e.newLabel(), e.newLabel()
		fmt.Fprintf(p, "\tmov.u64 %s, %s;\n", base, e.shared[i])
		fmt.Fprintf(p, "\tcvt.u64.u32 %s, %s;\n", at, lid)
		fmt.Fprintf(p, "\tshl.b64 %s, %s, 2;\n", at, at)
		fmt.Fprintf(p, "%s:\n\tsetp.ge.u64 %s, %s, %d;\n\t@%s bra %s;\n", loop, c, at, sharedBytes(s), c, done)
		ptr := e.reg(cls64)
		fmt.Fprintf(p, "\tadd.s64 %s, %s, %s;\n\tst.shared.b32 [%s], 0;\n", ptr, base, at, ptr)
		fmt.Fprintf(p, "\tadd.s64 %s, %s, %d;\n\tbra %s;\n%s:\n", at, at, 4*threads, loop, done)
	}
	if any {
		fmt.Fprintf(p, "\tbar.sync 0;\n")
	}
}
