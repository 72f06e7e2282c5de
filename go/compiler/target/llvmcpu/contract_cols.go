package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// colBlock emits the columns of C that a register block of microBlockH
// computes along M: cols columns from col0 (relative to j), each one
// vector of rows = vl/2 lanes (row i+r in lane r) summing A's column
// segment, from the block's rows of A's panel packed transposed (pack),
// times B's broadcast element, in k order like the row vectors. C's
// column elements are loaded and stored one by one, once per block and
// panel. N's last column past whole vectors then costs one half-width
// fused multiply-add per K step instead of a masked half vector per row.
// With cols = 0 it emits nothing.
type colBlock struct {
	t          *kernelText
	p          string
	rows       int
	col0, cols int
}

// vec is the type of one column's vector.
func (x colBlock) vec() string { return vecOf("float", x.rows) }

// addresses defines %p.cx<r>_<q>, the address of C's element of row r and
// column q.
func (x colBlock) addresses() {
	for r := 0; r < x.rows && x.cols > 0; r++ {
		for q := 0; q < x.cols; q++ {
			x.t.w("  %%%s.cx%d_%d = getelementptr float, ptr %%%s.cp%d, i64 %d", x.p, r, q, x.p, r, x.col0+q)
		}
	}
}

// load defines the columns' starting accumulators from C: %p.accx0_<q>,
// or with zero %p.accxl_<q> (startPhis picks them or +0).
func (x colBlock) load() {
	w, p := x.t.w, x.p
	for q := 0; q < x.cols; q++ {
		prev := "poison"
		for r := 0; r < x.rows; r++ {
			w("  %%%s.cxv%d_%d = load float, ptr %%%s.cx%d_%d, align 4", p, r, q, p, r, q)
			cur := fmt.Sprintf("%%%s.cxi%d_%d", p, r, q)
			if r == x.rows-1 {
				cur = fmt.Sprintf("%%%s.accx0_%d", p, q)
				if x.t.zero {
					cur = fmt.Sprintf("%%%s.accxl_%d", p, q)
				}
			}
			w("  %s = insertelement %s %s, float %%%s.cxv%d_%d, i64 %d", cur, x.vec(), prev, p, r, q, r)
			prev = cur
		}
	}
}

// prefetch fetches the columns' lines of C for writing (zero's first
// panel, where C is not read).
func (x colBlock) prefetch() {
	for r := 0; r < x.rows && x.cols > 0; r++ {
		x.t.w("  call void @llvm.prefetch.p0(ptr %%%s.cx%d_0, i32 1, i32 3, i32 1)", x.p, r)
	}
}

// startPhis defines %p.accx0_<q> with zero: +0 from p.c0, C from p.cl.
func (x colBlock) startPhis() {
	for q := 0; q < x.cols; q++ {
		x.t.w("  %%%[1]s.accx0_%[2]d = phi %[3]s [ zeroinitializer, %%%[1]s.c0 ], [ %%%[1]s.accxl_%[2]d, %%%[1]s.cl ]", x.p, q, x.vec())
	}
}

// loopPhis defines the K loop's accumulators %p.accx_<q>, entered from
// block pre.
func (x colBlock) loopPhis(pre string) {
	for q := 0; q < x.cols; q++ {
		x.t.w("  %%%[1]s.accx_%[2]d = phi %[3]s [ %%%[1]s.accx0_%[2]d, %%%[4]s ], [ %%%[1]s.accxn_%[2]d, %%%[1]s.p.body ]", x.p, q, x.vec(), pre)
	}
}

