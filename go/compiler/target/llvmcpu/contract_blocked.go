package llvmcpu

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Microkernel shape: mr rows × nv vectors of vl f32 lanes of C are kept
// in registers while K is swept (8 × 2 with 32 AVX-512 registers, else
// 6 × 2: 12 accumulators, two B vectors and a broadcast A element fit
// 16 registers).
const nv = 2

// Full blocks read a row-major B in place instead of from a packed panel
// when M ≤ directRows or K > directK, and B's row stride is not a
// multiple of 512 elements (2 KiB: the panel's rows would share few sets
// of L1; the 1024³ and 2048³ matmuls on two threads were up to 8% slower
// in place). Measured on MobileNetV2's 1×1 convolutions (codegen's tiles
// of at most 96 rows), single thread: reading each K step's 32 columns
// from B's row is 6-15% faster with 16…64 rows, where few blocks share a
// panel, and 0-8% faster with 96 rows — but for 96×16×12544, where
// packing is ~1% of the work and in-place reads were 2% slower.
const (
	directRows = 64
	directK    = 16
)

// kc is the number of K steps of one packed panel of B ((kc + vl) × nv·vl
// f32 on the stack: 34 KiB with AVX-512).
const kc = 256

// mr is the number of rows of a register block.
func (mo *module) mr() int { return blockRows(mo.vl) }

// blockRows is the number of rows of a register block of vl-lane vectors.
func blockRows(vl int) int {
	if vl >= 16 {
		return 8
	}
	return 6
}

// kernelText accumulates one LLVM function's text.
type kernelText struct {
	strings.Builder
	vl   int
	zero bool    // C = A·B: accumulators start at +0, C is not read
	epi  epiKind // the fused epilogue (epilogueContract)
	cols bool    // column blocks may be reached (module.colBlocks)
}

// zeroAcc defines name as the +0 vector of lanes f32 lanes (what a zero
// C's accumulators start from).
func (t *kernelText) zeroAcc(name string, lanes int) {
	V := vecOf("float", lanes)
	t.w("  %s = bitcast %s zeroinitializer to %s", name, V, V)
}

// w writes one line.
func (t *kernelText) w(format string, args ...any) {
	fmt.Fprintf(t, format, args...)
	t.WriteByte('\n')
}

// vec is the type of one vector of f32 lanes.
func (t *kernelText) vec() string { return vecOf("float", t.vl) }

// maskTy is the type of one vector's lane mask.
func (t *kernelText) maskTy() string { return vecOf("i1", t.vl) }

// iota is the constant vector <lo, lo+1, …> of n i64 lanes.
func iota(lo, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("i64 %d", lo+i)
	}
	return "<" + strings.Join(parts, ", ") + ">"
}

// lanesBelow defines name as the mask of the vl lanes lo+l < n (n an i64).
func (t *kernelText) lanesBelow(name string, lo int, n string) { t.lanesBelowN(name, lo, n, t.vl) }

// lanesBelowN is lanesBelow for a vector of lanes lanes.
func (t *kernelText) lanesBelowN(name string, lo int, n string, lanes int) {
	I := vecOf("i64", lanes)
	t.w("  %s.ins = insertelement %s poison, i64 %s, i64 0", name, I, n)
	t.w("  %s.spl = shufflevector %s %s.ins, %s poison, <%d x i32> zeroinitializer", name, I, name, I, lanes)
	t.w("  %s = icmp slt %s %s, %s.spl", name, I, iota(lo, lanes), name)
}

// maskedLoad defines name as the lanes of mask loaded from ptr (zeros
// elsewhere; masked-off lanes are not accessed).
func (t *kernelText) maskedLoad(name, ptr, mask string) { t.maskedLoadN(name, ptr, mask, t.vl) }

// maskedLoadN is maskedLoad for a vector of lanes lanes.
func (t *kernelText) maskedLoadN(name, ptr, mask string, lanes int) {
	V := vecOf("float", lanes)
	t.w("  %s = call %s @llvm.masked.load%s.p0(ptr %s, i32 4, %s %s, %s zeroinitializer)", name, V, mangle(kir.F32, lanes), ptr, vecOf("i1", lanes), mask, V)
}

// maskedStore stores the lanes of mask of val to ptr.
func (t *kernelText) maskedStore(val, ptr, mask string) { t.maskedStoreN(val, ptr, mask, t.vl) }

