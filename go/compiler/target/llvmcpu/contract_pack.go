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
// stride 1): per K step, nv vector loads (masked for the last columns) and
// aligned stores. It
// starts at label pr.entry and branches to packed.
func (t *kernelText) packRows() {
	w, vl, V := t.w, t.vl, t.vec()
	nr := nv * vl
	w("pr.entry:")
	w("  %%pr.bj = add i64 %%bo, %%j")
	w("  %%pr.full = icmp eq i64 %%nw, %d", nr)
	w("  br i1 %%pr.full, label %%prf.head, label %%pr.head")
	// Whole rows: plain loads.
	w("prf.head:")
	w("  %%prf.k = phi i64 [ 0, %%pr.entry ], [ %%prf.k.next, %%prf.body ]")
	w("  %%prf.more = icmp slt i64 %%prf.k, %%kc")
	w("  br i1 %%prf.more, label %%prf.body, label %%packed")
	w("prf.body:")
	w("  %%prf.kk = add i64 %%kb, %%prf.k")
	w("  %%prf.kr = mul i64 %%prf.kk, %%brs")
	w("  %%prf.off = add i64 %%prf.kr, %%pr.bj")
	w("  %%prf.src = getelementptr inbounds float, ptr %%B, i64 %%prf.off")
	w("  %%prf.doff = mul i64 %%prf.k, %d", nr)
	w("  %%prf.dst = getelementptr inbounds float, ptr %%pack, i64 %%prf.doff")
	for c := 0; c < nv; c++ {
		w("  %%prf.s%d = getelementptr inbounds float, ptr %%prf.src, i64 %d", c, c*vl)
		w("  %%prf.v%d = load %s, ptr %%prf.s%d, align 4", c, V, c)
		w("  %%prf.d%d = getelementptr inbounds float, ptr %%prf.dst, i64 %d", c, c*vl)
		w("  store %s %%prf.v%d, ptr %%prf.d%d, align 64", V, c, c)
	}
	w("  %%prf.k.next = add i64 %%prf.k, 1")
	w("  br label %%prf.head")
	// The last columns: masked loads.
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
// columns (row stride 1): per vl K steps and vl columns, vl vector loads
// along K (one per column), a vl × vl transpose in registers and vl
// aligned stores. Whole blocks load without masks; the last columns and K
// steps load with masks (zeros past nw columns and past kc). It starts at
// label pt.entry and branches to packed.
func (t *kernelText) packTransposed() {
	w, vl := t.w, t.vl
	w("pt.entry:")
	w("  %%pt.full = icmp eq i64 %%nw, %d", nv*vl)
	w("  br label %%pt.head")
	w("pt.head:")
	w("  %%pt.k = phi i64 [ 0, %%pt.entry ], [ %%pt.k.next, %%pt.latch ]")
	w("  %%pt.more = icmp slt i64 %%pt.k, %%kc")
	w("  br i1 %%pt.more, label %%pt.body, label %%packed")
	w("pt.body:")
	w("  %%pt.kleft = sub i64 %%kc, %%pt.k")
	w("  %%pt.kfull = icmp sge i64 %%pt.kleft, %d", vl)
	w("  %%pt.whole = and i1 %%pt.full, %%pt.kfull")
	w("  %%pt.kk = add i64 %%kb, %%pt.k")
	w("  %%pt.base = add i64 %%bo, %%pt.kk")
	w("  %%pt.doff = mul i64 %%pt.k, %d", nv*vl)
	w("  %%pt.dst = getelementptr inbounds float, ptr %%pack, i64 %%pt.doff")
	w("  br i1 %%pt.whole, label %%ptw.body, label %%ptm.body")
	w("ptw.body:")
	t.packTransposedBlock("ptw", false)
	w("  br label %%pt.latch")
	w("ptm.body:")
	t.lanesBelow("%pt.kmask", 0, "%pt.kleft")
	t.packTransposedBlock("ptm", true)
	w("  br label %%pt.latch")
	w("pt.latch:")
	w("  %%pt.k.next = add i64 %%pt.k, %d", vl)
	w("  br label %%pt.head")
}

// packTransposedBlock emits one step of packTransposed: nv transposed
// vl × vl blocks, loaded with masks when masked.
func (t *kernelText) packTransposedBlock(p string, masked bool) {
	w, vl, V := t.w, t.vl, t.vec()
	nr := nv * vl
	M := t.maskTy()
	for g := 0; g < nv; g++ {
		rows := make([]string, vl)
		for l := 0; l < vl; l++ {
			col := g*vl + l
			x := fmt.Sprintf("%%%s.%d_%d", p, g, l)
			w("  %s.col = add i64 %%j, %d", x, col)
			w("  %s.cb = mul i64 %s.col, %%bcs", x, x)
			w("  %s.off = add i64 %%pt.base, %s.cb", x, x)
			w("  %s.p = getelementptr float, ptr %%B, i64 %s.off", x, x)
			if masked {
				w("  %s.ok = icmp slt i64 %d, %%nw", x, col)
				w("  %s.m = select i1 %s.ok, %s %%pt.kmask, %s zeroinitializer", x, x, M, M)
				t.maskedLoad(x+".v", x+".p", x+".m")
			} else {
				w("  %s.v = load %s, ptr %s.p, align 4", x, V, x)
			}
			rows[l] = x + ".v"
		}
		cols := t.transpose(fmt.Sprintf("%%%s.t%d", p, g), rows)
		for l, v := range cols {
			w("  %%%s.d%d_%d = getelementptr inbounds float, ptr %%pt.dst, i64 %d", p, g, l, l*nr+g*vl)
			w("  store %s %s, ptr %%%s.d%d_%d, align 64", V, v, p, g, l)
		}
	}
}

// transpose emits the transpose of the vl × vl matrix whose rows are the
// vectors rows and returns its columns. With 16 lanes it uses the
// shuffles x86 has cheap forms of (in-lane unpacks, then 128-bit lane
// shuffles: vpermt2ps is twice as slow on some cores); else log2(vl)
// rounds of perfect shuffles: vector p with vector p+vl/2 (low halves
// interleaved into 2p, high halves into 2p+1), where an element at vector
// v, lane l moves to vector (2v + l/(vl/2)) mod vl, lane
// (2l + v/(vl/2)) mod vl — the bits of (v, l) rotate left by one — so
// log2(vl) rounds swap v and l. Either way the shuffles are also applied
// to element labels, and a wrong result is an internal error.
func (t *kernelText) transpose(name string, rows []string) []string {
	vl := t.vl
	s := &shuffler{t: t, name: name, vals: rows, labels: make([][]int, vl)}
	for v := range s.labels {
		s.labels[v] = make([]int, vl)
		for l := range s.labels[v] {
			s.labels[v][l] = v*vl + l
		}
	}
	if vl == 16 {
		s.x86Transpose16()
	} else {
		s.perfectShuffles()
	}
	// Find each column among the vectors.
	cols := make([]string, vl)
	for c := range cols {
		for v, lab := range s.labels {
			ok := true
			for l, x := range lab {
				ok = ok && x == l*vl+c
			}
			if ok {
				cols[c] = s.vals[v]
			}
		}
		if cols[c] == "" {
			panic(fmt.Sprintf("llvmcpu: transpose of %d lanes lost column %d", vl, c))
		}
	}
	return cols
}

// shuffler emits shufflevectors of vl-lane vectors and tracks which
// matrix element each lane holds.
type shuffler struct {
	t      *kernelText
	name   string
	n      int
	vals   []string
	labels [][]int
}

// shuffle returns the shufflevector of vectors x and y (indices into
// vals) with mask (lane indices into x's lanes, then y's at vl…).
func (s *shuffler) shuffle(x, y int, mask []int) (string, []int) {
	vl := s.t.vl
	lab := make([]int, vl)
	parts := make([]string, vl)
	for i, m := range mask {
		if m < vl {
			lab[i] = s.labels[x][m]
		} else {
			lab[i] = s.labels[y][m-vl]
		}
		parts[i] = fmt.Sprintf("i32 %d", m)
	}
	v := fmt.Sprintf("%s.s%d", s.name, s.n)
	s.n++
	V := s.t.vec()
	s.t.w("  %s = shufflevector %s %s, %s %s, <%d x i32> <%s>", v, V, s.vals[x], V, s.vals[y], vl, strings.Join(parts, ", "))
	return v, lab
}

// round replaces the vectors with out[i] = shuffle(pairs[i], masks[i]).
func (s *shuffler) round(pairs [][2]int, masks [][]int) {
	vals, labels := make([]string, len(pairs)), make([][]int, len(pairs))
	for i, p := range pairs {
		vals[i], labels[i] = s.shuffle(p[0], p[1], masks[i])
	}
	s.vals, s.labels = vals, labels
}

// perfectShuffles is log2(vl) rounds of interleaving vector p with vector
// p+vl/2.
func (s *shuffler) perfectShuffles() {
	vl := s.t.vl
	h := vl / 2
	lo, hi := make([]int, vl), make([]int, vl)
	for i := 0; i < h; i++ {
		lo[2*i], lo[2*i+1] = i, vl+i
		hi[2*i], hi[2*i+1] = h+i, vl+h+i
	}
	for r := 1; r < vl; r *= 2 {
		pairs, masks := make([][2]int, vl), make([][]int, vl)
		for p := 0; p < h; p++ {
			pairs[2*p], masks[2*p] = [2]int{p, p + h}, lo
			pairs[2*p+1], masks[2*p+1] = [2]int{p, p + h}, hi
		}
		s.round(pairs, masks)
	}
}

// inLane repeats f's four-element pattern in each 128-bit lane (f gets
// the lane's first element) of a 16-lane shuffle mask.
func inLane(f func(b int) []int) []int {
	m := make([]int, 0, 16)
	for q := 0; q < 4; q++ {
		m = append(m, f(4*q)...)
	}
	return m
}

// The shufflevector masks of x86's unpcklps, unpckhps, unpcklpd and
// unpckhpd on two 16-lane f32 vectors (within each 128-bit lane), which
// the in-register transposes (x86Transpose16, colBlock's) are made of.
var (
	unpLoPS = inLane(func(b int) []int { return []int{b, 16 + b, b + 1, 17 + b} })
	unpHiPS = inLane(func(b int) []int { return []int{b + 2, 18 + b, b + 3, 19 + b} })
	unpLoPD = inLane(func(b int) []int { return []int{b, b + 1, 16 + b, 17 + b} })
	unpHiPD = inLane(func(b int) []int { return []int{b + 2, b + 3, 18 + b, 19 + b} })
)

// x86Transpose16 is the 16 × 16 transpose as unpcklps/unpckhps,
// unpcklpd/unpckhpd and two rounds of shuff32x4 (0x88 and 0xdd).
func (s *shuffler) x86Transpose16() {
	lanes := func(a, b, c, d int) []int { // 128-bit lanes a, b of x, c, d of y
		m := make([]int, 0, 16)
		for _, q := range []int{a, b, 4 + c, 4 + d} {
			for e := 0; e < 4; e++ {
				m = append(m, 4*q+e)
			}
		}
		return m
	}
	even, odd := lanes(0, 2, 0, 2), lanes(1, 3, 1, 3)
	pairs, masks := make([][2]int, 16), make([][]int, 16)
	for p := 0; p < 8; p++ {
		pairs[2*p], masks[2*p] = [2]int{2 * p, 2*p + 1}, unpLoPS
		pairs[2*p+1], masks[2*p+1] = [2]int{2 * p, 2*p + 1}, unpHiPS
	}
	s.round(pairs, masks)
	for g := 0; g < 4; g++ { // vectors 4g…4g+3: (0,2) lo/hi, (1,3) lo/hi
		b := 4 * g
		pairs[b], masks[b] = [2]int{b, b + 2}, unpLoPD
		pairs[b+1], masks[b+1] = [2]int{b, b + 2}, unpHiPD
		pairs[b+2], masks[b+2] = [2]int{b + 1, b + 3}, unpLoPD
		pairs[b+3], masks[b+3] = [2]int{b + 1, b + 3}, unpHiPD
	}
	s.round(pairs, masks)
	for h := 0; h < 2; h++ { // vectors 8h…8h+7: (i, i+4) even and odd
		b := 8 * h
		for i := 0; i < 4; i++ {
			pairs[b+i], masks[b+i] = [2]int{b + i, b + i + 4}, even
			pairs[b+4+i], masks[b+4+i] = [2]int{b + i, b + i + 4}, odd
		}
	}
	s.round(pairs, masks)
	for i := 0; i < 8; i++ { // (i, i+8) even and odd
		pairs[i], masks[i] = [2]int{i, i + 8}, even
		pairs[8+i], masks[8+i] = [2]int{i, i + 8}, odd
	}
	s.round(pairs, masks)
}
