package ptx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Interface queries, barriers and subgroup operations.
//
// CUDA numbers a block's threads as kir does (linear = x + X·(y + Y·z))
// and forms warps of 32 consecutive linear ids. kir's subgroups are runs
// of E = min(SubgroupSize, threads) consecutive linear ids; they lie
// within one warp when E divides 32 or the block is at most one warp, and
// the subgroup operations are then warp shuffles among the subgroup's
// lanes (other sizes are UNIMPLEMENTED). Every thread of a warp executes
// the same shuffles (the kir ops are in uniform control flow, and the
// loops below run E-1 times in every subgroup, a partial one included),
// with the membermask of the warp's existing threads.

// subgroupInfo holds the registers the subgroup operations share.
type subgroupInfo struct {
	size   int    // E
	base   string // hardware lane of the subgroup's lane 0 (.b32)
	active string // threads in this subgroup (.b32)
	mask   string // the warp's membermask (.b32)
}

func (e *emitter) threads() int {
	ws := e.k.WorkgroupSize
	return ws[0] * ws[1] * ws[2]
}

// sgSize is kir's effective subgroup size E.
func (e *emitter) sgSize() int {
	s := e.k.SubgroupSize
	if s <= 0 {
		s = kir.MaxSubgroupSize
	}
	return min(s, e.threads())
}

// linear returns the prologue register holding the thread's linear id in
// its block (x + X·(y + Y·z)), computed once.
func (e *emitter) linear() string {
	if r, ok := e.special["linear"]; ok {
		return r
	}
	ws := e.k.WorkgroupSize
	r, y, z := e.reg(cls32), e.reg(cls32), e.reg(cls32)
	p := &e.prologue
	fmt.Fprintf(p, "\tmov.u32 %s, %%tid.z;\n\tmov.u32 %s, %%tid.y;\n", z, y)
	fmt.Fprintf(p, "\tmad.lo.u32 %s, %s, %d, %s;\n", y, z, ws[1], y)
	fmt.Fprintf(p, "\tmov.u32 %s, %%tid.x;\n", r)
	fmt.Fprintf(p, "\tmad.lo.u32 %s, %s, %d, %s;\n", r, y, ws[0], r)
	e.special["linear"] = r
	return r
}

// prepareSubgroups computes the subgroup registers in the prologue.
func (e *emitter) prepareSubgroups() {
	E, T := e.sgSize(), e.threads()
	if T > 32 && 32%E != 0 {
		e.failf(status.Unimplemented, "subgroup operations need subgroups within a warp: subgroup size %d does not divide 32 (workgroup of %d threads)", E, T)
	}
	lid := e.linear()
	p := &e.prologue
	lane, first, left, warp := e.reg(cls32), e.reg(cls32), e.reg(cls32), e.reg(cls32)
	e.sg = subgroupInfo{size: E, base: e.reg(cls32), active: e.reg(cls32), mask: e.reg(cls32)}
	fmt.Fprintf(p, "\trem.u32 %s, %s, %d;\n\tsub.s32 %s, %s, %s;\n", lane, lid, E, first, lid, lane)
	fmt.Fprintf(p, "\tand.b32 %s, %s, 31;\n", e.sg.base, first)
	fmt.Fprintf(p, "\tsub.s32 %s, %d, %s;\n\tmin.u32 %s, %s, %d;\n", left, T, first, e.sg.active, left, E)
	fmt.Fprintf(p, "\tand.b32 %s, %s, -32;\n\tsub.s32 %s, %d, %s;\n\tmin.u32 %s, %s, 32;\n", warp, lid, warp, T, warp, warp, warp)
	fmt.Fprintf(p, "\tshl.b32 %s, 1, %s;\n\tsub.s32 %s, %s, 1;\n", e.sg.mask, warp, e.sg.mask, e.sg.mask)
}

