package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// gv is the number of vectors of C the transposed GEMV keeps in registers
// (more would spill the vl loaded columns and their transposes).
const gv = 1

// gemvTransposed emits C's row when B's columns are contiguous (row
// stride 1) and there is one row (M = 1; with more, packing B once is
// cheaper than transposing it per row): for every gv·vl columns, gv
// vectors of C stay in registers while K is swept vl steps at a time, each step loading gv·vl columns of B along K (vl contiguous
// elements each), transposing them in registers and adding the vl
// products to each lane in k order. Whole steps load without masks; the
// last columns and K steps load with masks, and the K steps past K are
// skipped (not added as zeros, which would turn -0 into +0 and inf·0 into
// NaN). It starts at label gt.entry and branches to next.
func (t *kernelText) gemvTransposed(next string) {
	w, vl, V := t.w, t.vl, t.vec()
	nr := gv * vl
	t.gemvOpen("gt", gv, next)
	w("  %%gt.full = icmp eq i64 %%gt.nw, %d", nr)
	w("  br label %%gt.k.head")
	w("gt.k.head:")
	w("  %%gt.k = phi i64 [ 0, %%gt.j.body ], [ %%gt.k.next, %%gt.k.latch ]")
	for g := 0; g < gv; g++ {
		w("  %%gt.acc_%d = phi %s [ %%gt.acc0_%d, %%gt.j.body ], [ %%gt.accl_%d, %%gt.k.latch ]", g, V, g, g)
	}
	w("  %%gt.k.more = icmp slt i64 %%gt.k, %%K")
	w("  br i1 %%gt.k.more, label %%gt.k.body, label %%gt.k.exit")
	w("gt.k.body:")
	w("  %%gt.kleft = sub i64 %%K, %%gt.k")
	w("  %%gt.kfull = icmp sge i64 %%gt.kleft, %d", vl)
	w("  %%gt.whole = and i1 %%gt.full, %%gt.kfull")
	w("  %%gt.base = add i64 %%bo, %%gt.k")
	w("  %%gt.ak = mul i64 %%gt.k, %%acs")
	w("  %%gt.ak0 = add i64 %%gt.arow, %%gt.ak")
	w("  br i1 %%gt.whole, label %%gtw.body, label %%gtm.body")
	for _, masked := range []bool{false, true} {
		p := "gtw"
		if masked {
			p = "gtm"
		}
		w("%s.body:", p)
		if masked {
			t.lanesBelow("%gtm.kmask", 0, "%gt.kleft")
		}
		cols := make([][]string, gv)
		for g := 0; g < gv; g++ {
			rows := make([]string, vl)
			for l := 0; l < vl; l++ {
				col := g*vl + l
				x := fmt.Sprintf("%%%s.%d_%d", p, g, l)
				w("  %s.col = add i64 %%gt.j, %d", x, col)
				w("  %s.cb = mul i64 %s.col, %%bcs", x, x)
				w("  %s.off = add i64 %%gt.base, %s.cb", x, x)
				w("  %s.p = getelementptr float, ptr %%B, i64 %s.off", x, x)
				if masked {
					w("  %s.ok = icmp slt i64 %d, %%gt.nw", x, col)
					w("  %s.m = select i1 %s.ok, %s %%gtm.kmask, %s zeroinitializer", x, x, t.maskTy(), t.maskTy())
					t.maskedLoad(x+".v", x+".p", x+".m")
				} else {
					w("  %s.v = load %s, ptr %s.p, align 4", x, V, x)
					w("  %s.pf = getelementptr float, ptr %s.p, i64 %d", x, x, 8*vl)
					w("  call void @llvm.prefetch.p0(ptr %s.pf, i32 0, i32 3, i32 1)", x)
				}
				rows[l] = x + ".v"
			}
			cols[g] = t.transpose(fmt.Sprintf("%%%s.t%d", p, g), rows)
		}
		// K step k+l adds A[i, k+l] · B[k+l, j…] to every lane; in the
		// masked step only while k+l < K.
		acc := make([]string, gv)
		for g := range acc {
			acc[g] = fmt.Sprintf("%%gt.acc_%d", g)
		}
		from := p + ".body"
		for l := 0; l < vl; l++ {
			x := fmt.Sprintf("%%%s.l%d", p, l)
			if masked {
				w("  %s.in = icmp slt i64 %d, %%gt.kleft", x, l)
				w("  br i1 %s.in, label %s.do, label %s.skip", x, x, x)
				w("%s.do:", x[1:])
			}
			if l > 0 {
				w("  %s.la = mul i64 %d, %%acs", x, l)
				w("  %s.ao2 = add i64 %%gt.ak0, %s.la", x, x)
			} else {
				w("  %s.ao2 = add i64 %%gt.ak0, 0", x)
			}
			w("  %s.ap = getelementptr inbounds float, ptr %%A, i64 %s.ao2", x, x)
			w("  %s.as = load float, ptr %s.ap, align 4", x, x)
			w("  %s.ai = insertelement <1 x float> poison, float %s.as, i64 0", x, x)
			w("  %s.av = shufflevector <1 x float> %s.ai, <1 x float> poison, <%d x i32> zeroinitializer", x, x, vl)
			nacc := make([]string, gv)
			for g := 0; g < gv; g++ {
				nacc[g] = fmt.Sprintf("%s.acc%d", x, g)
				w("  %s = call %s @llvm.fmuladd%s(%s %s.av, %s %s, %s %s)", nacc[g], V, mangle(kir.F32, vl), V, x, V, cols[g][l], V, acc[g])
			}
			if masked {
				w("  br label %s.skip", x)
				w("%s.skip:", x[1:])
				for g := 0; g < gv; g++ {
					w("  %s.accj%d = phi %s [ %s, %%%s ], [ %s, %s.do ]", x, g, V, acc[g], from, nacc[g], x)
					nacc[g] = fmt.Sprintf("%s.accj%d", x, g)
				}
				from = x[1:] + ".skip"
			}
			acc = nacc
		}
		w("  br label %%%s.body.end", p)
		w("%s.body.end:", p)
		for g := 0; g < gv; g++ {
			w("  %%%s.accl_%d = bitcast %s %s to %s", p, g, V, acc[g], V)
		}
		w("  br label %%gt.k.latch")
	}
	w("gt.k.latch:")
	for g := 0; g < gv; g++ {
		w("  %%gt.accl_%d = phi %s [ %%gtw.accl_%d, %%gtw.body.end ], [ %%gtm.accl_%d, %%gtm.body.end ]", g, V, g, g)
	}
	w("  %%gt.k.next = add i64 %%gt.k, %d", vl)
	w("  br label %%gt.k.head")
	t.gemvClose("gt", gv)
}