// maskedStoreN is maskedStore for a vector of lanes lanes.
func (t *kernelText) maskedStoreN(val, ptr, mask string, lanes int) {
	t.w("  call void @llvm.masked.store%s.p0(%s %s, ptr %s, i32 4, %s %s)", mangle(kir.F32, lanes), vecOf("float", lanes), val, ptr, vecOf("i1", lanes), mask)
}

// colBlocks reports whether blocks of rows rows may compute a last
// column along M (colBlock): AVX-512's blocks of 8 rows, whose columns
// are 8-lane vectors, in modules whose products may have N's last
// colBlockCols columns (see mayNeedColBlocks).
func (t *kernelText) colBlocks(rows int) bool { return t.cols && t.vl == 16 && rows == 8 }

// colBlockCols is the columns left at which the row kernel runs a column
// block: nv+1 vectors of vl lanes and one more column.
func colBlockCols(vl int) int { return (nv+1)*vl + 1 }

// panelSteps is the K steps of a panel when full blocks read B in place
// from rows whose stride is not a whole number of 64-byte lines: each
// step's nv·vl columns then straddle two lines, and kc steps of them
// (32 KiB on 8-lane targets) would fill L1 with A's rows still to come.
// On 8-lane (AVX2) targets 64 steps: a 480×4608 by 4608×49 product
// 3.53 → 2.99 ms single-threaded, resnet18's 7×7 3×3 convolutions
// 2.04 → 1.87 ms (aligned strides were up to 6% slower with short
// panels, so they keep kc). AVX-512 keeps kc (not measured).
func (t *kernelText) panelSteps() int {
	if t.vl >= 16 {
		return kc
	}
	return 64
}

// prefetches reports whether full blocks reading B in place prefetch
// the next block's rows of A and columns of B: with AVX-512's 8 × 32
// blocks (MobileNetV2's 1×1 convolutions 10-25% faster). On 8-lane (AVX2)
// targets the prefetches' address arithmetic and issue slots cost more
// than they save (2-core Zen 4 without AVX-512, two threads: a 480×4608
// by 4608×48 product 153 → 188 GFLOP/s, resnet18 32.0 → 28.0 ms,
// MobileNetV2 6.6 → 6.2 ms).
func (t *kernelText) prefetches() bool { return t.vl >= 16 }

// halves reports whether the last columns' blocks may end with a half
// vector (vl/2 lanes, one instruction of half the width, as AVX-512's
// 8-lane ymm next to its 16-lane zmm) when the columns left fit it.
func (t *kernelText) halves() bool { return t.vl >= 8 }

// blockedContract defines the f32 microkernel. C's rows must be
// contiguous (column stride 1; a C with contiguous columns instead is
// computed as Cᵀ = Bᵀ·Aᵀ), and B's rows or columns contiguous; other
// strides go to the reference loop nest generic. K is swept in panels of
// kc steps, in order; within a panel, every nv·vl columns of B are packed
// (transposed when B's columns are contiguous, zero-padded past N) to
// aligned stack scratch — but full blocks of a row-major B read it in
// place when M ≤ directRows or K > directK and its rows are not 2 KiB
// apart — and C is computed in blocks
// of mr rows × nv vectors (then single rows) held in registers, with
// fused multiply-adds (llvm.fmuladd) of A's broadcast element and B's row
// segment; full blocks prefetch the next block's rows of A. The last
// columns' block loads and stores C with lane masks, and uses fewer
// vectors when N's remainder fits them; with a row-major B in place,
// N's last 49 columns are one block of 3 vectors and a column computed
// along M (colBlock). Every C element adds its products
// in k order, starting from C, or when zero from +0 registers in the
// first panel (C is not read; K ≤ 0 goes to generic, which writes zeros).
func (mo *module) blockedContract(generic string, zero bool) string {
	vl, mr := mo.vl, mo.mr()
	nr := nv * vl
	name := fmt.Sprintf("gree_contract_f32_blocked_%dx%d", mr, nr)
	if zero {
		name += "_z"
	}
	if _, ok := mo.decls[name]; ok {
		return name
	}
	entry := "entry:\n"
	if zero {
		entry = "entry:\n  %%k0 = icmp sle i64 %%K, 0\n  br i1 %%k0, label %%slow, label %%c.entry\nc.entry:\n"
	}
	// The entry point computes C or, when C's columns are contiguous
	// instead of its rows, Cᵀ = Bᵀ·Aᵀ (C[m,n] += Σ A[m,k]·B[k,n] is
	// Cᵀ[n,m] += Σ Bᵀ[n,k]·Aᵀ[k,m], the same sums in the same order) with
	// the row kernel; other layouts go to generic.
	rows := name + ".rows"
	mo.declare(name, fmt.Sprintf(`define internal void @%[1]s(%[2]s) #0 {
`+entry+`  %%c1 = icmp eq i64 %%ccs, 1
  br i1 %%c1, label %%crow, label %%ccol
crow:
  call void @%[3]s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo, i64 %%brs, i64 %%bcs, ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, i64 %%K)
  ret void
ccol:
  %%cr1 = icmp eq i64 %%crs, 1
  br i1 %%cr1, label %%swap, label %%slow
swap:
  call void @%[3]s(ptr %%B, i64 %%bo, i64 %%bcs, i64 %%brs, ptr %%A, i64 %%ao, i64 %%acs, i64 %%ars, ptr %%C, i64 %%co, i64 %%ccs, i64 %%crs, i64 %%N, i64 %%M, i64 %%K)
  ret void
slow:
  call void @%[4]s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo, i64 %%brs, i64 %%bcs, ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, i64 %%K)
  ret void
}
`, name, contractParams, rows, generic))
	mo.rowKernel(rows, generic, zero, epiNone)
	return name
}

