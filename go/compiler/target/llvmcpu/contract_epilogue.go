package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// epiFlags are the fused-epilogue flags of a Contract (kir.ContractBias …
// kir.ContractMin).
const epiFlags = kir.ContractBias | kir.ContractBiasCol | kir.ContractRes | kir.ContractMax | kir.ContractMin

// epiParams is the parameter list of the epilogue helpers after
// contractParams: the bias E[eo + i·ers + j·ecs], the residual R[ro +
// i·rrs + j·rcs] (none when R is null) and the bounds. Every step
// runs: an absent bias is -0 (gree_neg_zero, strides 0) and absent bounds
// are ∓inf, which leave every value as it is (x + -0 = x and maximumf(x,
// -inf) = x for every x, -0 and NaN included), so that one kernel serves
// every epilogue.
// Its text also forwards the arguments (typed, as LLVM calls write them).
const epiParams = "ptr %E, i64 %eo, i64 %ers, i64 %ecs, ptr %R, i64 %ro, i64 %rrs, i64 %rcs, float %lo, float %hi"

// contractArgs is contractParams' argument list, forwarded.
const contractArgs = "ptr %A, i64 %ao, i64 %ars, i64 %acs, ptr %B, i64 %bo, i64 %brs, i64 %bcs, ptr %C, i64 %co, i64 %crs, i64 %ccs, i64 %M, i64 %N, i64 %K"

// epilogueContract defines the helper computing the Contract of element
// types elems and then a fused f32 epilogue whose bias, when col, varies
// along columns (else along rows or not at all). Where the
// register-blocked row kernel runs (f32 operands, C row-major, B with
// contiguous rows or columns, M > 1, K > 0, a residual with contiguous
// rows, a per-column bias with stride 1) its blocks apply the epilogue in
// registers before their last panel's stores; elsewhere the plain helper
// runs and a scalar sweep applies it to the stored tile. Both compute
// each element as the kir op defines, so the paths agree bit for bit.
func (mo *module) epilogueContract(elems [3]kir.Scalar, unsigned, zero, col bool) string {
	plain := mo.contractFn(elems, unsigned, zero)
	name := plain + "_epi"
	if col {
		name += "_col"
	}
	if _, ok := mo.decls[name]; ok {
		return name
	}
	sweep := mo.epilogueSweep()
	blocked := elems == [3]kir.Scalar{kir.F32, kir.F32, kir.F32}
	var t kernelText
	w := t.w
	w("define internal void @%s(%s, %s) #0 {", name, contractParams, epiParams)
	w("entry:")
	if blocked {
		rows := name + ".rows"
		kind := epiRow
		if col {
			kind = epiCol
		}
		mo.rowKernel(rows, mo.genericContract(elems, unsigned, zero), zero, kind)
		w("  %%c1 = icmp eq i64 %%ccs, 1")
		w("  %%bc1 = icmp eq i64 %%bcs, 1")
		w("  %%br1 = icmp eq i64 %%brs, 1")
		w("  %%bok = or i1 %%bc1, %%br1")
		w("  %%m2 = icmp sgt i64 %%M, 1")
		w("  %%k1 = icmp sgt i64 %%K, 0")
		w("  %%ok0 = and i1 %%c1, %%bok")
		w("  %%ok1 = and i1 %%ok0, %%m2")
		w("  %%ok2 = and i1 %%ok1, %%k1")
		// The residual's rows are contiguous, or there is none.
		w("  %%r0 = icmp eq ptr %%R, null")
		w("  %%r1 = icmp eq i64 %%rcs, 1")
		w("  %%rok = or i1 %%r0, %%r1")
		w("  %%ok3 = and i1 %%ok2, %%rok")
		// The bias varies along the kernel's kind alone (stride 1
		// along columns).
		if col {
			w("  %%e1 = icmp eq i64 %%ecs, 1")
			w("  %%e0 = icmp eq i64 %%ers, 0")
			w("  %%eok = and i1 %%e0, %%e1")
		} else {
			w("  %%eok = icmp eq i64 %%ecs, 0")
		}
		w("  %%ok4 = and i1 %%ok3, %%eok")
		w("  br i1 %%ok4, label %%fused, label %%plain")
		w("fused:")
		w("  call void @%s(%s, %s)", rows, contractArgs, epiParams)
		w("  ret void")
		w("plain:")
	}
	w("  call void @%s(%s)", plain, contractArgs)
	w("  call void @%s(ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, %s)", sweep, epiParams)
	w("  ret void")
	w("}")
	mo.declare(name, t.String())
	return name
}