// rv is the number of vectors of C the row-major GEMV keeps in registers
// (independent accumulators hide the fused multiply-add's latency).
const rv = 4

// gemvRows emits C's row when B's rows are contiguous and there is one
// row (M = 1; with more, the packed panel serves them all): for every
// rv·vl columns, rv vectors of C stay in registers while K is swept in
// order, each step adding A's broadcast element times B's row segment
// (loaded with the column masks).
// It starts at label gr.entry and branches to next.
func (t *kernelText) gemvRows(next string) {
	w, vl, V := t.w, t.vl, t.vec()
	t.gemvOpen("gr", rv, next)
	w("  %%gr.bj = add i64 %%bo, %%gr.j")
	// Whole blocks of columns load B without masks (masked loads are
	// several times slower on some x86 cores); the same products in the
	// same order either way.
	w("  %%gr.full = icmp eq i64 %%gr.nw, %d", rv*vl)
	w("  br label %%gr.k.head")
	w("gr.k.head:")
	w("  %%gr.k = phi i64 [ 0, %%gr.j.body ], [ %%gr.k.next, %%gr.k.latch ]")
	for c := 0; c < rv; c++ {
		w("  %%gr.acc_%d = phi %s [ %%gr.acc0_%d, %%gr.j.body ], [ %%gr.accn_%d, %%gr.k.latch ]", c, V, c, c)
	}
	w("  %%gr.k.more = icmp slt i64 %%gr.k, %%K")
	w("  br i1 %%gr.k.more, label %%gr.k.body, label %%gr.k.exit")
	w("gr.k.body:")
	w("  %%gr.ak = mul i64 %%gr.k, %%acs")
	w("  %%gr.ao = add i64 %%gr.arow, %%gr.ak")
	w("  %%gr.ap = getelementptr inbounds float, ptr %%A, i64 %%gr.ao")
	w("  %%gr.as = load float, ptr %%gr.ap, align 4")
	w("  %%gr.ai = insertelement <1 x float> poison, float %%gr.as, i64 0")
	w("  %%gr.av = shufflevector <1 x float> %%gr.ai, <1 x float> poison, <%d x i32> zeroinitializer", vl)
	w("  %%gr.bk = mul i64 %%gr.k, %%brs")
	w("  %%gr.bo = add i64 %%gr.bj, %%gr.bk")
	w("  %%gr.bp = getelementptr float, ptr %%B, i64 %%gr.bo")
	w("  br i1 %%gr.full, label %%grw.body, label %%grm.body")
	for _, masked := range []bool{false, true} {
		p := "grw"
		if masked {
			p = "grm"
		}
		w("%s.body:", p)
		for c := 0; c < rv; c++ {
			w("  %%%s.bq%d = getelementptr float, ptr %%gr.bp, i64 %d", p, c, c*vl)
			if masked {
				t.maskedLoad(fmt.Sprintf("%%%s.bv%d", p, c), fmt.Sprintf("%%%s.bq%d", p, c), fmt.Sprintf("%%gr.mask%d", c))
			} else {
				w("  %%%s.bv%d = load %s, ptr %%%s.bq%d, align 4", p, c, V, p, c)
			}
			w("  %%%s.accn_%d = call %s @llvm.fmuladd%s(%s %%gr.av, %s %%%s.bv%d, %s %%gr.acc_%d)", p, c, V, mangle(kir.F32, vl), V, V, p, c, V, c)
		}
		w("  br label %%gr.k.latch")
	}
	w("gr.k.latch:")
	for c := 0; c < rv; c++ {
		w("  %%gr.accn_%d = phi %s [ %%grw.accn_%d, %%grw.body ], [ %%grm.accn_%d, %%grm.body ]", c, V, c, c)
	}
	w("  %%gr.k.next = add i64 %%gr.k, 1")
	w("  br label %%gr.k.head")
	t.gemvClose("gr", rv)
}

