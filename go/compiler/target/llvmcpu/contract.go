package llvmcpu

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// contractParams is the parameter list every contract helper takes (no
// noalias: the host may bind one buffer to several bindings).
const contractParams = "ptr %A, i64 %ao, i64 %ars, i64 %acs, ptr %B, i64 %bo, i64 %brs, i64 %bcs, ptr %C, i64 %co, i64 %crs, i64 %ccs, i64 %M, i64 %N, i64 %K"

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
// in registers while K is swept (8 × 2 with 32 AVX-512 registers, else
// 6 × 2: 12 accumulators, two B vectors and a broadcast A element fit
// 16 registers).
const nv = 2

// kc is the number of K steps of one packed panel of B (kc × nv·vl f32 on
// the stack: 32 KiB with AVX-512).
const kc = 256

// kRange is the part of K one microBlock sweeps: K steps off … off+len,
// with B's panel packed first when pack is set.
type kRange struct {
	off, len string
	pack     bool
}

func (mo *module) mr() int {
	if mo.vl >= 16 {
		return 8
	}
	return 6
}

// blockedContract defines the f32 microkernel: when B's and C's rows are
// contiguous (column stride 1), C is computed in register blocks with
// fused multiply-adds (llvm.fmuladd), A's element broadcast and B's row
// segment loaded as vectors: mr × nv·vl blocks, then single rows, then
// single vectors for the ragged edges; the last N mod vl columns (and
// other strides) go to the reference loop nest generic. The full blocks
// sweep K in panels of kc steps, in order, each panel of B copied first
// to contiguous stack scratch; every C element still adds its products
// in k order, starting from C.
func (mo *module) blockedContract(generic string) string {
	vl, mr := mo.vl, mo.mr()
	name := fmt.Sprintf("gree_contract_f32_blocked_%dx%d", mr, nv*vl)
	if _, ok := mo.decls[name]; ok {
		return name
	}
	nr := nv * vl
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...); b.WriteByte('\n') }
	w("define internal void @%s(%s) #0 {", name, contractParams)
	w("entry:")
	w("  %%pack = alloca [%d x float], align 64", kc*nr)
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
	w("  %%nvrem = srem i64 %%N, %d", vl)
	w("  %%nvf = sub i64 %%N, %%nvrem")
	// The full blocks sweep K in blocks of kc (in order, so every C
	// element still sums its products in k order), B's kc × nr panel
	// packed into contiguous stack scratch for unit-stride loads.
	w("  br label %%kb.head")
	w("kb.head:")
	w("  %%kb = phi i64 [ 0, %%blocked ], [ %%kb.next, %%a.j.exit ]")
	w("  %%kb.more = icmp slt i64 %%kb, %%K")
	w("  br i1 %%kb.more, label %%kb.body, label %%b.entry")
	w("kb.body:")
	w("  %%kb.rest = sub i64 %%K, %%kb")
	w("  %%kb.small = icmp slt i64 %%kb.rest, %d", kc)
	w("  %%kc = select i1 %%kb.small, i64 %%kb.rest, i64 %d", kc)
	w("  %%kb.next = add i64 %%kb, %d", kc)
	w("  br label %%a.entry")
	mo.microBlock(w, "a", mr, nv, "0", "%mf", "0", "%nf", "a.j.exit", kRange{off: "%kb", len: "%kc", pack: true})
	w("a.j.exit:")
	w("  br label %%kb.head")
	full := kRange{off: "0", len: "%K"}
	mo.microBlock(w, "b", 1, nv, "%mf", "%M", "0", "%nf", "c.entry", full)
	mo.microBlock(w, "c", mr, 1, "0", "%mf", "%nf", "%nvf", "d.entry", full)
	mo.microBlock(w, "d", 1, 1, "%mf", "%M", "%nf", "%nvf", "edges", full)
	w("edges:")
	// The last N mod vl columns of every row.
	w("  %%e.ncols = sub i64 %%N, %%nvf")
	w("  %%e.bo = add i64 %%bo, %%nvf")
	w("  %%e.co = add i64 %%co, %%nvf")
	w("  call void @%s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%e.bo, i64 %%brs, i64 1, ptr %%C, i64 %%e.co, i64 %%crs, i64 1, i64 %%M, i64 %%e.ncols, i64 %%K)", generic)
	w("  ret void")
	w("}")
	V := vecOf("float", vl)
	mo.declare("llvm.fmuladd"+mangle(kir.F32, vl), fmt.Sprintf("declare %s @llvm.fmuladd%s(%s, %s, %s)", V, mangle(kir.F32, vl), V, V, V))
	mo.declare(name, b.String())
	return name
}

