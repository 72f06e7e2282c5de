package llvmcpu

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// contractParams is the parameter list every contract helper takes.
const contractParams = "ptr noalias %A, i64 %ao, i64 %ars, i64 %acs, ptr noalias %B, i64 %bo, i64 %brs, i64 %bcs, ptr noalias %C, i64 %co, i64 %crs, i64 %ccs, i64 %M, i64 %N, i64 %K"

// contractFn returns the name of the helper computing C += A·B for the
// element types elems (A, B, C), defining it on first use. f32 gets the
// register-blocked microkernel; other types the reference loop nest.
func (mo *module) contractFn(elems [3]kir.Scalar, unsigned bool) string {
	generic := mo.genericContract(elems, unsigned)
	if elems != [3]kir.Scalar{kir.F32, kir.F32, kir.F32} {
		return generic
	}
	return mo.blockedContract(generic)
}

// genericContract defines the loop nest with kir.Run's order: for each C
// element, K products added in order, each rounded (no fusion).
func (mo *module) genericContract(elems [3]kir.Scalar, unsigned bool) string {
	name := fmt.Sprintf("gree_contract_%s_%s_%s", elems[0], elems[1], elems[2])
	if unsigned {
		name += "_u"
	}
	if _, ok := mo.decls[name]; ok {
		return name
	}
	g := &fn{mo: mo}
	cs := elems[2]
	ct := kir.S(cs)
	C := scalarTy(cs)
	fmt.Fprintf(&g.b, "define internal void @%s(%s) #0 {\n", name, contractParams)
	g.b.WriteString(`entry:
  br label %i.head
i.head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %j.exit ]
  %i.more = icmp slt i64 %i, %M
  br i1 %i.more, label %i.body, label %exit
i.body:
  %ai = mul i64 %i, %ars
  %arow = add i64 %ao, %ai
  %ci0 = mul i64 %i, %crs
  %crow = add i64 %co, %ci0
  br label %j.head
j.head:
  %j = phi i64 [ 0, %i.body ], [ %j.next, %p.exit ]
  %j.more = icmp slt i64 %j, %N
  br i1 %j.more, label %j.body, label %j.exit
j.body:
  %bj = mul i64 %j, %bcs
  %bcol = add i64 %bo, %bj
  %cj = mul i64 %j, %ccs
  %cidx = add i64 %crow, %cj
`)
	fmt.Fprintf(&g.b, "  %%cp = getelementptr inbounds %s, ptr %%C, i64 %%cidx\n", memTy(cs))
	fmt.Fprintf(&g.b, "  %%acc0raw = load %s, ptr %%cp, align %d\n", memTy(cs), cs.ByteSize())
	acc0 := "%acc0raw"
	if cs == kir.I1 {
		g.emitf("%%acc0 = trunc i8 %%acc0raw to i1")
		acc0 = "%acc0"
	}
	g.b.WriteString("  br label %p.head\np.head:\n")
	fmt.Fprintf(&g.b, "  %%p = phi i64 [ 0, %%j.body ], [ %%p.next, %%p.body.end ]\n  %%acc = phi %s [ %s, %%j.body ], [ %%acc.next, %%p.body.end ]\n", C, acc0)
	g.b.WriteString("  %p.more = icmp slt i64 %p, %K\n  br i1 %p.more, label %p.body, label %p.exit\np.body:\n")
	g.cur = "p.body"
	load := func(ptr, idx string, s kir.Scalar) string {
		p, x := g.t(), g.t()
		g.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(s), ptr, idx)
		g.emitf("%s = load %s, ptr %s, align %d", x, memTy(s), p, s.ByteSize())
		if s == kir.I1 {
			tr := g.t()
			g.emitf("%s = trunc i8 %s to i1", tr, x)
			x = tr
		}
		// Convert to C's type.
		if s.IsFloat() {
			return g.convFloat(kir.S(s), s, cs, x)
		}
		if s.Bits() == cs.Bits() {
			return x
		}
		r := g.t()
		switch {
		case s.Bits() > cs.Bits():
			g.emitf("%s = trunc %s %s to %s", r, scalarTy(s), x, C)
		case unsigned:
			g.emitf("%s = zext %s %s to %s", r, scalarTy(s), x, C)
		default:
			g.emitf("%s = sext %s %s to %s", r, scalarTy(s), x, C)
		}
		return r
	}
	ak := g.bin("mul", kir.S(kir.I64), "%p", "%acs")
	bk := g.bin("mul", kir.S(kir.I64), "%p", "%brs")
	x := load("%A", g.bin("add", kir.S(kir.I64), "%arow", ak), elems[0])
	y := load("%B", g.bin("add", kir.S(kir.I64), "%bcol", bk), elems[1])
	var next string
	if cs.IsFloat() {
		prod, _ := g.floatBinary(kir.Mul, ct, x, y)
		next, _ = g.floatBinary(kir.Add, ct, "%acc", prod)
	} else {
		next = g.bin("add", ct, "%acc", g.bin("mul", ct, x, y))
	}
	g.emitf("%%acc.next = bitcast %s %s to %s", C, next, C)
	g.b.WriteString("  br label %p.body.end\np.body.end:\n")
	g.b.WriteString("  %p.next = add i64 %p, 1\n  br label %p.head\np.exit:\n")
	if cs == kir.I1 {
		g.emitf("%%accst = zext i1 %%acc to i8")
		g.emitf("store i8 %%accst, ptr %%cp, align 1")
	} else {
		g.emitf("store %s %%acc, ptr %%cp, align %d", C, cs.ByteSize())
	}
	g.b.WriteString(`  %j.next = add i64 %j, 1
  br label %j.head
j.exit:
  %i.next = add i64 %i, 1
  br label %i.head
exit:
  ret void
}
`)
	mo.declare(name, g.b.String())
	return name
}