// pack emits, at the start of a block (from label %p.i.body, ending in
// a new block %p.i.packed), the packing of the block's rows of A's panel
// along M: %apack[k·rows + r] = A[i+r, kb+k] for k < kc. A's rows are
// contiguous (column stride 1): vl K steps at a time, rows vector loads
// (masked past kc) and a transpose in registers (three rounds of
// shuffles: x86's in-lane unpacks of floats and pairs, then a two-source
// permute of 128-bit lanes).
func (x colBlock) pack() {
	if x.cols == 0 {
		return
	}
	w, p, vl := x.t.w, x.p, x.t.vl
	w("  br label %%%s.pv.head", p)
	w("%s.pv.head:", p)
	w("  %%%[1]s.pv.k = phi i64 [ 0, %%%[1]s.i.body ], [ %%%[1]s.pv.next, %%%[1]s.pv.body ]", p)
	w("  %%%[1]s.pv.more = icmp slt i64 %%%[1]s.pv.k, %%kc", p)
	w("  br i1 %%%[1]s.pv.more, label %%%[1]s.pv.body, label %%%[1]s.i.packed", p)
	w("%s.pv.body:", p)
	w("  %%%[1]s.pv.left = sub i64 %%kc, %%%[1]s.pv.k", p)
	x.t.lanesBelow(fmt.Sprintf("%%%s.pv.m", p), 0, fmt.Sprintf("%%%s.pv.left", p))
	rowsV := make([]string, x.rows)
	for r := range rowsV {
		w("  %%%[1]s.pv.a%[2]d = getelementptr float, ptr %%%[1]s.ap%[2]d, i64 %%%[1]s.pv.k", p, r)
		rowsV[r] = fmt.Sprintf("%%%s.pv.r%d", p, r)
		x.t.maskedLoad(rowsV[r], fmt.Sprintf("%%%s.pv.a%d", p, r), fmt.Sprintf("%%%s.pv.m", p))
	}
	for l, v := range x.transposeRows(p+".pv", rowsV) {
		w("  %%%s.pv.d%d = getelementptr inbounds float, ptr %%apack, i64 %d", p, l, l*x.rows)
		w("  %%%s.pv.o%d = getelementptr inbounds float, ptr %%%s.pv.d%d, i64 %%%s.pv.off", p, l, p, l, p)
		w("  store %s %s, ptr %%%s.pv.o%d, align %d", x.vec(), v, p, l, 4*x.rows)
	}
	w("  %%%[1]s.pv.next = add i64 %%%[1]s.pv.k, %[2]d", p, vl)
	w("  br label %%%s.pv.head", p)
	w("%s.i.packed:", p)
}

// transposeRows emits the transpose of rows vectors of vl lanes (rows =
// vl/2 = 8) into vl vectors of rows lanes, and returns them: lane r of
// vector l is lane l of row r. It also defines %<name>.off =
// %<name>.k · rows, the packed offset of the first vector.
func (x colBlock) transposeRows(name string, rows []string) []string {
	w, vl, V := x.t.w, x.t.vl, x.t.vec()
	if x.rows != 8 || vl != 16 {
		panic(fmt.Sprintf("llvmcpu: column blocks of %d rows and %d lanes", x.rows, vl))
	}
	w("  %%%[1]s.off = mul i64 %%%[1]s.k, %[2]d", name, x.rows)
	n := 0
	shuf := func(a, b string, mask []int) string {
		v := fmt.Sprintf("%%%s.t%d", name, n)
		n++
		w("  %s = shufflevector %s %s, %s %s, %s", v, V, a, V, b, i32Vec(mask))
		return v
	}
	// Round 1: rows (2a, 2a+1) interleaved: lo holds K steps 4q, 4q+1 of
	// each 128-bit lane q, hi 4q+2, 4q+3.
	var lo, hi [4]string
	for a := 0; a < 4; a++ {
		lo[a] = shuf(rows[2*a], rows[2*a+1], unpLoPS)
		hi[a] = shuf(rows[2*a], rows[2*a+1], unpHiPS)
	}
	// Round 2: q[g][c], rows 4g…4g+3, holds K step 4m+c in 128-bit lane m.
	var q [2][4]string
	for g := 0; g < 2; g++ {
		q[g][0] = shuf(lo[2*g], lo[2*g+1], unpLoPD)
		q[g][1] = shuf(lo[2*g], lo[2*g+1], unpHiPD)
		q[g][2] = shuf(hi[2*g], hi[2*g+1], unpLoPD)
		q[g][3] = shuf(hi[2*g], hi[2*g+1], unpHiPD)
	}
	// Round 3: 128-bit lanes m, m+1 of both halves; each half of the
	// result is one K step's rows.
	lanes := func(m int) []int {
		out := make([]int, 0, 16)
		for _, l := range []int{m, 4 + m, m + 1, 5 + m} {
			for e := 0; e < 4; e++ {
				out = append(out, 4*l+e)
			}
		}
		return out
	}
	cols := make([]string, vl)
	for c := 0; c < 4; c++ {
		for h, m := range []int{0, 2} {
			z := shuf(q[0][c], q[1][c], lanes(m))
			for half := 0; half < 2; half++ {
				mask := make([]int, 8)
				for e := range mask {
					mask[e] = 8*half + e
				}
				v := fmt.Sprintf("%%%s.c%d", name, c+4*(2*h+half))
				w("  %s = shufflevector %s %s, %s poison, %s", v, V, z, V, i32Vec(mask))
				cols[c+4*(2*h+half)] = v
			}
		}
	}
	return cols
}