// query translates PushConstant, WorkgroupID, WorkgroupCount, ThreadID,
// WorkgroupSize, SubgroupSize and LaneID.
func (e *emitter) query(op *kir.Op, rt kir.Type) {
	d := int(op.Imm)
	dims := "xyz"
	if op.Kind == kir.PushConstant {
		x := e.push[d]
		switch {
		case rt.Width() == 2:
			lo, hi := e.reg(cls32), e.reg(cls32)
			e.ins("mov.b64 {%s, %s}, %s", lo, hi, x)
			e.set(op.Results[0], []string{lo, hi})
		case wide(rt.Elem):
			e.set(op.Results[0], []string{x})
		default:
			r := e.reg(cls32)
			e.ins("cvt.u32.u64 %s, %s", r, x)
			e.set(op.Results[0], []string{e.norm(rt.Elem, r)})
		}
		return
	}
	var u string
	switch op.Kind {
	case kir.WorkgroupID, kir.WorkgroupCount, kir.ThreadID:
		name := map[kir.Kind]string{kir.WorkgroupID: "ctaid", kir.WorkgroupCount: "nctaid", kir.ThreadID: "tid"}[op.Kind]
		u = e.reg(cls32)
		e.ins("mov.u32 %s, %%%s.%c", u, name, dims[d])
	case kir.WorkgroupSize:
		u = e.imm(cls32, uint64(e.k.WorkgroupSize[d]))
	case kir.SubgroupSize:
		u = e.imm(cls32, uint64(e.sgSize()))
	case kir.LaneID:
		u = e.op3(cls32, "rem.u32", e.linear(), fmt.Sprint(e.sgSize()))
	}
	if wide(rt.Elem) {
		r := e.reg(cls64)
		e.ins("cvt.u64.u32 %s, %s", r, u)
		u = r
	}
	e.lanewise(op, rt, func(int) string { return u })
}

// barrier emits a workgroup barrier; with bindings, a CTA memory fence
// first orders the binding (global) accesses too.
func (e *emitter) barrier(bindings bool) {
	if bindings {
		e.ins("membar.cta")
	}
	e.ins("bar.sync 0")
}

// shuffle reads x (a lane of s) from hardware lane src of the warp, as
// 32-bit words.
func (e *emitter) shuffle(s kir.Scalar, x, src string) string {
	sh := func(w string) string {
		r := e.reg(cls32)
		e.ins("shfl.sync.idx.b32 %s, %s, %s, 0x1F, %s", r, w, src, e.sg.mask)
		return r
	}
	switch classOf(s) {
	case clsPred:
		w := e.reg(cls32)
		e.ins("selp.b32 %s, 1, 0, %s", w, x)
		return e.lower(s, sh(w))
	case cls16:
		w := e.reg(cls32)
		e.ins("cvt.u32.u16 %s, %s", w, x)
		r := e.reg(cls16)
		e.ins("cvt.u16.u32 %s, %s", r, sh(w))
		return r
	case cls64:
		lo, hi := e.reg(cls32), e.reg(cls32)
		e.ins("mov.b64 {%s, %s}, %s", lo, hi, x)
		r := e.reg(cls64)
		e.ins("mov.b64 %s, {%s, %s}", r, sh(lo), sh(hi))
		return r
	}
	return sh(x)
}

// subgroupShuffle translates SubgroupShuffle: the value of the lane (i
// mod the subgroup's thread count, a negative i counting from the end).
func (e *emitter) subgroupShuffle(op *kir.Op, rt kir.Type) {
	i := e.index64(op.Args[1])
	n := e.reg(cls64)
	e.ins("cvt.u64.u32 %s, %s", n, e.sg.active)
	m := e.op3(cls64, "rem.s64", i, n)
	m = e.op3(cls64, "add.s64", m, n)
	m = e.op3(cls64, "rem.s64", m, n)
	l := e.reg(cls32)
	e.ins("cvt.u32.u64 %s, %s", l, m)
	src := e.op3(cls32, "add.s32", e.sg.base, l)
	e.lanewise(op, rt, func(j int) string { return e.shuffle(rt.Elem, e.lane(op.Args[0], j), src) })
}

// subgroupReduce combines x over the subgroup's lanes in lane order, lane
// 0 first, as the interpreter does: a loop of E-1 shuffles in every
// subgroup, the steps past a partial subgroup's last lane discarded.
func (e *emitter) subgroupReduce(r kir.ReduceKind, s kir.Scalar, x string) string {
	c := classOf(s)
	acc := e.reg(c)
	e.mov(c, acc, e.shuffle(s, x, e.sg.base))
	i := e.imm(cls32, 1)
	loop, end := e.newLabel(), e.newLabel()
	e.place(loop)
	done := e.reg(clsPred)
	e.ins("setp.ge.u32 %s, %s, %d", done, i, e.sg.size)
	e.ins("@%s bra.uni %s", done, end)
	last := e.op3(cls32, "sub.s32", e.sg.active, "1")
	j := e.op3(cls32, "min.u32", i, last)
	y := e.shuffle(s, x, e.op3(cls32, "add.s32", e.sg.base, j))
	comb := e.combine(r, s, acc, y)
	in := e.reg(clsPred)
	e.ins("setp.lo.u32 %s, %s, %s", in, i, e.sg.active)
	e.mov(c, acc, e.selectLane(s, in, comb, acc))
	e.ins("add.s32 %s, %s, 1", i, i)
	e.ins("bra.uni %s", loop)
	e.place(end)
	out := e.reg(c)
	e.mov(c, out, acc)
	return out
}