// gemvOpen emits the loops both GEMV paths share, with labels and values
// prefixed p: rows i of A and C (stopping at next), then columns j of C in
// steps of nv vectors, whose first block it leaves open at p.j.body with
// %p.nw = the columns this step covers, and for each vector c the mask
// %p.mask<c>, C's address %p.cq<c> and the accumulator %p.acc0_<c> (C's
// values, or zeros when C starts at zero). The caller ends the block by
// branching to its K loop, which exits to p.k.exit (gemvClose).
func (t *kernelText) gemvOpen(p string, nv int, next string) {
	w, vl := t.w, t.vl
	nr := nv * vl
	w("%s.entry:", p)
	w("  br label %%%s.i.head", p)
	w("%s.i.head:", p)
	w("  %%%[1]s.i = phi i64 [ 0, %%%[1]s.entry ], [ %%%[1]s.i.next, %%%[1]s.j.exit ]", p)
	w("  %%%[1]s.i.more = icmp slt i64 %%%[1]s.i, %%M", p)
	w("  br i1 %%%[1]s.i.more, label %%%[1]s.i.body, label %%%[2]s", p, next)
	w("%s.i.body:", p)
	w("  %%%[1]s.ar = mul i64 %%%[1]s.i, %%ars", p)
	w("  %%%[1]s.arow = add i64 %%ao, %%%[1]s.ar", p)
	w("  %%%[1]s.cr = mul i64 %%%[1]s.i, %%crs", p)
	w("  %%%[1]s.crow = add i64 %%co, %%%[1]s.cr", p)
	w("  br label %%%s.j.head", p)
	w("%s.j.head:", p)
	w("  %%%[1]s.j = phi i64 [ 0, %%%[1]s.i.body ], [ %%%[1]s.j.next, %%%[1]s.k.exit ]", p)
	w("  %%%[1]s.j.more = icmp slt i64 %%%[1]s.j, %%N", p)
	w("  br i1 %%%[1]s.j.more, label %%%[1]s.j.body, label %%%[1]s.j.exit", p)
	w("%s.j.body:", p)
	w("  %%%[1]s.nleft = sub i64 %%N, %%%[1]s.j", p)
	w("  %%%[1]s.nsmall = icmp slt i64 %%%[1]s.nleft, %[2]d", p, nr)
	w("  %%%[1]s.nw = select i1 %%%[1]s.nsmall, i64 %%%[1]s.nleft, i64 %[2]d", p, nr)
	w("  %%%[1]s.cj = add i64 %%%[1]s.crow, %%%[1]s.j", p)
	w("  %%%[1]s.cp = getelementptr inbounds float, ptr %%C, i64 %%%[1]s.cj", p)
	for c := 0; c < nv; c++ {
		mask, cq, acc0 := fmt.Sprintf("%%%s.mask%d", p, c), fmt.Sprintf("%%%s.cq%d", p, c), fmt.Sprintf("%%%s.acc0_%d", p, c)
		t.lanesBelow(mask, c*vl, "%"+p+".nw")
		w("  %s = getelementptr float, ptr %%%s.cp, i64 %d", cq, p, c*vl)
		if t.zero {
			t.zeroAcc(acc0, vl)
		} else {
			t.maskedLoad(acc0, cq, mask)
		}
	}
}

// gemvClose emits p.k.exit, where the nv accumulators %p.acc_<c> are
// stored to C under their masks, and the latches of gemvOpen's loops.
func (t *kernelText) gemvClose(p string, nv int) {
	w := t.w
	w("%s.k.exit:", p)
	for c := 0; c < nv; c++ {
		t.maskedStore(fmt.Sprintf("%%%s.acc_%d", p, c), fmt.Sprintf("%%%s.cq%d", p, c), fmt.Sprintf("%%%s.mask%d", p, c))
	}
	w("  %%%[1]s.j.next = add i64 %%%[1]s.j, %[2]d", p, nv*t.vl)
	w("  br label %%%s.j.head", p)
	w("%s.j.exit:", p)
	w("  %%%[1]s.i.next = add i64 %%%[1]s.i, 1", p)
	w("  br label %%%s.i.head", p)
}