// epiKind is the fused epilogue a row kernel applies (kernelText.epi).
type epiKind int

const (
	epiNone epiKind = 0
	epiRow  epiKind = 1 // a bias along rows (or none: -0)
	epiCol  epiKind = 2 // a bias along columns
)

// epilogueSweep defines the scalar loop applying the epilogue to every
// element of an M×N tile of C in place.
func (mo *module) epilogueSweep() string {
	const name = "gree_contract_epilogue"
	if _, ok := mo.decls[name]; ok {
		return name
	}
	var t kernelText
	w := t.w
	w("define internal void @%s(ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, %s) #0 {", name, epiParams)
	w("entry:")
	w("  %%hasres = icmp ne ptr %%R, null")
	w("  br label %%i.head")
	w("i.head:")
	w("  %%i = phi i64 [ 0, %%entry ], [ %%i.next, %%j.exit ]")
	w("  %%i.more = icmp slt i64 %%i, %%M")
	w("  br i1 %%i.more, label %%j.head, label %%exit")
	w("j.head:")
	w("  %%j = phi i64 [ 0, %%i.head ], [ %%j.next, %%j.latch ]")
	w("  %%j.more = icmp slt i64 %%j, %%N")
	w("  br i1 %%j.more, label %%j.body, label %%j.exit")
	w("j.body:")
	w("  %%ci = mul i64 %%i, %%crs")
	w("  %%cj = mul i64 %%j, %%ccs")
	w("  %%cij = add i64 %%ci, %%cj")
	w("  %%cidx = add i64 %%co, %%cij")
	w("  %%cp = getelementptr inbounds float, ptr %%C, i64 %%cidx")
	w("  %%v = load float, ptr %%cp, align 4")
	w("  %%ei = mul i64 %%i, %%ers")
	w("  %%ej = mul i64 %%j, %%ecs")
	w("  %%eij = add i64 %%ei, %%ej")
	w("  %%eidx = add i64 %%eo, %%eij")
	w("  %%ep = getelementptr inbounds float, ptr %%E, i64 %%eidx")
	w("  %%eb = load float, ptr %%ep, align 4")
	w("  %%vb = fadd float %%v, %%eb")
	w("  br i1 %%hasres, label %%res, label %%bounds")
	w("res:")
	w("  %%ri = mul i64 %%i, %%rrs")
	w("  %%rj = mul i64 %%j, %%rcs")
	w("  %%rij = add i64 %%ri, %%rj")
	w("  %%ridx = add i64 %%ro, %%rij")
	w("  %%rp = getelementptr inbounds float, ptr %%R, i64 %%ridx")
	w("  %%rv = load float, ptr %%rp, align 4")
	w("  %%vr = fadd float %%vb, %%rv")
	w("  br label %%bounds")
	w("bounds:")
	w("  %%vx = phi float [ %%vb, %%j.body ], [ %%vr, %%res ]")
	w("  %%vlo = call float @llvm.maximum.f32(float %%vx, float %%lo)")
	w("  %%vhi = call float @llvm.minimum.f32(float %%vlo, float %%hi)")
	w("  store float %%vhi, ptr %%cp, align 4")
	w("  br label %%j.latch")
	w("j.latch:")
	w("  %%j.next = add i64 %%j, 1")
	w("  br label %%j.head")
	w("j.exit:")
	w("  %%i.next = add i64 %%i, 1")
	w("  br label %%i.head")
	w("exit:")
	w("  ret void")
	w("}")
	mo.declareMinMax(1)
	mo.declare(name, t.String())
	return name
}

// declareMinMax declares llvm.maximum and llvm.minimum on lanes f32 lanes.
func (mo *module) declareMinMax(lanes int) {
	V, mg := vecOf("float", lanes), mangle(kir.F32, lanes)
	for _, f := range []string{"llvm.maximum", "llvm.minimum"} {
		mo.declare(f+mg, fmt.Sprintf("declare %s @%s%s(%s, %s)", V, f, mg, V, V))
	}
}