// rowKernel defines the microkernel's row kernel (C's column stride is 1)
// as rows; with a fused epilogue (epi ≠ epiNone), which only epilogueContract
// calls, after its checks (M > 1, B's rows or columns contiguous), it
// takes epiParams too and applies the epilogue at the last K panel.
func (mo *module) rowKernel(rows, generic string, zero bool, epi epiKind) {
	vl, mr := mo.vl, mo.mr()
	nr := nv * vl
	t := &kernelText{vl: vl, zero: zero, epi: epi, cols: mo.colBlocks}
	w := t.w
	params := contractParams
	if epi != epiNone {
		params += ", " + epiParams
	}
	w("define internal void @%s(%s) #0 {", rows, params)
	w("entry:")
	w("  %%pack = alloca [%d x float], align 64", (kc+vl)*nr)
	if t.colBlocks(mr) {
		// A's columns for colBlock.
		w("  %%apack = alloca [%d x float], align 64", (kc+vl)*mr)
		w("  %%acs1 = icmp eq i64 %%acs, 1")
	}
	// The rows of A two blocks span share 2 or fewer sets of L1 when
	// their stride is a multiple of 512 elements (2 KiB): prefetching
	// the next block's would evict the current one's, so the blocks
	// prefetch their own rows (a no-op) instead.
	w("  %%ars512 = and i64 %%ars, 511")
	w("  %%pfok = icmp ne i64 %%ars512, 0")
	w("  %%pfahead = select i1 %%pfok, i64 %d, i64 0", mr)
	w("  %%bc1 = icmp eq i64 %%bcs, 1")
	w("  %%br1 = icmp eq i64 %%brs, 1")
	w("  %%bok = or i1 %%bc1, %%br1")
	w("  %%mfew = icmp sle i64 %%M, %d", directRows)
	w("  %%kmany = icmp sgt i64 %%K, %d", directK)
	w("  %%dirmk = or i1 %%mfew, %%kmany")
	w("  %%brs512 = and i64 %%brs, 511")
	w("  %%bspread = icmp ne i64 %%brs512, 0")
	w("  %%dirbs = and i1 %%bspread, %%bc1")
	w("  %%dirok = and i1 %%dirmk, %%dirbs")
	// The K panel: kc steps, fewer where full blocks read rows of B in
	// place that straddle cache lines (see panelSteps).
	if short := t.panelSteps(); short < kc {
		w("  %%brs15 = and i64 %%brs, 15")
		w("  %%bsplit = icmp ne i64 %%brs15, 0")
		w("  %%kshort = and i1 %%dirok, %%bsplit")
		w("  %%kcap = select i1 %%kshort, i64 %d, i64 %d", short, kc)
	} else {
		w("  %%kcap = add i64 0, %d", kc)
	}
	w("  br i1 %%bok, label %%blocked, label %%slow")
	w("slow:")
	if epi != epiNone {
		w("  unreachable") // epilogueContract checked B
	} else {
		w("  call void @%s(ptr %%A, i64 %%ao, i64 %%ars, i64 %%acs, ptr %%B, i64 %%bo, i64 %%brs, i64 %%bcs, ptr %%C, i64 %%co, i64 %%crs, i64 %%ccs, i64 %%M, i64 %%N, i64 %%K)", generic)
		w("  ret void")
	}
	w("blocked:")
	w("  %%mrem = srem i64 %%M, %d", mr)
	w("  %%mf = sub i64 %%M, %%mrem")
	if epi != epiNone {
		mo.declareMinMax(vl)
		mo.declareMinMax(vl / 2)
		mo.declareMinMax(mr)
		w("  %%hasres = icmp ne ptr %%R, null")
		w("  br label %%kb.head") // M > 1 (epilogueContract)
	} else {
		// One row: no packing (each element of B is used once).
		w("  %%onerow = icmp eq i64 %%M, 1")
		w("  br i1 %%onerow, label %%gemv, label %%kb.head")
		w("gemv:")
		w("  br i1 %%bc1, label %%gr.entry, label %%gt.entry")
		t.gemvRows("exit")
		t.gemvTransposed("exit")
	}
	w("kb.head:")
	w("  %%kb = phi i64 [ 0, %%blocked ], [ %%kb.next, %%j.exit ]")
	w("  %%kb.more = icmp slt i64 %%kb, %%K")
	w("  br i1 %%kb.more, label %%kb.body, label %%exit")
	w("kb.body:")
	w("  %%kb.rest = sub i64 %%K, %%kb")
	w("  %%kb.small = icmp slt i64 %%kb.rest, %%kcap")
	w("  %%kc = select i1 %%kb.small, i64 %%kb.rest, i64 %%kcap")
	w("  %%kb.next = add i64 %%kb, %%kc")
	if epi != epiNone {
		w("  %%lastp = icmp sge i64 %%kb.next, %%K") // the epilogue's panel
	}
	w("  br label %%j.head")
	w("j.head:")
	w("  %%j = phi i64 [ 0, %%kb.body ], [ %%j.next, %%j.latch ]")
	w("  %%j.more = icmp slt i64 %%j, %%N")
	w("  br i1 %%j.more, label %%j.body, label %%j.exit")
	w("j.body:")
	w("  %%nleft = sub i64 %%N, %%j")
	w("  %%nsmall = icmp slt i64 %%nleft, %d", nr)
	w("  %%nw = select i1 %%nsmall, i64 %%nleft, i64 %d", nr)
	for c := 0; c < nv; c++ {
		t.lanesBelow(fmt.Sprintf("%%mask%d", c), c*vl, "%nw")
		if t.halves() {
			t.lanesBelowN(fmt.Sprintf("%%mask%dh", c), c*vl, "%nw", vl/2)
		}
	}
	// Full blocks of a row-major B with few rows: B in place.
	w("  %%nwfull = icmp eq i64 %%nw, %d", nr)
	w("  %%direct = and i1 %%dirok, %%nwfull")
	w("  %%bdk = mul i64 %%kb, %%brs")
	w("  %%bdo = add i64 %%bo, %%bdk")
	w("  %%bdj = add i64 %%bdo, %%j")
	w("  %%bdir = getelementptr float, ptr %%B, i64 %%bdj")
	if t.colBlocks(mr) {
		// N's last (nv+1)·vl + 1 columns (MobileNetV2's 49) in one
		// block of nv+1 vectors and a column along M (colBlock), B in
		// place: the last column costs one half-width fused
		// multiply-add per K step instead of a masked vector per row,
		// and A's panel is read once instead of once per block of
		// columns.
		w("  %%wlast = icmp eq i64 %%nleft, %d", colBlockCols(vl))
		w("  %%wrows = icmp eq i64 %%mrem, 0")
		w("  %%wok0 = and i1 %%wlast, %%wrows")
		w("  %%wok1 = and i1 %%wok0, %%acs1")
		w("  %%wok = and i1 %%wok1, %%dirok")
		w("  br i1 %%wok, label %%y.entry, label %%jb2")
		t.microBlockH("y", mr, nv+1, 1, false, false, "0", "%mf", "j.exit")
		w("jb2:")
	}
	w("  br i1 %%direct, label %%packed, label %%pick")
	w("pick:")
	w("  br i1 %%bc1, label %%pr.entry, label %%pt.entry")
	t.packRows()
	t.packTransposed()
	// The block's width: the fewest vectors covering nw columns.
	w("packed:")
	w("  %%bsrc = select i1 %%direct, ptr %%bdir, ptr %%pack")
	w("  %%bstr = select i1 %%direct, i64 %%brs, i64 %d", nr)
	w("  %%full = icmp eq i64 %%nw, %d", nr)
	w("  br i1 %%full, label %%f.entry, label %%tail")
	t.microBlock("f", mr, nv, false, "0", "%mf", "fr.entry")
	t.remainderBlocks("fr", func(p string, rows int, iLo, iHi, next string) {
		t.microBlock(p, rows, nv, false, iLo, iHi, cmp.Or(next, "j.latch"))
	})
	// The last columns: v vectors for nw in ((v-1)·vl, v·vl], the last
	// one half wide when nw fits.
	w("tail:")
	next := "j.latch"
	for v := nv; v >= 1; v-- {
		if v > 1 {
			w("  %%wide%d = icmp sgt i64 %%nw, %d", v, (v-1)*vl)
			w("  br i1 %%wide%d, label %%sel%d, label %%narrow%d", v, v, v)
		} else {
			w("  br label %%sel%d", v)
		}
		w("sel%d:", v)
		if t.halves() {
			w("  %%half%d = icmp sle i64 %%nw, %d", v, (v-1)*vl+vl/2)
			w("  br i1 %%half%d, label %%h%d.entry, label %%w%d.entry", v, v, v)
			t.microBlockH(fmt.Sprintf("h%d", v), mr, v, 0, true, true, "0", "%mf", fmt.Sprintf("hr%d.entry", v))
			t.microBlockH(fmt.Sprintf("hr%d", v), 1, v, 0, true, true, "%mf", "%M", next)
		} else {
			w("  br label %%w%d.entry", v)
		}
		t.microBlock(fmt.Sprintf("w%d", v), mr, v, true, "0", "%mf", fmt.Sprintf("r%d.entry", v))
		t.microBlock(fmt.Sprintf("r%d", v), 1, v, true, "%mf", "%M", next)
		if v > 1 {
			w("narrow%d:", v)
		}
	}
	w("j.latch:")
	w("  %%j.next = add i64 %%j, %d", nr)
	w("  br label %%j.head")
	w("j.exit:")
	w("  br label %%kb.head")
	w("exit:")
	w("  ret void")
	w("}")
	for _, n := range []int{vl, vl / 2} {
		V, mg, M := vecOf("float", n), mangle(kir.F32, n), vecOf("i1", n)
		mo.declare("llvm.fmuladd"+mg, fmt.Sprintf("declare %s @llvm.fmuladd%s(%s, %s, %s)", V, mg, V, V, V))
		mo.declare("llvm.masked.load"+mg, fmt.Sprintf("declare %s @llvm.masked.load%s.p0(ptr, i32 immarg, %s, %s)", V, mg, M, V))
		mo.declare("llvm.masked.store"+mg, fmt.Sprintf("declare void @llvm.masked.store%s.p0(%s, ptr, i32 immarg, %s)", mg, V, M))
	}
	mo.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32 immarg, i32 immarg, i32 immarg)")
	mo.declare(rows, t.String())
}

