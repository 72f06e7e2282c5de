package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// contractParams is the parameter list every contract helper takes (no
// noalias: the host may bind one buffer to several bindings).
const contractParams = "ptr %A, i64 %ao, i64 %ars, i64 %acs, ptr %B, i64 %bo, i64 %brs, i64 %bcs, ptr %C, i64 %co, i64 %crs, i64 %ccs, i64 %M, i64 %N, i64 %K"

// contractFn returns the name of the helper computing C += A·B (C = A·B
// when zero: the sums start at +0 and C is not read; K ≤ 0 then writes
// zeros) for the element types elems (A, B, C), defining it on first use.
// f32 gets the register-blocked microkernel; other types the reference
// loop nest.
func (mo *module) contractFn(elems [3]kir.Scalar, unsigned, zero bool) string {
	generic := mo.genericContract(elems, unsigned, zero)
	if elems != [3]kir.Scalar{kir.F32, kir.F32, kir.F32} {
		return generic
	}
	return mo.blockedContract(generic, zero)
}

// genericContract defines the loop nest with kir.Run's order: for each C
// element, K products added in order to C (to +0 when zero), each rounded
// (no fusion).
func (mo *module) genericContract(elems [3]kir.Scalar, unsigned, zero bool) string {
	name := fmt.Sprintf("gree_contract_%s_%s_%s", elems[0], elems[1], elems[2])
	if unsigned {
		name += "_u"
	}
	if zero {
		name += "_z"
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
	acc0 := "%acc0raw"
	switch {
	case zero:
		acc0 = "0" // integers
		if cs.IsFloat() {
			acc0 = "0.0"
		}
		if cs == kir.I1 {
			acc0 = "false"
		}
	default:
		fmt.Fprintf(&g.b, "  %%acc0raw = load %s, ptr %%cp, align %d\n", memTy(cs), cs.ByteSize())
	}
	if cs == kir.I1 && !zero {
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