// epilogue emits the epilogue on value v of lanes f32 lanes (names
// prefixed p) and returns the result: + bias(), + res() when res is set,
// then maximumf %lo and minimumf %hi.
func (t *kernelText) epilogue(p, v string, lanes int, bias func() string, res func() string) string {
	w, V := t.w, vecOf("float", lanes)
	w("  %%%s.eb = fadd %s %s, %s", p, V, v, bias())
	v = "%" + p + ".eb"
	if res != nil {
		w("  %%%s.er = fadd %s %s, %s", p, V, v, res())
		v = "%" + p + ".er"
	}
	for _, s := range []struct{ fn, bound, suffix string }{{"llvm.maximum", "%lo", "emax"}, {"llvm.minimum", "%hi", "emin"}} {
		b := s.bound
		if lanes > 1 {
			b = t.splat(p+"."+s.suffix+"s", s.bound, lanes)
		}
		w("  %%%s.%s = call %s @%s%s(%s %s, %s %s)", p, s.suffix, V, s.fn, mangle(kir.F32, lanes), V, v, V, b)
		v = "%" + p + "." + s.suffix
	}
	return v
}

// splat defines name as scalar float x in every one of lanes lanes.
func (t *kernelText) splat(name, x string, lanes int) string {
	t.w("  %%%s.i = insertelement <1 x float> poison, float %s, i64 0", name, x)
	t.w("  %%%s = shufflevector <1 x float> %%%s.i, <1 x float> poison, <%d x i32> zeroinitializer", name, name, lanes)
	return "%" + name
}

// vecLoad defines name as lanes f32 lanes at element off of ptr base,
// under mask when it is set.
func (t *kernelText) vecLoad(name, base, off string, lanes int, mask string) string {
	t.w("  %%%s.p = getelementptr inbounds float, ptr %s, i64 %s", name, base, off)
	if lanes == 1 {
		t.w("  %%%s = load float, ptr %%%s.p, align 4", name, name)
	} else if mask != "" {
		t.maskedLoadN("%"+name, "%"+name+".p", mask, lanes)
	} else {
		t.w("  %%%s = load %s, ptr %%%s.p, align 4", name, vecOf("float", lanes), name)
	}
	return "%" + name
}

// epiCol reports whether the row kernel's bias varies along columns.
func (t *kernelText) epiCol() bool { return t.epi == epiCol }

// blockEpilogue emits, for microBlockH's block p of rows rows at row %p.i
// and columns %j…, what its rows share: the per-row bias elements
// (%p.eb<r>) or the per-column bias vectors (%p.ebc<c>, of lanes(c) lanes
// under msk(c)).
func (t *kernelText) blockEpilogue(p string, rows, vecs int, lanes func(int) int, msk func(int) string) {
	w, vl := t.w, t.vl
	if t.epiCol() {
		for c := 0; c < vecs; c++ {
			w("  %%%s.ebo%d = add i64 %%eo, %%j", p, c)
			w("  %%%s.ebq%d = add i64 %%%s.ebo%d, %d", p, c, p, c, c*vl)
			t.vecLoad(fmt.Sprintf("%s.ebc%d", p, c), "%E", fmt.Sprintf("%%%s.ebq%d", p, c), lanes(c), msk(c))
		}
		return
	}
	for r := 0; r < rows; r++ {
		w("  %%%s.ebk%d = mul i64 %%%s.ir%d, %%ers", p, r, p, r)
		w("  %%%s.ebi%d = add i64 %%eo, %%%s.ebk%d", p, r, p, r)
		t.vecLoad(fmt.Sprintf("%s.eb%d", p, r), "%E", fmt.Sprintf("%%%s.ebi%d", p, r), 1, "")
	}
}

// blockVecEpilogue applies the epilogue (with the residual when withRes)
// to accumulator acc of row r, vector c (lanes lanes under mask) of
// block p and returns the result.
func (t *kernelText) blockVecEpilogue(p string, r, c int, acc string, lanes int, mask string, withRes bool) string {
	q := fmt.Sprintf("%s.e%d_%d", p, r, c)
	if withRes {
		q += "r"
	}
	bias := func() string {
		if t.epiCol() {
			return fmt.Sprintf("%%%s.ebc%d", p, c)
		}
		return t.splat(q+".bs", fmt.Sprintf("%%%s.eb%d", p, r), lanes)
	}
	var res func() string
	if withRes {
		res = func() string {
			t.w("  %%%s.rr = mul i64 %%%s.ir%d, %%rrs", q, p, r)
			t.w("  %%%s.rb = add i64 %%ro, %%%s.rr", q, q)
			t.w("  %%%s.rj = add i64 %%%s.rb, %%j", q, q)
			t.w("  %%%s.ro = add i64 %%%s.rj, %d", q, q, c*t.vl)
			return t.vecLoad(q+".rv", "%R", "%"+q+".ro", lanes, mask)
		}
	}
	return t.epilogue(q, acc, lanes, bias, res)
}