// microBlock emits the loop nest computing C's rows iLo..iHi and columns
// jLo..jHi (extents multiples of the block) in blocks of rows × (vecs·vl),
// starting at block label p+".entry" and branching to next when done.
func (mo *module) microBlock(w func(string, ...any), p string, rows, vecs int, iLo, iHi, jLo, jHi, next string, kr kRange) {
	vl := mo.vl
	V := vecOf("float", vl)
	// Columns outer, rows inner: one block of B's columns (K × vecs·vl)
	// stays in cache while every row block of the tile uses it.
	w("%s.entry:", p)
	w("  br label %%%s.j.head", p)
	w("%s.j.head:", p)
	w("  %%%s.j = phi i64 [ %s, %%%s.entry ], [ %%%s.j.next, %%%s.i.exit ]", p, jLo, p, p, p)
	w("  %%%s.j.more = icmp slt i64 %%%s.j, %s", p, p, jHi)
	w("  br i1 %%%s.j.more, label %%%s.j.body, label %%%s", p, p, next)
	w("%s.j.body:", p)
	w("  %%%s.bj = add i64 %%bo, %%%s.j", p, p)
	w("  %%%s.bp0 = getelementptr inbounds float, ptr %%B, i64 %%%s.bj", p, p)
	bp, brs, balign, from := p+".bp0", "%brs", 4, p+".j.body"
	if kr.pack {
		// Copy B[off+k, j…j+vecs·vl) to pack[k·vecs·vl …] for k < len.
		w("  br label %%%s.pk.head", p)
		w("%s.pk.head:", p)
		w("  %%%s.pk = phi i64 [ 0, %%%s.j.body ], [ %%%s.pk.next, %%%s.pk.body ]", p, p, p, p)
		w("  %%%s.pk.more = icmp slt i64 %%%s.pk, %s", p, p, kr.len)
		w("  br i1 %%%s.pk.more, label %%%s.pk.body, label %%%s.pk.exit", p, p, p)
		w("%s.pk.body:", p)
		w("  %%%s.pkk = add i64 %%%s.pk, %s", p, p, kr.off)
		w("  %%%s.pkb = mul i64 %%%s.pkk, %%brs", p, p)
		w("  %%%s.pks = getelementptr inbounds float, ptr %%%s.bp0, i64 %%%s.pkb", p, p, p)
		w("  %%%s.pkoff = mul i64 %%%s.pk, %d", p, p, vecs*vl)
		w("  %%%s.pkd = getelementptr inbounds float, ptr %%pack, i64 %%%s.pkoff", p, p)
		for c := 0; c < vecs; c++ {
			w("  %%%s.pks%d = getelementptr inbounds float, ptr %%%s.pks, i64 %d", p, c, p, c*vl)
			w("  %%%s.pkv%d = load %s, ptr %%%s.pks%d, align 4", p, c, V, p, c)
			w("  %%%s.pkd%d = getelementptr inbounds float, ptr %%%s.pkd, i64 %d", p, c, p, c*vl)
			w("  store %s %%%s.pkv%d, ptr %%%s.pkd%d, align 64", V, p, c, p, c)
		}
		w("  %%%s.pk.next = add i64 %%%s.pk, 1", p, p)
		w("  br label %%%s.pk.head", p)
		w("%s.pk.exit:", p)
		bp, brs, balign, from = "pack", fmt.Sprint(vecs*vl), 64, p+".pk.exit"
		// B's panel now starts at the panel's first K step.
		w("  %%%s.bp = getelementptr inbounds float, ptr %%pack, i64 0", p)
	} else {
		w("  %%%s.bp = getelementptr inbounds float, ptr %%%s, i64 0", p, bp)
	}
	w("  br label %%%s.i.head", p)
	w("%s.i.head:", p)
	w("  %%%s.i = phi i64 [ %s, %%%s ], [ %%%s.i.next, %%%s.p.exit ]", p, iLo, from, p, p)
	w("  %%%s.i.more = icmp slt i64 %%%s.i, %s", p, p, iHi)
	w("  br i1 %%%s.i.more, label %%%s.i.body, label %%%s.i.exit", p, p, p)
	w("%s.i.body:", p)
	for r := 0; r < rows; r++ {
		w("  %%%s.ir%d = add i64 %%%s.i, %d", p, r, p, r)
		w("  %%%s.ar%d = mul i64 %%%s.ir%d, %%ars", p, r, p, r)
		w("  %%%s.ao%d = add i64 %%ao, %%%s.ar%d", p, r, p, r)
		w("  %%%s.ap%d = getelementptr inbounds float, ptr %%A, i64 %%%s.ao%d", p, r, p, r)
		w("  %%%s.cr%d = mul i64 %%%s.ir%d, %%crs", p, r, p, r)
		w("  %%%s.co%d = add i64 %%co, %%%s.cr%d", p, r, p, r)
		w("  %%%s.cj%d = add i64 %%%s.co%d, %%%s.j", p, r, p, r, p)
		w("  %%%s.cp%d = getelementptr inbounds float, ptr %%C, i64 %%%s.cj%d", p, r, p, r)
		for c := 0; c < vecs; c++ {
			w("  %%%s.cq%d_%d = getelementptr inbounds float, ptr %%%s.cp%d, i64 %d", p, r, c, p, r, c*vl)
			w("  %%%s.acc0_%d_%d = load %s, ptr %%%s.cq%d_%d, align 4", p, r, c, V, p, r, c)
		}
	}
	w("  br label %%%s.p.head", p)
	w("%s.p.head:", p)
	w("  %%%s.p = phi i64 [ 0, %%%s.i.body ], [ %%%s.p.next, %%%s.p.body ]", p, p, p, p)
	for r := 0; r < rows; r++ {
		for c := 0; c < vecs; c++ {
			w("  %%%s.acc_%d_%d = phi %s [ %%%s.acc0_%d_%d, %%%s.i.body ], [ %%%s.accn_%d_%d, %%%s.p.body ]", p, r, c, V, p, r, c, p, p, r, c, p)
		}
	}
	w("  %%%s.p.more = icmp slt i64 %%%s.p, %s", p, p, kr.len)
	w("  br i1 %%%s.p.more, label %%%s.p.body, label %%%s.p.exit", p, p, p)
	w("%s.p.body:", p)
	w("  %%%s.bk = mul i64 %%%s.p, %s", p, p, brs)
	w("  %%%s.bpk = getelementptr inbounds float, ptr %%%s.bp, i64 %%%s.bk", p, p, p)
	for c := 0; c < vecs; c++ {
		w("  %%%s.bq%d = getelementptr inbounds float, ptr %%%s.bpk, i64 %d", p, c, p, c*vl)
		w("  %%%s.bv%d = load %s, ptr %%%s.bq%d, align %d", p, c, V, p, c, balign)
	}
	w("  %%%s.pa = add i64 %%%s.p, %s", p, p, kr.off)
	w("  %%%s.ak = mul i64 %%%s.pa, %%acs", p, p)
	for r := 0; r < rows; r++ {
		w("  %%%s.aq%d = getelementptr inbounds float, ptr %%%s.ap%d, i64 %%%s.ak", p, r, p, r, p)
		w("  %%%s.as%d = load float, ptr %%%s.aq%d, align 4", p, r, p, r)
		w("  %%%s.ai%d = insertelement <1 x float> poison, float %%%s.as%d, i64 0", p, r, p, r)
		w("  %%%s.av%d = shufflevector <1 x float> %%%s.ai%d, <1 x float> poison, <%d x i32> zeroinitializer", p, r, p, r, vl)
		for c := 0; c < vecs; c++ {
			w("  %%%s.accn_%d_%d = call %s @llvm.fmuladd%s(%s %%%s.av%d, %s %%%s.bv%d, %s %%%s.acc_%d_%d)", p, r, c, V, mangle(kir.F32, vl), V, p, r, V, p, c, V, p, r, c)
		}
	}
	w("  %%%s.p.next = add i64 %%%s.p, 1", p, p)
	w("  br label %%%s.p.head", p)
	w("%s.p.exit:", p)
	for r := 0; r < rows; r++ {
		for c := 0; c < vecs; c++ {
			w("  store %s %%%s.acc_%d_%d, ptr %%%s.cq%d_%d, align 4", V, p, r, c, p, r, c)
		}
	}
	w("  %%%s.i.next = add i64 %%%s.i, %d", p, p, rows)
	w("  br label %%%s.i.head", p)
	w("%s.i.exit:", p)
	w("  %%%s.j.next = add i64 %%%s.j, %d", p, p, vecs*vl)
	w("  br label %%%s.j.head", p)
}