// step emits one K step: A's packed column segment, then per column a
// fused multiply-add with B's packed element at %p.bpk.
func (x colBlock) step() {
	if x.cols == 0 {
		return
	}
	w, p, V := x.t.w, x.p, x.vec()
	w("  %%%[1]s.axo = mul i64 %%%[1]s.p, %[2]d", p, x.rows)
	w("  %%%[1]s.axp = getelementptr inbounds float, ptr %%apack, i64 %%%[1]s.axo", p)
	w("  %%%[1]s.ax = load %[2]s, ptr %%%[1]s.axp, align %[3]d", p, V, 4*x.rows)
	for q := 0; q < x.cols; q++ {
		w("  %%%s.bxp%d = getelementptr inbounds float, ptr %%%s.bpk, i64 %d", p, q, p, x.col0+q)
		w("  %%%s.bxs%d = load float, ptr %%%s.bxp%d, align 4", p, q, p, q)
		w("  %%%s.bxi%d = insertelement <1 x float> poison, float %%%s.bxs%d, i64 0", p, q, p, q)
		w("  %%%s.bxv%d = shufflevector <1 x float> %%%s.bxi%d, <1 x float> poison, <%d x i32> zeroinitializer", p, q, p, q, x.rows)
		w("  %%%[1]s.accxn_%[2]d = call %[3]s @llvm.fmuladd%[4]s(%[3]s %%%[1]s.ax, %[3]s %%%[1]s.bxv%[2]d, %[3]s %%%[1]s.accx_%[2]d)", p, q, V, mangle(kir.F32, x.rows))
	}
}

// store stores the columns' accumulators to C, element by element,
// after apply (when set: the fused epilogue) on each column's vector; tag
// tells the names of one call from another's.
func (x colBlock) store(tag string, apply func(q int, acc string) string) {
	w, p := x.t.w, x.p
	for q := 0; q < x.cols; q++ {
		acc, o := fmt.Sprintf("%%%s.accx_%d", p, q), "cxo"+tag
		if apply != nil {
			acc = apply(q, acc)
		}
		for r := 0; r < x.rows; r++ {
			w("  %%%s.%s%d_%d = extractelement %s %s, i64 %d", p, o, r, q, x.vec(), acc, r)
			w("  store float %%%s.%s%d_%d, ptr %%%s.cx%d_%d, align 4", p, o, r, q, p, r, q)
		}
	}
}

// i32Vec is the typed constant <n x i32> of the values (a negative one
// is a poison lane: a shufflevector lane nothing reads).
func i32Vec(vals []int) string {
	s := fmt.Sprintf("<%d x i32> <", len(vals))
	for i, v := range vals {
		if i > 0 {
			s += ", "
		}
		if v < 0 {
			s += "i32 poison"
			continue
		}
		s += fmt.Sprintf("i32 %d", v)
	}
	return s + ">"
}
