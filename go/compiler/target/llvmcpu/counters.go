package llvmcpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
)

// counter emits FetchAdd and SpinUntil on a binding's i32 element: an
// atomicrmw add (sequentially consistent) returning the old value, or a
// loop of acquire loads until the element reaches the operand, with a
// spin-loop hint between reads on x86 (pause) and arm64 (yield). The
// element's bounds are checked like a load's; a failed check counts
// nothing and waits for nothing.
func (f *fn) counter(op *kir.Op) {
	base, count, elem, idx, kind := f.buffer(op)
	off, val := f.v(op.Args[0]), f.v(op.Args[1])
	join, fail := f.span(off, "", 1, count, kind, idx)
	p := f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
	if op.Kind == kir.FetchAdd {
		old := f.t()
		f.emitf("%s = atomicrmw add ptr %s, i32 %s seq_cst, align 4", old, p, val)
		from := f.cur
		f.endGuard(join)
		r := f.t()
		f.emitf("%s = phi i32 [ %s, %%%s ], [ 0, %%%s ]", r, old, from, fail)
		f.set(op.Results[0], r)
		return
	}
	spin, done := f.newLabel("spin"), f.newLabel("spun")
	f.emitf("br label %%%s", spin)
	f.startBlock(spin)
	x, reached := f.t(), f.t()
	f.emitf("%s = load atomic i32, ptr %s acquire, align 4", x, p)
	f.emitf("%s = icmp sge i32 %s, %s", reached, x, val)
	wait := f.newLabel("wait")
	f.emitf("br i1 %s, label %%%s, label %%%s", reached, done, wait)
	f.startBlock(wait)
	switch archOf(f.mo.m.Triple) {
	case "x86_64":
		f.emitf("call void @llvm.x86.sse2.pause()")
		f.mo.declare("llvm.x86.sse2.pause", "declare void @llvm.x86.sse2.pause()")
	case "aarch64":
		f.emitf("call void @llvm.aarch64.hint(i32 1)")
		f.mo.declare("llvm.aarch64.hint", "declare void @llvm.aarch64.hint(i32)")
	}
	f.emitf("br label %%%s", spin)
	f.startBlock(done)
	f.endGuard(join)
}