// Microkernel shape: mr rows × nv vectors of vl f32 lanes of C are kept
// in registers while K is swept.
const mr = 6
const nv = 2

// blockedContract defines the f32 microkernel: when B's and C's rows are
// contiguous (column stride 1), C is computed in mr × (nv·vl) register
// blocks with fused multiply-adds (llvm.fmuladd), A's element broadcast
// and B's row segment loaded as vectors; the rest (ragged edges, other
// strides) goes to the reference loop nest generic.
func (mo *module) blockedContract(generic string) string {
	vl := mo.vl
	name := fmt.Sprintf("gree_contract_f32_blocked_%dx%d", mr, nv*vl)
	if _, ok := mo.decls[name]; ok {
		return name
	}
	nr := nv * vl
	V := vecOf("float", vl)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...); b.WriteByte('\n') }
	w("define internal void @%s(%s) #0 {", name, contractParams)
	w("entry:")
	w("  %%b1 = icmp eq i64 %%bcs, 1")
	w("  %%c1 = icmp eq i64 %%ccs, 1")
	w("  %%fast = and i1 %%b1, %%c1")
	w("  br i1 %%fast, label %%blocked, label %%slow")
	w("slow:")
	w("  call void @%s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo, i64 %%brs, i64 %%bcs, ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, i64 %%K)", generic)
	w("  ret void")
	w("blocked:")
	w("  %%mrem = srem i64 %%M, %d", mr)
	w("  %%mf = sub i64 %%M, %%mrem")
	w("  %%nrem = srem i64 %%N, %d", nr)
	w("  %%nf = sub i64 %%N, %%nrem")
	w("  br label %%i.head")
	w("i.head:")
	w("  %%i = phi i64 [ 0, %%blocked ], [ %%i.next, %%j.exit ]")
	w("  %%i.more = icmp slt i64 %%i, %%mf")
	w("  br i1 %%i.more, label %%i.body, label %%edges")
	w("i.body:")
	for r := 0; r < mr; r++ {
		w("  %%ir%d = add i64 %%i, %d", r, r)
		w("  %%ar%d = mul i64 %%ir%d, %%ars", r, r)
		w("  %%ao%d = add i64 %%ao, %%ar%d", r, r)
		w("  %%ap%d = getelementptr inbounds float, ptr %%A, i64 %%ao%d", r, r)
		w("  %%cr%d = mul i64 %%ir%d, %%crs", r, r)
		w("  %%co%d = add i64 %%co, %%cr%d", r, r)
	}
	w("  br label %%j.head")
	w("j.head:")
	w("  %%j = phi i64 [ 0, %%i.body ], [ %%j.next, %%p.exit ]")
	w("  %%j.more = icmp slt i64 %%j, %%nf")
	w("  br i1 %%j.more, label %%j.body, label %%j.exit")
	w("j.body:")
	w("  %%bj = add i64 %%bo, %%j")
	w("  %%bp = getelementptr inbounds float, ptr %%B, i64 %%bj")
	for r := 0; r < mr; r++ {
		w("  %%cj%d = add i64 %%co%d, %%j", r, r)
		for c := 0; c < nv; c++ {
			w("  %%cp%d_%d = getelementptr inbounds float, ptr %%C, i64 %%cj%d", r, c, r)
			if c > 0 {
				w("  %%cq%d_%d = getelementptr inbounds float, ptr %%cp%d_%d, i64 %d", r, c, r, c, c*vl)
			} else {
				w("  %%cq%d_%d = getelementptr inbounds float, ptr %%cp%d_%d, i64 0", r, c, r, c)
			}
			w("  %%acc0_%d_%d = load %s, ptr %%cq%d_%d, align 4", r, c, V, r, c)
		}
	}
	w("  br label %%p.head")
	w("p.head:")
	w("  %%p = phi i64 [ 0, %%j.body ], [ %%p.next, %%p.body ]")
	for r := 0; r < mr; r++ {
		for c := 0; c < nv; c++ {
			w("  %%acc_%d_%d = phi %s [ %%acc0_%d_%d, %%j.body ], [ %%accn_%d_%d, %%p.body ]", r, c, V, r, c, r, c)
		}
	}
	w("  %%p.more = icmp slt i64 %%p, %%K")
	w("  br i1 %%p.more, label %%p.body, label %%p.exit")
	w("p.body:")
	w("  %%bk = mul i64 %%p, %%brs")
	w("  %%bpk = getelementptr inbounds float, ptr %%bp, i64 %%bk")
	for c := 0; c < nv; c++ {
		w("  %%bq%d = getelementptr inbounds float, ptr %%bpk, i64 %d", c, c*vl)
		w("  %%bv%d = load %s, ptr %%bq%d, align 4", c, V, c)
	}
	w("  %%ak = mul i64 %%p, %%acs")
	for r := 0; r < mr; r++ {
		w("  %%aq%d = getelementptr inbounds float, ptr %%ap%d, i64 %%ak", r, r)
		w("  %%as%d = load float, ptr %%aq%d, align 4", r, r)
		w("  %%ai%d = insertelement <1 x float> poison, float %%as%d, i64 0", r, r)
		w("  %%av%d = shufflevector <1 x float> %%ai%d, <1 x float> poison, <%d x i32> zeroinitializer", r, r, vl)
		for c := 0; c < nv; c++ {
			w("  %%accn_%d_%d = call %s @llvm.fmuladd%s(%s %%av%d, %s %%bv%d, %s %%acc_%d_%d)", r, c, V, mangle(kir.F32, vl), V, r, V, c, V, r, c)
		}
	}
	w("  %%p.next = add i64 %%p, 1")
	w("  br label %%p.head")
	w("p.exit:")
	for r := 0; r < mr; r++ {
		for c := 0; c < nv; c++ {
			w("  store %s %%acc_%d_%d, ptr %%cq%d_%d, align 4", V, r, c, r, c)
		}
	}
	w("  %%j.next = add i64 %%j, %d", nr)
	w("  br label %%j.head")
	w("j.exit:")
	w("  %%i.next = add i64 %%i, %d", mr)
	w("  br label %%i.head")
	w("edges:")
	// Columns nf..N of rows 0..mf, then rows mf..M (all columns).
	w("  %%ncols = sub i64 %%N, %%nf")
	w("  %%bo2 = add i64 %%bo, %%nf")
	w("  %%co2 = add i64 %%co, %%nf")
	w("  call void @%s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo2, i64 %%brs, i64 1, ptr %%C, i64 %%co2, i64 %%crs, i64 1, i64 %%mf, i64 %%ncols, i64 %%K)", generic)
	w("  %%am = mul i64 %%mf, %%ars")
	w("  %%ao3 = add i64 %%ao, %%am")
	w("  %%cm = mul i64 %%mf, %%crs")
	w("  %%co3 = add i64 %%co, %%cm")
	w("  call void @%s(ptr %%A, i64 %%ao3, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo, i64 %%brs, i64 1, ptr %%C, i64 %%co3, i64 %%crs, i64 1, i64 %%mrem, i64 %%N, i64 %%K)", generic)
	w("  ret void")
	w("}")
	mo.declare("llvm.fmuladd"+mangle(kir.F32, vl), fmt.Sprintf("declare %s @llvm.fmuladd%s(%s, %s, %s)", V, mangle(kir.F32, vl), V, V, V))
	mo.declare(name, b.String())
	return name
}
