package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// buffer returns the base pointer, element count operand, element type,
// index and check kind of the memory op addresses.
func (f *fn) buffer(op *kir.Op) (base, count string, elem kir.Scalar, idx int, kind llvmcpu.ErrorKind) {
	switch op.Kind {
	case kir.LoadShared, kir.StoreShared:
		s := f.k.Shared[op.Binding]
		return fmt.Sprintf("%%s%d", op.Binding), fmt.Sprint(s.Count), s.Elem, op.Binding, llvmcpu.ErrShared
	}
	return fmt.Sprintf("%%b%d", op.Binding), fmt.Sprintf("%%n%d", op.Binding), f.k.Bindings[op.Binding].Elem, op.Binding, llvmcpu.ErrOutOfBounds
}

// span guards the access of lanes elements at off, off+stride, …: they
// must lie below count (see guard).
func (f *fn) span(off, stride string, lanes int, count string, kind llvmcpu.ErrorKind, idx int) (join, fail string) {
	i64 := kir.S(kir.I64)
	b1 := kir.S(kir.I1)
	ok := f.icmp("ult", i64, off, count)
	if lanes > 1 {
		var last string
		if stride == "" {
			last = f.bin("add", i64, off, fmt.Sprint(lanes-1))
		} else {
			last = f.bin("add", i64, off, f.bin("mul", i64, stride, fmt.Sprint(lanes-1)))
			small := f.icmp("ult", i64, f.bin("add", i64, stride, fmt.Sprint(int64(1)<<40)), fmt.Sprint(int64(1)<<41))
			ok = f.bin("and", b1, ok, small)
		}
		ok = f.bin("and", b1, ok, f.icmp("ult", i64, last, count))
	}
	return f.guard(ok, kind, idx)
}

// load emits Load, LoadStrided and LoadShared.
func (f *fn) load(op *kir.Op, rt kir.Type) string {
	base, count, elem, idx, kind := f.buffer(op)
	off := f.v(op.Args[0])
	n := rt.Width()
	mt := vecOf(memTy(elem), n)
	align := elem.ByteSize()
	var raw, join, fail string
	if op.Kind == kir.LoadStrided {
		stride := f.v(op.Args[1])
		join, fail = f.span(off, stride, n, count, kind, idx)
		if n == 1 {
			p, x := f.t(), f.t()
			f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
			f.emitf("%s = load %s, ptr %s, align %d", x, memTy(elem), p, align)
			raw = x
		} else if s, ok := f.spanStride(op.Args[1], n); ok {
			raw = f.loadSpan(base, elem, off, s, n)
		} else {
			ptrs := f.lanePointers(base, elem, off, stride, n)
			name := "llvm.masked.gather" + vecMangle(elem, n) + fmt.Sprintf(".v%dp0", n)
			raw = f.call(mt, name, vecOf("ptr", n), ptrs, "i32", fmt.Sprint(align), vecOf("i1", n), splat("i1", n, "true"), mt, "poison")
		}
	} else {
		join, fail = f.span(off, "", n, count, kind, idx)
		p, x := f.t(), f.t()
		f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
		f.emitf("%s = load %s, ptr %s, align %d", x, mt, p, align)
		raw = x
	}
	// A failed check loads zeros.
	from := f.cur
	f.endGuard(join)
	phi := f.t()
	f.emitf("%s = phi %s [ %s, %%%s ], [ zeroinitializer, %%%s ]", phi, mt, raw, from, fail)
	raw = phi
	if elem == kir.I1 {
		r := f.t()
		f.emitf("%s = trunc %s %s to %s", r, mt, raw, ty(rt))
		return r
	}
	return raw
}