// remainderBlocks emits, at label p+".entry", M's last %mrem rows
// (fewer than a register block's) as at most one block each of four, two
// and one rows (%mrem's binary digits); block(name, rows, iLo, iHi, next)
// emits one such loop. Blocks of several rows keep their accumulators'
// chains apart (single rows, two chains each, wait on the fused
// multiply-add's latency: a 32-row tile's last 2 rows took a quarter of
// its time on AVX2), in a few blocks of code rather than one per
// remainder (+10% LLVM time).
func (t *kernelText) remainderBlocks(p string, block func(p string, rows int, iLo, iHi, next string)) {
	t.w("%s.entry:", p)
	lo := "%mf"
	var sizes []int
	for r := 4; r >= 1; r /= 2 {
		if r < blockRows(t.vl) {
			sizes = append(sizes, r)
		}
	}
	for _, r := range sizes {
		t.w("  %%%s.b%d = and i64 %%mrem, %d", p, r, r)
		t.w("  %%%s.m%d = add i64 %s, %%%s.b%d", p, r, lo, p, r)
		lo = fmt.Sprintf("%%%s.m%d", p, r)
	}
	t.w("  br label %%%s%d.entry", p, sizes[0])
	lo = "%mf"
	for k, r := range sizes {
		next := ""
		if k+1 < len(sizes) {
			next = fmt.Sprintf("%s%d.entry", p, sizes[k+1])
		}
		hi := fmt.Sprintf("%%%s.m%d", p, r)
		block(fmt.Sprintf("%s%d", p, r), r, lo, hi, next)
		lo = hi
	}
}

