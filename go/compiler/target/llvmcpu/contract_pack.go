package llvmcpu

import (
	"fmt"
	"strings"
)

// The packed panel of B: pack[k·nv·vl + c] = B[kb+k, j+c] for k < kc and
// c < nw (the columns left, at most nv·vl), 0 for c ≥ nw. Its rows are
// 64-byte aligned; it has vl spare rows for the transposed packing's
// whole vl × vl blocks.

// packRows emits the packing of a panel of B with contiguous rows (column
// stride 1): per K step, nv masked vector loads and aligned stores. It
// starts at label pr.entry and branches to packed.
func (t *kernelText) packRows() {
	w, vl, V := t.w, t.vl, t.vec()
	nr := nv * vl
	w("pr.entry:")
	w("  %%pr.bj = add i64 %%bo, %%j")
	w("  br label %%pr.head")
	w("pr.head:")
	w("  %%pr.k = phi i64 [ 0, %%pr.entry ], [ %%pr.k.next, %%pr.body ]")
	w("  %%pr.more = icmp slt i64 %%pr.k, %%kc")
	w("  br i1 %%pr.more, label %%pr.body, label %%packed")
	w("pr.body:")
	w("  %%pr.kk = add i64 %%kb, %%pr.k")
	w("  %%pr.kr = mul i64 %%pr.kk, %%brs")
	w("  %%pr.off = add i64 %%pr.kr, %%pr.bj")
	w("  %%pr.src = getelementptr float, ptr %%B, i64 %%pr.off")
	w("  %%pr.doff = mul i64 %%pr.k, %d", nr)
	w("  %%pr.dst = getelementptr inbounds float, ptr %%pack, i64 %%pr.doff")
	for c := 0; c < nv; c++ {
		w("  %%pr.s%d = getelementptr float, ptr %%pr.src, i64 %d", c, c*vl)
		t.maskedLoad(fmt.Sprintf("%%pr.v%d", c), fmt.Sprintf("%%pr.s%d", c), fmt.Sprintf("%%mask%d", c))
		w("  %%pr.d%d = getelementptr inbounds float, ptr %%pr.dst, i64 %d", c, c*vl)
		w("  store %s %%pr.v%d, ptr %%pr.d%d, align 64", V, c, c)
	}
	w("  %%pr.k.next = add i64 %%pr.k, 1")
	w("  br label %%pr.head")
}

// packTransposed emits the packing of a panel of B with contiguous
// columns (row stride 1): per vl K steps and vl columns, vl masked vector
// loads along K (one per column; columns past nw load zeros), a vl × vl
// transpose in registers and vl aligned stores. It starts at label
// pt.entry and branches to packed.
func (t *kernelText) packTransposed() {
	w, vl, V := t.w, t.vl, t.vec()
	nr := nv * vl
	M := t.maskTy()
	w("pt.entry:")
	w("  br label %%pt.head")
	w("pt.head:")
	w("  %%pt.k = phi i64 [ 0, %%pt.entry ], [ %%pt.k.next, %%pt.body ]")
	w("  %%pt.more = icmp slt i64 %%pt.k, %%kc")
	w("  br i1 %%pt.more, label %%pt.body, label %%packed")
	w("pt.body:")
	w("  %%pt.kleft = sub i64 %%kc, %%pt.k")
	t.lanesBelow("%pt.kmask", 0, "%pt.kleft")
	w("  %%pt.kk = add i64 %%kb, %%pt.k")
	w("  %%pt.base = add i64 %%bo, %%pt.kk")
	w("  %%pt.doff = mul i64 %%pt.k, %d", nr)
	w("  %%pt.dst = getelementptr inbounds float, ptr %%pack, i64 %%pt.doff")
	for g := 0; g < nv; g++ {
		rows := make([]string, vl)
		for l := 0; l < vl; l++ {
			col := g*vl + l
			x := fmt.Sprintf("%%pt.%d_%d", g, l)
			w("  %s.ok = icmp slt i64 %d, %%nw", x, col)
			w("  %s.m = select i1 %s.ok, %s %%pt.kmask, %s zeroinitializer", x, x, M, M)
			w("  %s.col = add i64 %%j, %d", x, col)
			w("  %s.cb = mul i64 %s.col, %%bcs", x, x)
			w("  %s.off = add i64 %%pt.base, %s.cb", x, x)
			w("  %s.p = getelementptr float, ptr %%B, i64 %s.off", x, x)
			t.maskedLoad(x+".v", x+".p", x+".m")
			rows[l] = x + ".v"
		}
		cols := t.transpose(fmt.Sprintf("%%pt.t%d", g), rows)
		for l, v := range cols {
			w("  %%pt.d%d_%d = getelementptr inbounds float, ptr %%pt.dst, i64 %d", g, l, l*nr+g*vl)
			w("  store %s %s, ptr %%pt.d%d_%d, align 64", V, v, g, l)
		}
	}
	w("  %%pt.k.next = add i64 %%pt.k, %d", vl)
	w("  br label %%pt.head")
}

// transpose emits the transpose of the vl × vl matrix whose rows are the
// vectors rows and returns its columns. Each of log2(vl) rounds
// interleaves vector p with vector p+vl/2 (low halves into 2p, high
// halves into 2p+1): an element at vector v, lane l moves to vector
// (2v + l/(vl/2)) mod vl, lane (2l + v/(vl/2)) mod vl — the bits of
// (v, l) rotate left by one — so log2(vl) rounds swap v and l.
func (t *kernelText) transpose(name string, rows []string) []string {
	vl, V := t.vl, t.vec()
	h := vl / 2
	lo, hi := make([]string, vl), make([]string, vl)
	for i := 0; i < h; i++ {
		lo[2*i], lo[2*i+1] = fmt.Sprintf("i32 %d", i), fmt.Sprintf("i32 %d", vl+i)
		hi[2*i], hi[2*i+1] = fmt.Sprintf("i32 %d", h+i), fmt.Sprintf("i32 %d", vl+h+i)
	}
	loM, hiM := "<"+strings.Join(lo, ", ")+">", "<"+strings.Join(hi, ", ")+">"
	cur := rows
	for round := 0; 1<<round < vl; round++ {
		next := make([]string, vl)
		for p := 0; p < h; p++ {
			x, y := cur[p], cur[p+h]
			next[2*p] = fmt.Sprintf("%s.r%d_%d", name, round, 2*p)
			next[2*p+1] = fmt.Sprintf("%s.r%d_%d", name, round, 2*p+1)
			t.w("  %s = shufflevector %s %s, %s %s, <%d x i32> %s", next[2*p], V, x, V, y, vl, loM)
			t.w("  %s = shufflevector %s %s, %s %s, <%d x i32> %s", next[2*p+1], V, x, V, y, vl, hiM)
		}
		cur = next
	}
	return cur
}