// store emits Store, StoreStrided and StoreShared.
func (f *fn) store(op *kir.Op) {
	base, count, elem, idx, kind := f.buffer(op)
	off := f.v(op.Args[0])
	val := op.Args[len(op.Args)-1]
	vt := f.k.Types[val]
	n := vt.Width()
	mt := vecOf(memTy(elem), n)
	align := elem.ByteSize()
	x := f.v(val)
	if elem == kir.I1 {
		z := f.t()
		f.emitf("%s = zext %s %s to %s", z, ty(vt), x, mt)
		x = z
	}
	if op.Kind == kir.StoreStrided {
		stride := f.v(op.Args[1])
		join, _ := f.span(off, stride, n, count, kind, idx)
		defer f.endGuard(join)
		if n == 1 {
			p := f.t()
			f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
			f.emitf("store %s %s, ptr %s, align %d", memTy(elem), x, p, align)
			return
		}
		if s, ok := f.spanStride(op.Args[1], n); ok {
			f.storeSpan(base, elem, off, mt, x, s, n)
			return
		}
		ptrs := f.lanePointers(base, elem, off, stride, n)
		name := "llvm.masked.scatter" + vecMangle(elem, n) + fmt.Sprintf(".v%dp0", n)
		f.emitf("call void @%s(%s %s, %s %s, i32 %d, %s %s)", name, mt, x, vecOf("ptr", n), ptrs, align, vecOf("i1", n), splat("i1", n, "true"))
		f.mo.declare(name, fmt.Sprintf("declare void @%s(%s, %s, i32, %s)", name, mt, vecOf("ptr", n), vecOf("i1", n)))
		return
	}
	join, _ := f.span(off, "", n, count, kind, idx)
	p := f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
	f.emitf("store %s %s, ptr %s, align %d", mt, x, p, align)
	f.endGuard(join)
}

// contract emits the Contract tile op: nothing when M, N or K is not
// positive (K may be with kir.ContractZero, which then writes zeros and
// checks only C's tile, or with a fused epilogue, which still applies);
// else the tiles' bounds checks and a call of the microkernel for the
// operand types (with its epilogue: epilogueContract).
func (f *fn) contract(op *kir.Op) {
	a := make([]string, 12)
	for i := range a {
		a[i] = f.v(op.Args[i])
	}
	i64, b1 := kir.S(kir.I64), kir.S(kir.I1)
	zero := op.Imm&kir.ContractZero != 0
	epi := op.Imm & epiFlags
	kpos := f.icmp("sgt", i64, a[11], "0")
	kok := kpos
	if zero || epi != 0 {
		kok = "true"
	}
	pos := f.bin("and", b1, f.icmp("sgt", i64, a[9], "0"), f.bin("and", b1, f.icmp("sgt", i64, a[10], "0"), kok))
	do, done := f.newLabel("contract"), f.newLabel("contract.end")
	f.emitf("br i1 %s, label %%%s, label %%%s", pos, do, done)
	f.startBlock(do)
	rows := [3]string{a[9], a[11], a[9]}
	cols := [3]string{a[11], a[10], a[10]}
	all := "true"
	for i, b := range op.Bindings {
		ok := f.tileOK(b, a[3*i], a[3*i+1], a[3*i+2], rows[i], cols[i])
		if (zero || epi != 0) && i < 2 {
			ok = f.bin("or", b1, ok, f.bin("xor", b1, kpos, "true")) // A, B not read when K ≤ 0
		}
		all = f.tileChecked(all, ok, b)
	}
	epiArgs := ""
	if epi != 0 {
		epiArgs, all = f.contractEpilogueArgs(op, a[9], a[10], all)
	}
	call := f.newLabel("contract.call")
	f.emitf("br i1 %s, label %%%s, label %%%s", all, call, done)
	f.startBlock(call)
	var elems [3]kir.Scalar
	for i, b := range op.Bindings {
		elems[i], _, _ = f.k.TileMem(b)
	}
	name := f.mo.contractFn(elems, op.Imm&kir.ContractUnsigned != 0, zero)
	if epi != 0 {
		name = f.mo.epilogueContract(elems, op.Imm&kir.ContractUnsigned != 0, zero, op.Imm&kir.ContractBiasCol != 0)
	}
	f.emitf("call void @%s(ptr %%b%d, i64 %s, i64 %s, i64 %s, ptr %%b%d, i64 %s, i64 %s, i64 %s, ptr %%b%d, i64 %s, i64 %s, i64 %s, i64 %s, i64 %s, i64 %s%s)",
		name, op.Bindings[0], a[0], a[1], a[2], op.Bindings[1], a[3], a[4], a[5], op.Bindings[2], a[6], a[7], a[8], a[9], a[10], a[11], epiArgs)
	f.emitf("br label %%%s", done)
	f.startBlock(done)
}

