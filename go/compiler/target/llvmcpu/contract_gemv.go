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
	w("gt.entry:")
	w("  br label %%gt.i.head")
	w("gt.i.head:")
	w("  %%gt.i = phi i64 [ 0, %%gt.entry ], [ %%gt.i.next, %%gt.j.exit ]")
	w("  %%gt.i.more = icmp slt i64 %%gt.i, %%M")
	w("  br i1 %%gt.i.more, label %%gt.i.body, label %%%s", next)
	w("gt.i.body:")
	w("  %%gt.ar = mul i64 %%gt.i, %%ars")
	w("  %%gt.arow = add i64 %%ao, %%gt.ar")
	w("  %%gt.cr = mul i64 %%gt.i, %%crs")
	w("  %%gt.crow = add i64 %%co, %%gt.cr")
	w("  br label %%gt.j.head")
	w("gt.j.head:")
	w("  %%gt.j = phi i64 [ 0, %%gt.i.body ], [ %%gt.j.next, %%gt.k.exit ]")
	w("  %%gt.j.more = icmp slt i64 %%gt.j, %%N")
	w("  br i1 %%gt.j.more, label %%gt.j.body, label %%gt.j.exit")
	w("gt.j.body:")
	w("  %%gt.nleft = sub i64 %%N, %%gt.j")
	w("  %%gt.nsmall = icmp slt i64 %%gt.nleft, %d", nr)
	w("  %%gt.nw = select i1 %%gt.nsmall, i64 %%gt.nleft, i64 %d", nr)
	w("  %%gt.full = icmp eq i64 %%gt.nw, %d", nr)
	w("  %%gt.cj = add i64 %%gt.crow, %%gt.j")
	w("  %%gt.cp = getelementptr inbounds float, ptr %%C, i64 %%gt.cj")
	for g := 0; g < gv; g++ {
		t.lanesBelow(fmt.Sprintf("%%gt.mask%d", g), g*vl, "%gt.nw")
		w("  %%gt.cq%d = getelementptr float, ptr %%gt.cp, i64 %d", g, g*vl)
		if t.zero {
			t.zeroAcc(fmt.Sprintf("%%gt.acc0_%d", g), vl)
		} else {
			t.maskedLoad(fmt.Sprintf("%%gt.acc0_%d", g), fmt.Sprintf("%%gt.cq%d", g), fmt.Sprintf("%%gt.mask%d", g))
		}
	}
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
	w("gt.k.exit:")
	for g := 0; g < gv; g++ {
		t.maskedStore(fmt.Sprintf("%%gt.acc_%d", g), fmt.Sprintf("%%gt.cq%d", g), fmt.Sprintf("%%gt.mask%d", g))
	}
	w("  %%gt.j.next = add i64 %%gt.j, %d", nr)
	w("  br label %%gt.j.head")
	w("gt.j.exit:")
	w("  %%gt.i.next = add i64 %%gt.i, 1")
	w("  br label %%gt.i.head")
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
	nr := rv * vl
	w("gr.entry:")
	w("  br label %%gr.i.head")
	w("gr.i.head:")
	w("  %%gr.i = phi i64 [ 0, %%gr.entry ], [ %%gr.i.next, %%gr.j.exit ]")
	w("  %%gr.i.more = icmp slt i64 %%gr.i, %%M")
	w("  br i1 %%gr.i.more, label %%gr.i.body, label %%%s", next)
	w("gr.i.body:")
	w("  %%gr.ar = mul i64 %%gr.i, %%ars")
	w("  %%gr.arow = add i64 %%ao, %%gr.ar")
	w("  %%gr.cr = mul i64 %%gr.i, %%crs")
	w("  %%gr.crow = add i64 %%co, %%gr.cr")
	w("  br label %%gr.j.head")
	w("gr.j.head:")
	w("  %%gr.j = phi i64 [ 0, %%gr.i.body ], [ %%gr.j.next, %%gr.k.exit ]")
	w("  %%gr.j.more = icmp slt i64 %%gr.j, %%N")
	w("  br i1 %%gr.j.more, label %%gr.j.body, label %%gr.j.exit")
	w("gr.j.body:")
	w("  %%gr.nleft = sub i64 %%N, %%gr.j")
	w("  %%gr.nsmall = icmp slt i64 %%gr.nleft, %d", nr)
	w("  %%gr.nw = select i1 %%gr.nsmall, i64 %%gr.nleft, i64 %d", nr)
	w("  %%gr.cj = add i64 %%gr.crow, %%gr.j")
	w("  %%gr.cp = getelementptr inbounds float, ptr %%C, i64 %%gr.cj")
	w("  %%gr.bj = add i64 %%bo, %%gr.j")
	for c := 0; c < rv; c++ {
		t.lanesBelow(fmt.Sprintf("%%gr.mask%d", c), c*vl, "%gr.nw")
		w("  %%gr.cq%d = getelementptr float, ptr %%gr.cp, i64 %d", c, c*vl)
		if t.zero {
			t.zeroAcc(fmt.Sprintf("%%gr.acc0_%d", c), vl)
		} else {
			t.maskedLoad(fmt.Sprintf("%%gr.acc0_%d", c), fmt.Sprintf("%%gr.cq%d", c), fmt.Sprintf("%%gr.mask%d", c))
		}
	}
	w("  br label %%gr.k.head")
	w("gr.k.head:")
	w("  %%gr.k = phi i64 [ 0, %%gr.j.body ], [ %%gr.k.next, %%gr.k.body ]")
	for c := 0; c < rv; c++ {
		w("  %%gr.acc_%d = phi %s [ %%gr.acc0_%d, %%gr.j.body ], [ %%gr.accn_%d, %%gr.k.body ]", c, V, c, c)
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
	for c := 0; c < rv; c++ {
		w("  %%gr.bq%d = getelementptr float, ptr %%gr.bp, i64 %d", c, c*vl)
		t.maskedLoad(fmt.Sprintf("%%gr.bv%d", c), fmt.Sprintf("%%gr.bq%d", c), fmt.Sprintf("%%gr.mask%d", c))
		w("  %%gr.accn_%d = call %s @llvm.fmuladd%s(%s %%gr.av, %s %%gr.bv%d, %s %%gr.acc_%d)", c, V, mangle(kir.F32, vl), V, V, c, V, c)
	}
	w("  %%gr.k.next = add i64 %%gr.k, 1")
	w("  br label %%gr.k.head")
	w("gr.k.exit:")
	for c := 0; c < rv; c++ {
		t.maskedStore(fmt.Sprintf("%%gr.acc_%d", c), fmt.Sprintf("%%gr.cq%d", c), fmt.Sprintf("%%gr.mask%d", c))
	}
	w("  %%gr.j.next = add i64 %%gr.j, %d", nr)
	w("  br label %%gr.j.head")
	w("gr.j.exit:")
	w("  %%gr.i.next = add i64 %%gr.i, 1")
	w("  br label %%gr.i.head")
}