// colEpilogue applies the epilogue (with the residual when withRes) to
// colBlock x's column q (a vector along the block's rows) and returns the
// result.
func (t *kernelText) colEpilogue(x colBlock, q int, acc string, withRes bool) string {
	p, n := x.p, x.rows
	e := fmt.Sprintf("%s.ex%d", p, q)
	if withRes {
		e += "r"
	}
	gather := func(name string, elem func(r int) string) string {
		prev := "poison"
		for r := 0; r < n; r++ {
			cur := fmt.Sprintf("%%%s.g%d", name, r)
			t.w("  %s = insertelement %s %s, float %s, i64 %d", cur, x.vec(), prev, elem(r), r)
			prev = cur
		}
		return prev
	}
	bias := func() string {
		if t.epiCol() {
			t.w("  %%%s.bcj = add i64 %%j, %d", e, x.col0+q)
			t.w("  %%%s.bco = add i64 %%eo, %%%s.bcj", e, e)
			s := t.vecLoad(e+".bcs", "%E", "%"+e+".bco", 1, "")
			return t.splat(e+".bcv", s, n)
		}
		return gather(e+".br", func(r int) string { return fmt.Sprintf("%%%s.eb%d", p, r) })
	}
	var res func() string
	if withRes {
		res = func() string {
			t.w("  %%%s.rcj = add i64 %%j, %d", e, x.col0+q)
			return gather(e+".rg", func(r int) string {
				t.w("  %%%s.rr%d = mul i64 %%%s.ir%d, %%rrs", e, r, p, r)
				t.w("  %%%s.rb%d = add i64 %%ro, %%%s.rr%d", e, r, e, r)
				t.w("  %%%s.ro%d = add i64 %%%s.rb%d, %%%s.rcj", e, r, e, r, e)
				return t.vecLoad(fmt.Sprintf("%s.rs%d", e, r), "%R", fmt.Sprintf("%%%s.ro%d", e, r), 1, "")
			})
		}
	}
	return t.epilogue(e, acc, n, bias, res)
}

// contractEpilogueArgs checks the bounds of Contract op's bias and
// residual tiles (M×N at rows m, columns n), and'ing each check into all,
// and returns its epiParams arguments (", ptr …", after the Contract's)
// with all.
func (f *fn) contractEpilogueArgs(op *kir.Op, m, n, all string) (string, string) {
	e := kir.ContractEpilogueOf(op)
	f.mo.declare("gree_neg_zero", "@gree_neg_zero = internal constant float -0.0")
	bias, res := ", ptr @gree_neg_zero, i64 0, i64 0, i64 0", ", ptr null, i64 0, i64 0, i64 0"
	if e.Bias >= 0 {
		off, st := f.v(e.BiasOff), f.v(e.BiasStride)
		if e.PerColumn {
			all = f.tileChecked(all, f.tileOK(e.Bias, off, "0", st, "1", n), e.Bias)
			bias = fmt.Sprintf(", ptr %%b%d, i64 %s, i64 0, i64 %s", e.Bias, off, st)
		} else {
			all = f.tileChecked(all, f.tileOK(e.Bias, off, st, "0", m, "1"), e.Bias)
			bias = fmt.Sprintf(", ptr %%b%d, i64 %s, i64 %s, i64 0", e.Bias, off, st)
		}
	}
	if e.Res >= 0 {
		off, rs, cs := f.v(e.ResOff), f.v(e.ResRS), f.v(e.ResCS)
		all = f.tileChecked(all, f.tileOK(e.Res, off, rs, cs, m, n), e.Res)
		res = fmt.Sprintf(", ptr %%b%d, i64 %s, i64 %s, i64 %s", e.Res, off, rs, cs)
	}
	lo, hi := "0xFFF0000000000000", "0x7FF0000000000000" // -inf, +inf
	if e.Lo >= 0 {
		lo = f.v(e.Lo)
	}
	if e.Hi >= 0 {
		hi = f.v(e.Hi)
	}
	return fmt.Sprintf("%s%s, float %s, float %s", bias, res, lo, hi), all
}