// microBlock emits the loop over C's rows iLo…iHi (a multiple of rows
// apart) at columns j…j+vecs·vl of the packed panel: per block, rows ×
// vecs accumulators loaded from C (with the column masks when masked), kc
// fused multiply-adds each, and stored back. It starts at label p+".entry" and branches to
// next when done.
func (t *kernelText) microBlock(p string, rows, vecs int, masked bool, iLo, iHi, next string) {
	t.microBlockH(p, rows, vecs, 0, masked, false, iLo, iHi, next)
}

// microBlockH is microBlock whose last vector has vl/2 lanes when half,
// followed by cols columns of C computed along M (colBlock).
func (t *kernelText) microBlockH(p string, rows, vecs, cols int, masked, half bool, iLo, iHi, next string) {
	w, vl := t.w, t.vl
	x := colBlock{t: t, p: p, rows: rows, col0: vecs * vl, cols: cols}
	nr := nv * vl
	// Lanes, type and mask suffix of vector c.
	lanes := func(c int) int {
		if half && c == vecs-1 {
			return vl / 2
		}
		return vl
	}
	vt := func(c int) string { return vecOf("float", lanes(c)) }
	msk := func(c int) string {
		if lanes(c) < vl {
			return fmt.Sprintf("%%mask%dh", c)
		}
		return fmt.Sprintf("%%mask%d", c)
	}
	w("%s.entry:", p)
	w("  br label %%%s.i.head", p)
	w("%s.i.head:", p)
	latch := p + ".p.exit" // the block that goes on to the next rows
	if t.epi != epiNone {
		latch = p + ".next"
	}
	w("  %%%s.i = phi i64 [ %s, %%%s.entry ], [ %%%s.i.next, %%%s ]", p, iLo, p, p, latch)
	w("  %%%s.i.more = icmp slt i64 %%%s.i, %s", p, p, iHi)
	w("  br i1 %%%s.i.more, label %%%s.i.body, label %%%s", p, p, next)
	w("%s.i.body:", p)
	w("  %%%s.ka = mul i64 %%kb, %%acs", p)
	for r := 0; r < rows; r++ {
		w("  %%%s.ir%d = add i64 %%%s.i, %d", p, r, p, r)
		w("  %%%s.ar%d = mul i64 %%%s.ir%d, %%ars", p, r, p, r)
		w("  %%%s.ao%d = add i64 %%ao, %%%s.ar%d", p, r, p, r)
		w("  %%%s.ak%d = add i64 %%%s.ao%d, %%%s.ka", p, r, p, r, p)
		w("  %%%s.ap%d = getelementptr inbounds float, ptr %%A, i64 %%%s.ak%d", p, r, p, r)
		w("  %%%s.cr%d = mul i64 %%%s.ir%d, %%crs", p, r, p, r)
		w("  %%%s.co%d = add i64 %%co, %%%s.cr%d", p, r, p, r)
		w("  %%%s.cj%d = add i64 %%%s.co%d, %%j", p, r, p, r)
		w("  %%%s.cp%d = getelementptr inbounds float, ptr %%C, i64 %%%s.cj%d", p, r, p, r)
		for c := 0; c < vecs; c++ {
			w("  %%%s.cq%d_%d = getelementptr float, ptr %%%s.cp%d, i64 %d", p, r, c, p, r, c*vl)
		}
	}
	x.addresses()
	x.pack()
	// With zero, the first panel's accumulators start at +0 (C not
	// read): the loads of C move to their own block.
	pre := p + ".i.body"
	if cols > 0 {
		pre = p + ".i.packed"
	}
	if t.zero {
		w("  %%%s.first = icmp eq i64 %%kb, 0", p)
		w("  br i1 %%%s.first, label %%%s.c0, label %%%s.cl", p, p, p)
		w("%s.cl:", p)
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < vecs; c++ {
			acc0 := fmt.Sprintf("%%%s.acc0_%d_%d", p, r, c)
			if t.zero {
				acc0 = fmt.Sprintf("%%%s.accl_%d_%d", p, r, c)
			}
			if masked {
				t.maskedLoadN(acc0, fmt.Sprintf("%%%s.cq%d_%d", p, r, c), msk(c), lanes(c))
			} else {
				w("  %s = load %s, ptr %%%s.cq%d_%d, align 4", acc0, vt(c), p, r, c)
			}
		}
	}
	x.load()
	if t.zero {
		w("  br label %%%s.c", p)
		// C's lines are fetched for writing while the products are
		// summed (they would otherwise miss at the stores).
		w("%s.c0:", p)
		for r := 0; r < rows; r++ {
			for c := 0; c < vecs; c++ {
				w("  call void @llvm.prefetch.p0(ptr %%%s.cq%d_%d, i32 1, i32 3, i32 1)", p, r, c)
			}
		}
		x.prefetch()
		w("  br label %%%s.c", p)
		w("%s.c:", p)
		for r := 0; r < rows; r++ {
			for c := 0; c < vecs; c++ {
				w("  %%%s.acc0_%d_%d = phi %s [ zeroinitializer, %%%s.c0 ], [ %%%s.accl_%d_%d, %%%s.cl ]", p, r, c, vt(c), p, p, r, c, p)
			}
		}
		x.startPhis()
		pre = p + ".c"
	}
	w("  br label %%%s.p.head", p)
	w("%s.p.head:", p)
	w("  %%%s.p = phi i64 [ 0, %%%s ], [ %%%s.p.next, %%%s.p.body ]", p, pre, p, p)
	for r := 0; r < rows; r++ {
		for c := 0; c < vecs; c++ {
			w("  %%%s.acc_%d_%d = phi %s [ %%%s.acc0_%d_%d, %%%s ], [ %%%s.accn_%d_%d, %%%s.p.body ]", p, r, c, vt(c), p, r, c, pre, p, r, c, p)
		}
	}
	x.loopPhis(pre)
	w("  %%%s.p.more = icmp slt i64 %%%s.p, %%kc", p, p)
	w("  br i1 %%%s.p.more, label %%%s.p.body, label %%%s.p.exit", p, p, p)
	w("%s.p.body:", p)
	wide := vecs > nv // N's last columns, B in place (see j.body)
	inPlace := !masked && (cols == 0 || wide)
	switch {
	case wide:
		w("  %%%s.bk = mul i64 %%%s.p, %%brs", p, p)
		w("  %%%s.bpk = getelementptr inbounds float, ptr %%bdir, i64 %%%s.bk", p, p)
	case inPlace:
		w("  %%%s.bk = mul i64 %%%s.p, %%bstr", p, p)
		w("  %%%s.bpk = getelementptr inbounds float, ptr %%bsrc, i64 %%%s.bk", p, p)
	default:
		w("  %%%s.bk = mul i64 %%%s.p, %d", p, p, nr)
		w("  %%%s.bpk = getelementptr inbounds float, ptr %%pack, i64 %%%s.bk", p, p)
	}
	for c := 0; c < vecs; c++ {
		w("  %%%s.bq%d = getelementptr inbounds float, ptr %%%s.bpk, i64 %d", p, c, p, c*vl)
		al := 4 * lanes(c)
		if inPlace {
			al = 4
		}
		w("  %%%s.bv%d = load %s, ptr %%%s.bq%d, align %d", p, c, vt(c), p, c, al)
	}
	w("  %%%s.ak = mul i64 %%%s.p, %%acs", p, p)
	if inPlace && rows == blockRows(t.vl) && t.prefetches() {
		t.prefetchNextRows(p, rows)
		if !wide && vecs == nv {
			t.prefetchNextColumns(p)
		}
	}
	for r := 0; r < rows; r++ {
		w("  %%%s.aq%d = getelementptr inbounds float, ptr %%%s.ap%d, i64 %%%s.ak", p, r, p, r, p)
		w("  %%%s.as%d = load float, ptr %%%s.aq%d, align 4", p, r, p, r)
		w("  %%%s.ai%d = insertelement <1 x float> poison, float %%%s.as%d, i64 0", p, r, p, r)
		w("  %%%s.av%d = shufflevector <1 x float> %%%s.ai%d, <1 x float> poison, <%d x i32> zeroinitializer", p, r, p, r, vl)
		if half {
			w("  %%%s.avh%d = shufflevector <1 x float> %%%s.ai%d, <1 x float> poison, <%d x i32> zeroinitializer", p, r, p, r, vl/2)
		}
		for c := 0; c < vecs; c++ {
			V, av := vt(c), fmt.Sprintf("%%%s.av%d", p, r)
			if lanes(c) < vl {
				av = fmt.Sprintf("%%%s.avh%d", p, r)
			}
			w("  %%%s.accn_%d_%d = call %s @llvm.fmuladd%s(%s %s, %s %%%s.bv%d, %s %%%s.acc_%d_%d)", p, r, c, V, mangle(kir.F32, lanes(c)), V, av, V, p, c, V, p, r, c)
		}
	}
	x.step()
	w("  %%%s.p.next = add i64 %%%s.p, 1", p, p)
	w("  br label %%%s.p.head", p)
	w("%s.p.exit:", p)
	store := func(apply func(r, c int, acc string) string) {
		for r := 0; r < rows; r++ {
			for c := 0; c < vecs; c++ {
				acc := apply(r, c, fmt.Sprintf("%%%s.acc_%d_%d", p, r, c))
				if masked {
					t.maskedStoreN(acc, fmt.Sprintf("%%%s.cq%d_%d", p, r, c), msk(c), lanes(c))
				} else {
					w("  store %s %s, ptr %%%s.cq%d_%d, align 4", vt(c), acc, p, r, c)
				}
			}
		}
	}
	if t.epi != epiNone {
		// The last panel's sums are complete: the epilogue, in registers.
		w("  br i1 %%lastp, label %%%s.epi, label %%%s.st", p, p)
		w("%s.epi:", p)
		mask := func(c int) string {
			if masked {
				return msk(c)
			}
			return ""
		}
		t.blockEpilogue(p, rows, vecs, lanes, mask)
		w("  br i1 %%hasres, label %%%s.epr, label %%%s.epn", p, p)
		for _, withRes := range []bool{true, false} {
			w("%s.ep%s:", p, map[bool]string{true: "r", false: "n"}[withRes])
			store(func(r, c int, acc string) string {
				return t.blockVecEpilogue(p, r, c, acc, lanes(c), mask(c), withRes)
			})
			x.store(fmt.Sprintf("e%t", withRes), func(q int, acc string) string { return t.colEpilogue(x, q, acc, withRes) })
			w("  br label %%%s.next", p)
		}
		w("%s.st:", p)
	}
	store(func(_, _ int, acc string) string { return acc })
	x.store("", nil)
	if t.epi != epiNone {
		w("  br label %%%s.next", p)
		w("%s.next:", p)
	}
	w("  %%%s.i.next = add i64 %%%s.i, %d", p, p, rows)
	w("  br label %%%s.i.head", p)
}