// tileOK is whether binding b's rows×cols tile at off with strides rs, cs
// lies in its buffer (gree_tile_ok).
func (f *fn) tileOK(b int, off, rs, cs, rows, cols string) string {
	f.mo.declareTileOK()
	return f.call("i1", "gree_tile_ok", "i64", off, "i64", rs, "i64", cs, "i64", rows, "i64", cols, "i64", fmt.Sprintf("%%n%d", b))
}

// tileChecked reports a tile bounds error on binding b where ok is false
// and returns all and ok.
func (f *fn) tileChecked(all, ok string, b int) string {
	join, _ := f.guard(ok, llvmcpu.ErrTileBounds, b)
	f.endGuard(join)
	return f.bin("and", kir.S(kir.I1), all, ok)
}

// declareTileOK defines gree_tile_ok(off, rs, cs, rows, cols, count): true
// when every element of the rows×cols tile lies in [0, count).
func (mo *module) declareTileOK() {
	if _, ok := mo.decls["gree_tile_ok"]; ok {
		return
	}
	mo.declare("gree_tile_ok", `define internal i1 @gree_tile_ok(i64 %off, i64 %rs, i64 %cs, i64 %rows, i64 %cols, i64 %n) alwaysinline {
  %r1 = icmp ult i64 %rows, 2147483648
  %c1 = icmp ult i64 %cols, 2147483648
  %rsa = add i64 %rs, 2147483648
  %rs1 = icmp ult i64 %rsa, 4294967296
  %csa = add i64 %cs, 2147483648
  %cs1 = icmp ult i64 %csa, 4294967296
  %rm = sub i64 %rows, 1
  %cm = sub i64 %cols, 1
  %er = mul i64 %rm, %rs
  %ec = mul i64 %cm, %cs
  %erlo = call i64 @llvm.smin.i64(i64 %er, i64 0)
  %eclo = call i64 @llvm.smin.i64(i64 %ec, i64 0)
  %erhi = call i64 @llvm.smax.i64(i64 %er, i64 0)
  %echi = call i64 @llvm.smax.i64(i64 %ec, i64 0)
  %lo1 = add i64 %off, %erlo
  %lo = add i64 %lo1, %eclo
  %hi1 = add i64 %off, %erhi
  %hi = add i64 %hi1, %echi
  %o1 = icmp ult i64 %off, %n
  %l1 = icmp sge i64 %lo, 0
  %h1 = icmp slt i64 %hi, %n
  %a1 = and i1 %r1, %c1
  %a2 = and i1 %a1, %rs1
  %a3 = and i1 %a2, %cs1
  %a4 = and i1 %a3, %o1
  %a5 = and i1 %a4, %l1
  %a6 = and i1 %a5, %h1
  ret i1 %a6
}
`)
	mo.declare("llvm.smin.i64", "declare i64 @llvm.smin.i64(i64, i64)")
	mo.declare("llvm.smax.i64", "declare i64 @llvm.smax.i64(i64, i64)")
}

// lanePointers returns the n pointers base + (off + i·stride) elements.
func (f *fn) lanePointers(base string, elem kir.Scalar, off, stride string, n int) string {
	vt := kir.V(kir.I64, n)
	iota := "<"
	for i := 0; i < n; i++ {
		if i > 0 {
			iota += ", "
		}
		iota += fmt.Sprintf("i64 %d", i)
	}
	iota += ">"
	idx := f.bin("add", vt, f.broadcast(vt, off), f.bin("mul", vt, f.broadcast(vt, stride), iota))
	p := f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, %s %s", p, memTy(elem), base, ty(vt), idx)
	return p
}

// vecMangle is the intrinsic suffix of n lanes of elem in memory (i1 as
// i8).
func vecMangle(elem kir.Scalar, n int) string {
	if elem == kir.I1 {
		return mangle(kir.I8, n)
	}
	return mangle(elem, n)
}