// prefetchNextRows emits, in K step p of a block of rows rows at row i,
// the prefetch of A's element at row i + %pfahead + p mod rows and K step
// kb+p: over the panel, every line of the next block's rows of A
// (%pfahead = rows; 0 where that would thrash L1, see the entry). The
// weights of a 1×1 convolution are read once per inference, from memory,
// in rows far apart that the hardware prefetchers follow late; full
// blocks only, so that the last columns' blocks, which come after A's
// panel is in cache, do not pay for it.
func (t *kernelText) prefetchNextRows(p string, rows int) {
	w := t.w
	w("  %%%s.pfr = urem i64 %%%s.p, %d", p, p, rows)
	w("  %%%s.pfi = add i64 %%%s.i, %%%s.pfr", p, p, p)
	w("  %%%s.pfn = add i64 %%%s.pfi, %%pfahead", p, p)
	w("  %%%s.pfa = mul i64 %%%s.pfn, %%ars", p, p)
	w("  %%%s.pfk = add i64 %%kb, %%%s.p", p, p)
	w("  %%%s.pfka = mul i64 %%%s.pfk, %%acs", p, p)
	w("  %%%s.pfo = add i64 %%%s.pfa, %%%s.pfka", p, p, p)
	w("  %%%s.pfao = add i64 %%%s.pfo, %%ao", p, p)
	// Past A's end at the last block: a prefetch does not fault.
	w("  %%%s.pfp = getelementptr float, ptr %%A, i64 %%%s.pfao", p, p)
	w("  call void @llvm.prefetch.p0(ptr %%%s.pfp, i32 0, i32 3, i32 1)", p)
}

// prefetchNextColumns emits, in K step p of a full block, the prefetch of
// the next block's columns of B's row at that step (B in place; in the
// packed panel, lines already in L1). A block reads a short stretch of
// each of K rows of B far apart, which the hardware prefetchers do not
// follow.
func (t *kernelText) prefetchNextColumns(p string) {
	for c := 0; c < nv; c++ {
		t.w("  %%%s.bpf%d = getelementptr float, ptr %%%s.bpk, i64 %d", p, c, p, nv*t.vl+c*t.vl)
		t.w("  call void @llvm.prefetch.p0(ptr %%%s.bpf%d, i32 0, i32 3, i32 1)", p, c)
	}
}
