package llvmcpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// DWConv operand numbers (kir/ops.go documents the order).
const (
	dwInOff  = 0
	dwInCS   = 1
	dwInRS   = 2
	dwWOff   = 3
	dwWCS    = 4
	dwWRS    = 5
	dwWQS    = 6
	dwOutOff = 7
	dwOutCS  = 8
	dwOutRS  = 9
	dwC      = 10
	dwH      = 11
	dwW      = 12
	dwOH     = 13
	dwOW     = 14
	dwKH     = 15
	dwKW     = 16
	dwSH     = 17
	dwSW     = 18
	dwDH     = 19
	dwDW     = 20
	dwPH     = 21
	dwPW     = 22
	dwCI     = 23
	dwInSum  = 24
	dwWSum   = 25
)

// dwUnroll is the most vectors of one plane (flat form) or one output row
// that are emitted unrolled, with their lane masks as constants.
const dwUnroll = 16

// dwRowBlock is the most output rows of a block (see rows). Four rows of
// four vectors (56 or 60 columns) held 16 accumulators, the nine weights
// and the masked loads of the last vector, which do not fold into the
// multiply-adds: LLVM spilled them to the stack, and 144×56×56 (3×3,
// stride 1) took 110 µs against 63 with three rows. Three rows were as
// fast as four or faster at every MobileNetV2 shape (AVX-512, two
// threads, alone): 192×28×28 26 vs 32 µs, 32×112×112 equal at two rows.
const dwRowBlock = 3

// dwShape is a DWConv's compile-time part: the window, the planes' sizes
// and the row strides.
type dwShape struct {
	H, W, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW, inRS, outRS, CI int64
}

// dwConv is the emission state of one DWConv.
type dwConv struct {
	f   *fn
	op  *kir.Op
	s   dwShape
	vl  int
	ib  string   // the channel's input offset (elements)
	ob  string   // the channel's output offset
	wts []string // the channel's weights, each broadcast to a vector
	// The fused epilogue: the channel's bias and the bounds, broadcast
	// ("" when absent).
	bias, lo, hi string
}

// dwconv emits the DWConv tile op: bounds checks of its three tiles, then
// a loop over the channels. Each channel's KH·KW weights are broadcast
// once; each vector of outputs sums its taps with masked loads whose
// masks are the zero pad (a lane whose input position lies outside the
// plane reads +0, exactly as kir.Run does, so NaN and signed zeros agree).
// Small stride-1 planes whose rows are at most half a vector run over
// the flattened plane (7×7 is four 16-lane vectors, not seven of seven
// lanes); the others run row by row, in blocks of rows that share their
// input rows' loads, strided columns as one span load and a shuffle. The window, plane sizes and row strides must be
// compile-time constants (codegen emits them so).
func (f *fn) dwconv(op *kir.Op) error {
	var s dwShape
	fields := []*int64{&s.H, &s.W, &s.OH, &s.OW, &s.KH, &s.KW, &s.SH, &s.SW, &s.DH, &s.DW, &s.PH, &s.PW, &s.inRS, &s.outRS, &s.CI}
	for i, arg := range []int{dwH, dwW, dwOH, dwOW, dwKH, dwKW, dwSH, dwSW, dwDH, dwDW, dwPH, dwPW, dwInRS, dwOutRS, dwCI} {
		v, ok := f.consts[op.Args[arg]]
		if !ok {
			return status.Errorf(status.Unimplemented, "dwconv operand %d is not a compile-time constant: llvm-cpu specializes depthwise convolutions on their window, plane sizes and row strides", arg)
		}
		*fields[i] = v
	}
	if len(op.Args) != kir.DWConvOperands(op.Imm) {
		return status.Errorf(status.Internal, "dwconv with flags %#x has %d operands", op.Imm, len(op.Args))
	}
	if s.H < 1 || s.W < 1 || s.OH < 1 || s.OW < 1 || s.KH < 1 || s.KW < 1 || s.SH < 1 || s.SW < 1 || s.DH < 1 || s.DW < 1 ||
		s.inRS < s.W || s.outRS < s.OW || s.W > 1<<30 || s.H*s.inRS > 1<<40 || s.CI < 1 || s.CI*s.KH*s.KW > 64 {
		return status.Errorf(status.Unimplemented, "dwconv %+v: llvm-cpu needs positive sizes, strides and dilations, rows that do not overlap and at most 64 taps", s)
	}
	inCS, inCSConst := f.consts[op.Args[dwInCS]]
	if s.CI > 1 && (!inCSConst || inCS != 0) {
		return status.Errorf(status.Unimplemented, "dwconv summing %d input planes: llvm-cpu needs every output channel to read the same planes (input channel stride 0)", s.CI)
	}
	d := &dwConv{f: f, op: op, s: s, vl: f.mo.vl}
	i64, b1 := kir.S(kir.I64), kir.S(kir.I1)
	a := func(i int) string { return f.v(op.Args[i]) }
	do, done := f.newLabel("dwconv"), f.newLabel("dwconv.end")
	f.emitf("br i1 %s, label %%%s, label %%%s", f.icmp("sgt", i64, a(dwC), "0"), do, done)
	f.startBlock(do)
	// Each tile as C rows (the channel stride) of a contiguous extent.
	sum := func(stride string) string { return f.bin("mul", i64, fmt.Sprint(s.CI-1), stride) }
	inExt := f.bin("add", i64, sum(a(dwInSum)), fmt.Sprint((s.H-1)*s.inRS+s.W))
	wExt := f.bin("add", i64, sum(a(dwWSum)), f.bin("add", i64, f.bin("add", i64, f.bin("mul", i64, fmt.Sprint(s.KH-1), a(dwWRS)), f.bin("mul", i64, fmt.Sprint(s.KW-1), a(dwWQS))), "1"))
	nonNeg := func(vs ...string) string {
		ok := "true"
		for _, v := range vs {
			ok = f.bin("and", b1, ok, f.icmp("sge", i64, v, "0"))
		}
		return ok
	}
	pos := [3]string{nonNeg(a(dwInSum)), nonNeg(a(dwWRS), a(dwWQS), a(dwWSum)), "true"}
	tiles := [3][3]string{
		{a(dwInOff), a(dwInCS), inExt},
		{a(dwWOff), a(dwWCS), wExt},
		{a(dwOutOff), a(dwOutCS), fmt.Sprint((s.OH-1)*s.outRS + s.OW)},
	}
	all := "true"
	for i, b := range op.Bindings {
		t := tiles[i]
		ok := f.bin("and", b1, f.tileOK(b, t[0], t[1], "1", a(dwC), t[2]), pos[i])
		all = f.tileChecked(all, ok, b)
	}
	rest := op.Args[kir.DWConvArgs:]
	if op.Imm&kir.DWConvBias != 0 {
		all = f.tileChecked(all, f.tileOK(op.Binding, f.v(rest[0]), f.v(rest[1]), "1", a(dwC), "1"), op.Binding)
		rest = rest[2:]
	}
	if op.Imm&kir.DWConvMax != 0 {
		d.lo, rest = f.broadcast(d.vecT(), f.v(rest[0])), rest[1:]
	}
	if op.Imm&kir.DWConvMin != 0 {
		d.hi = f.broadcast(d.vecT(), f.v(rest[0]))
	}
	run := f.newLabel("dwconv.run")
	f.emitf("br i1 %s, label %%%s, label %%%s", all, run, done)
	f.startBlock(run)
	if s.CI > 1 {
		d.dense()
		f.emitf("br label %%%s", done)
		f.startBlock(done)
		return nil
	}
	f.loop("dw.c", "0", a(dwC), "1", func(c string) {
		d.channel(c)
		if s.SH == 1 && s.SW == 1 && s.OW == s.W && s.inRS == s.W && s.outRS == s.OW && s.OH*s.OW <= dwUnroll*int64(d.vl) && 2*s.OW <= int64(d.vl) {
			d.flat()
		} else {
			d.rows()
		}
	})
	f.emitf("br label %%%s", done)
	f.startBlock(done)
	return nil
}

// loop emits a counted loop over [lo, hi) by step (i64 operands) whose
// body body emits; the body may open blocks of its own.
func (f *fn) loop(stem, lo, hi, step string, body func(iv string)) {
	pre := f.cur
	head, bodyL, latch, exit := f.newLabel(stem+".head"), f.newLabel(stem+".body"), f.newLabel(stem+".latch"), f.newLabel(stem+".exit")
	iv, next := f.t(), f.t()
	f.emitf("br label %%%s", head)
	f.startBlock(head)
	f.emitf("%s = phi i64 [ %s, %%%s ], [ %s, %%%s ]", iv, lo, pre, next, latch)
	more := f.icmp("slt", kir.S(kir.I64), iv, hi)
	f.emitf("br i1 %s, label %%%s, label %%%s", more, bodyL, exit)
	f.startBlock(bodyL)
	body(iv)
	f.emitf("br label %%%s", latch)
	f.startBlock(latch)
	f.emitf("%s = add i64 %s, %s", next, iv, step)
	f.emitf("br label %%%s", head)
	f.startBlock(exit)
}

// channel computes channel c's offsets and broadcasts its weights.
func (d *dwConv) channel(c string) {
	f, op, i64 := d.f, d.op, kir.S(kir.I64)
	a := func(i int) string { return f.v(op.Args[i]) }
	d.ib = f.bin("add", i64, a(dwInOff), f.bin("mul", i64, c, a(dwInCS)))
	d.ob = f.bin("add", i64, a(dwOutOff), f.bin("mul", i64, c, a(dwOutCS)))
	wb := f.bin("add", i64, a(dwWOff), f.bin("mul", i64, c, a(dwWCS)))
	d.wts = d.wts[:0]
	d.bias = d.channelBias(c)
	for i := int64(0); i < d.s.KH; i++ {
		for j := int64(0); j < d.s.KW; j++ {
			off := f.bin("add", i64, wb, f.bin("add", i64, f.bin("mul", i64, fmt.Sprint(i), a(dwWRS)), f.bin("mul", i64, fmt.Sprint(j), a(dwWQS))))
			d.wts = append(d.wts, d.weight(off))
		}
	}
}

func (d *dwConv) vecT() kir.Type { return kir.V(kir.F32, d.vl) }

func (d *dwConv) i32T() kir.Type { return kir.V(kir.I32, d.vl) }

// lanes returns <x, x+1, …> (vl i32 lanes) for an i64 scalar x: a
// constant when x is.
func (d *dwConv) lanes(x string) string {
	t := d.i32T()
	x32 := d.f.t()
	d.f.emitf("%s = trunc i64 %s to i32", x32, x)
	parts := make([]string, d.vl)
	for i := range parts {
		parts[i] = fmt.Sprintf("i32 %d", i)
	}
	return d.f.bin("add", t, d.f.broadcast(t, x32), "<"+strings.Join(parts, ", ")+">")
}

// inside returns the lanes of v (i32) + k that lie in [0, n).
func (d *dwConv) inside(v string, k, n int64) string {
	t := d.i32T()
	return d.f.icmp("ult", t, d.f.bin("add", t, v, cst(t, fmt.Sprint(k))), cst(t, fmt.Sprint(n)))
}

// tap loads the vl lanes at input offset off under mask m (+0 where m is
// false) and adds their products with weight w to acc.
func (d *dwConv) tap(off, m, w, acc string) string {
	return d.fmuladd(d.load(off, m), w, acc)
}

// load loads the vl lanes at input offset off under mask m (+0 where m is
// false).
func (d *dwConv) load(off, m string) string {
	f := d.f
	p, v := f.t(), f.t()
	V, M, mg := ty(d.vecT()), vecOf("i1", d.vl), mangle(kir.F32, d.vl)
	f.emitf("%s = getelementptr float, ptr %%b%d, i64 %s", p, d.op.Bindings[0], off)
	f.emitf("%s = call %s @llvm.masked.load%s.p0(ptr %s, i32 4, %s %s, %s zeroinitializer)", v, V, mg, p, M, m, V)
	f.mo.declare("llvm.masked.load"+mg, fmt.Sprintf("declare %s @llvm.masked.load%s.p0(ptr, i32 immarg, %s, %s)", V, mg, M, V))
	return v
}

func (d *dwConv) fmuladd(x, w, acc string) string {
	f := d.f
	V, mg := ty(d.vecT()), mangle(kir.F32, d.vl)
	r := f.t()
	f.emitf("%s = call %s @llvm.fmuladd%s(%s %s, %s %s, %s %s)", r, V, mg, V, x, V, w, V, acc)
	f.mo.declare("llvm.fmuladd"+mg, fmt.Sprintf("declare %s @llvm.fmuladd%s(%s, %s, %s)", V, mg, V, V, V))
	return r
}

// store writes acc, after the fused epilogue, at output offset off: the
// first n lanes (all when n ≥ vl).
func (d *dwConv) store(off, acc string, n int64) {
	f := d.f
	if d.bias != "" {
		acc = f.bin("fadd", d.vecT(), acc, d.bias)
	}
	if d.lo != "" {
		acc = f.minMax(d.vecT(), d.vecT(), acc, d.lo, true)
	}
	if d.hi != "" {
		acc = f.minMax(d.vecT(), d.vecT(), acc, d.hi, false)
	}
	p := f.t()
	V, M, mg := ty(d.vecT()), vecOf("i1", d.vl), mangle(kir.F32, d.vl)
	f.emitf("%s = getelementptr inbounds float, ptr %%b%d, i64 %s", p, d.op.Bindings[2], off)
	if n >= int64(d.vl) {
		f.emitf("store %s %s, ptr %s, align 4", V, acc, p)
		return
	}
	bits := make([]string, d.vl)
	for i := range bits {
		bits[i] = fmt.Sprintf("i1 %t", int64(i) < n)
	}
	f.emitf("call void @llvm.masked.store%s.p0(%s %s, ptr %s, i32 4, %s <%s>)", mg, V, acc, p, M, strings.Join(bits, ", "))
	f.mo.declare("llvm.masked.store"+mg, fmt.Sprintf("declare void @llvm.masked.store%s.p0(%s, ptr, i32 immarg, %s)", mg, V, M))
}

// flat emits a stride-1 channel whose input and output rows are W wide
// and contiguous: the plane is one run of OH·W outputs, and the tap
// (i, j) of output p reads input p + (i·DH−PH)·W + j·DW−PW wherever its
// row and column are inside the plane.
func (d *dwConv) flat() {
	f, s, vl := d.f, d.s, int64(d.vl)
	P := s.OH * s.OW
	full := P / vl * vl
	vector := func(p string, n int64) {
		idx := d.lanes(p)
		t := d.i32T()
		y := f.bin("udiv", t, idx, cst(t, fmt.Sprint(s.W)))
		x := f.bin("urem", t, idx, cst(t, fmt.Sprint(s.W)))
		rows, cols := d.masks(y, x)
		acc := cst(d.vecT(), "0.0")
		i64 := kir.S(kir.I64)
		base := f.bin("add", i64, d.ib, p)
		for i := int64(0); i < s.KH; i++ {
			for j := int64(0); j < s.KW; j++ {
				m := f.bin("and", kir.V(kir.I1, d.vl), rows[i], cols[j])
				if n < vl {
					m = f.bin("and", kir.V(kir.I1, d.vl), m, f.icmp("ult", t, idx, cst(t, fmt.Sprint(P))))
				}
				off := f.bin("add", i64, base, fmt.Sprint((i*s.DH-s.PH)*s.W+j*s.DW-s.PW))
				acc = d.tap(off, m, d.wts[i*s.KW+j], acc)
			}
		}
		d.store(f.bin("add", i64, d.ob, p), acc, n)
	}
	if P <= dwUnroll*vl {
		for p := int64(0); p < P; p += vl {
			vector(fmt.Sprint(p), min(vl, P-p))
		}
		return
	}
	f.loop("dw.p", "0", fmt.Sprint(full), fmt.Sprint(vl), func(p string) { vector(p, vl) })
	if full < P {
		vector(fmt.Sprint(full), P-full)
	}
}

// masks returns, for output rows y and columns x (input coordinates
// before the window offset, i32 lanes), the lanes whose tap row i and
// tap column j lie inside the input.
func (d *dwConv) masks(y, x string) (rows, cols []string) {
	s := d.s
	for i := int64(0); i < s.KH; i++ {
		rows = append(rows, d.inside(y, i*s.DH-s.PH, s.H))
	}
	for j := int64(0); j < s.KW; j++ {
		cols = append(cols, d.inside(x, j*s.DW-s.PW, s.W))
	}
	return rows, cols
}

// rows emits a channel row by row: output row y's tap row i is input row
// y·SH + i·DH − PH (all lanes off outside the input), its columns x·SW +
// j·DW − PW, read as one span of vl·SW elements and every SW-th kept when
// SW > 1. Rows whose vectors are unrolled go in blocks of up to
// dwRowBlock (as many as 16 accumulators allow): each input row a block
// reads is loaded once per column tap and feeds every output row of the
// block that uses it.
func (d *dwConv) rows() {
	f, s, vl := d.f, d.s, int64(d.vl)
	if s.OW <= dwUnroll*vl {
		nx := (s.OW + vl - 1) / vl
		R := min(max(16/nx, 1), dwRowBlock, s.OH)
		full := s.OH / R * R
		block := d.rowBlockSplit
		if d.vl >= 16 {
			// AVX-512's masked loads cost what plain ones do, and the
			// second copy of the block made LLVM spill accumulators
			// (TestDWConvStride1KeepsRegisters).
			block = func(y0 string, R int64) { d.rowBlock(y0, R, false) }
		}
		f.loop("dw.y", "0", fmt.Sprint(full), fmt.Sprint(R), func(y0 string) { block(y0, R) })
		if full < s.OH {
			d.rowBlock(fmt.Sprint(full), s.OH-full, false)
		}
		return
	}
	i64 := kir.S(kir.I64)
	f.loop("dw.y", "0", fmt.Sprint(s.OH), "1", func(y string) {
		var rowOK, rowOff []string
		for i := int64(0); i < s.KH; i++ {
			r := f.bin("add", i64, f.bin("mul", i64, y, fmt.Sprint(s.SH)), fmt.Sprint(i*s.DH-s.PH))
			rowOK = append(rowOK, f.icmp("ult", i64, r, fmt.Sprint(s.H)))
			rowOff = append(rowOff, d.rowOffset(d.ib, r, rowOK[len(rowOK)-1]))
		}
		ob := f.bin("add", i64, d.ob, f.bin("mul", i64, y, fmt.Sprint(s.outRS)))
		vector := func(x0 string, n int64) {
			acc := cst(d.vecT(), "0.0")
			for i := int64(0); i < s.KH; i++ {
				for j, x := range d.columnTaps(rowOff[i], rowOK[i], x0) {
					acc = d.fmuladd(x, d.wts[i*s.KW+int64(j)], acc)
				}
			}
			d.store(f.bin("add", i64, ob, x0), acc, n)
		}
		full := s.OW / vl * vl
		f.loop("dw.x", "0", fmt.Sprint(full), fmt.Sprint(vl), func(x string) { vector(x, vl) })
		if full < s.OW {
			vector(fmt.Sprint(full), s.OW-full)
		}
	})
}

// rowOffset returns the input offset of row in the plane at base, or of
// row 0 where ok (row lies inside the plane) is false. The loads of a row
// outside the plane have every lane masked off, but LLVM may still turn a
// strided span's masked load into a plain one on AVX2: the address must
// then be memory of the binding, never the row above the first (a fault
// when the binding starts a mapping).
func (d *dwConv) rowOffset(base, row, ok string) string {
	f, s := d.f, d.s
	i64 := kir.S(kir.I64)
	if s.SW > 1 {
		// Only strided spans (two vectors' worth of columns, split in
		// halves on AVX2) were seen to lose their masks; a select on
		// every stride-1 row costs registers (spills at 32×112×112).
		row = f.sel(i64, ok, row, "0")
	}
	return f.bin("add", i64, base, f.bin("mul", i64, row, fmt.Sprint(s.inRS)))
}

// rowBlockSplit emits rowBlock twice behind a run-time test: blocks whose
// input rows all lie inside the plane (every block but the first and
// last few) take the form whose row masks are constants, so that a
// column vector inside the plane loads without a mask (AVX2's masked
// loads, vmaskmovps, cost several times more than plain ones on AMD
// cores); the others keep the row tests. Both compute the same sums in
// the same order. For 8-lane (AVX2) targets only.
func (d *dwConv) rowBlockSplit(y0 string, R int64) {
	f, s := d.f, d.s
	i64 := kir.S(kir.I64)
	top := f.bin("sub", i64, f.bin("mul", i64, y0, fmt.Sprint(s.SH)), fmt.Sprint(s.PH))
	bottom := f.bin("add", i64, top, fmt.Sprint((R-1)*s.SH+(s.KH-1)*s.DH))
	in := f.bin("and", kir.S(kir.I1), f.icmp("sge", i64, top, "0"), f.icmp("slt", i64, bottom, fmt.Sprint(s.H)))
	inner, edge, done := f.newLabel("dw.in"), f.newLabel("dw.edge"), f.newLabel("dw.done")
	f.emitf("br i1 %s, label %%%s, label %%%s", in, inner, edge)
	f.startBlock(inner)
	d.rowBlock(y0, R, true)
	f.emitf("br label %%%s", done)
	f.startBlock(edge)
	d.rowBlock(y0, R, false)
	f.emitf("br label %%%s", done)
	f.startBlock(done)
}

// rowBlock emits output rows y0 … y0+R−1 with their vectors unrolled.
// The sums keep the (i, j) order of each output element. With inside,
// the caller has checked that every input row the block reads lies in
// the plane.
func (d *dwConv) rowBlock(y0 string, R int64, inside bool) {
	f, s, vl := d.f, d.s, int64(d.vl)
	i64 := kir.S(kir.I64)
	nx := (s.OW + vl - 1) / vl
	acc := make([][]string, R)
	for r := range acc {
		acc[r] = make([]string, nx)
		for v := range acc[r] {
			acc[r][v] = cst(d.vecT(), "0.0")
		}
	}
	// Input rows (relative to y0·SH) in increasing order, with the
	// (output row, tap row) pairs that read them.
	type use struct{ r, i int64 }
	uses := map[int64][]use{}
	var rels []int64
	for r := int64(0); r < R; r++ {
		for i := int64(0); i < s.KH; i++ {
			rel := r*s.SH + i*s.DH - s.PH
			if _, ok := uses[rel]; !ok {
				rels = append(rels, rel)
			}
			uses[rel] = append(uses[rel], use{r, i})
		}
	}
	slices.Sort(rels)
	base := f.bin("mul", i64, y0, fmt.Sprint(s.SH))
	for _, rel := range rels {
		row := f.bin("add", i64, base, fmt.Sprint(rel))
		ok := "true"
		if !inside {
			ok = f.icmp("ult", i64, row, fmt.Sprint(s.H))
		}
		off := d.rowOffset(d.ib, row, ok)
		for v := int64(0); v < nx; v++ {
			for j, x := range d.columnTaps(off, ok, fmt.Sprint(v*vl)) {
				for _, u := range uses[rel] {
					acc[u.r][v] = d.fmuladd(x, d.wts[u.i*s.KW+int64(j)], acc[u.r][v])
				}
			}
		}
	}
	for r := int64(0); r < R; r++ {
		ob := f.bin("add", i64, d.ob, f.bin("mul", i64, f.bin("add", i64, y0, fmt.Sprint(r)), fmt.Sprint(s.outRS)))
		for v := int64(0); v < nx; v++ {
			d.store(f.bin("add", i64, ob, fmt.Sprint(v*vl)), acc[r][v], min(vl, s.OW-v*vl))
		}
	}
}

// columnTaps returns the KW column taps (j = 0 … KW−1) of the vl output
// columns from x0 (a constant or a kernel value) of the row at offset
// row, +0 outside the input or where ok is false: tap j reads columns
// x·SW + j·DW − PW. A strided span of vl·SW columns also holds the taps
// up to SW−1 columns to its right, which share its load.
func (d *dwConv) columnTaps(row, ok, x0 string) []string {
	f, s := d.f, d.s
	i64 := kir.S(kir.I64)
	q := func(j int64) string {
		if x, err := strconv.ParseInt(x0, 10, 64); err == nil {
			return fmt.Sprint(x*s.SW + j*s.DW - s.PW)
		}
		return f.bin("add", i64, f.bin("mul", i64, x0, fmt.Sprint(s.SW)), fmt.Sprint(j*s.DW-s.PW))
	}
	var taps []string
	var span string
	var spanJ int64
	for j := int64(0); j < s.KW; j++ {
		switch {
		case s.SW > 1 && span != "" && (j-spanJ)*s.DW < s.SW:
			taps = append(taps, d.pick(span, (j-spanJ)*s.DW))
		case s.SW > 1:
			span, spanJ = d.spanRaw(row, ok, q(j)), j
			taps = append(taps, d.pick(span, 0))
		default:
			taps = append(taps, d.spanLoad(row, ok, q(j)))
		}
	}
	return taps
}

// spanLoad loads the vl input columns q0, q0+SW, … of the row at offset
// row, +0 where a column is outside the input or ok is false.
func (d *dwConv) spanLoad(row, ok, q0 string) string {
	f, s := d.f, d.s
	sw := int(s.SW)
	if sw == 1 {
		m := f.bin("and", kir.V(kir.I1, d.vl), d.inside(d.lanes(q0), 0, s.W), f.broadcast(kir.V(kir.I1, d.vl), ok))
		return d.load(f.bin("add", kir.S(kir.I64), row, q0), m)
	}
	return d.pick(d.spanRaw(row, ok, q0), 0)
}

// spanRaw loads the vl·SW input columns from q0 of the row at offset row,
// +0 where a column is outside the input or ok is false.
func (d *dwConv) spanRaw(row, ok, q0 string) string {
	f, s := d.f, d.s
	n := d.vl * int(s.SW)
	t := kir.V(kir.I32, n)
	q32 := f.t()
	f.emitf("%s = trunc i64 %s to i32", q32, q0)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("i32 %d", i)
	}
	pos := f.bin("add", t, f.broadcast(t, q32), "<"+strings.Join(parts, ", ")+">")
	m := f.bin("and", kir.V(kir.I1, n), f.icmp("ult", t, pos, cst(t, fmt.Sprint(s.W))), f.broadcast(kir.V(kir.I1, n), ok))
	p, v := f.t(), f.t()
	V, M, mg := vecOf("float", n), vecOf("i1", n), mangle(kir.F32, n)
	f.emitf("%s = getelementptr float, ptr %%b%d, i64 %s", p, d.op.Bindings[0], f.bin("add", kir.S(kir.I64), row, q0))
	f.emitf("%s = call %s @llvm.masked.load%s.p0(ptr %s, i32 4, %s %s, %s zeroinitializer)", v, V, mg, p, M, m, V)
	f.mo.declare("llvm.masked.load"+mg, fmt.Sprintf("declare %s @llvm.masked.load%s.p0(ptr, i32 immarg, %s, %s)", V, mg, M, V))
	return v
}

// pick keeps lanes phase, phase+SW, … of a span spanRaw loaded.
func (d *dwConv) pick(span string, phase int64) string {
	f, sw := d.f, int(d.s.SW)
	V := vecOf("float", d.vl*sw)
	parts := make([]string, d.vl)
	for i := range parts {
		parts[i] = fmt.Sprintf("i32 %d", int(phase)+i*sw)
	}
	x := f.t()
	f.emitf("%s = shufflevector %s %s, %s poison, <%d x i32> <%s>", x, V, span, V, d.vl, strings.Join(parts, ", "))
	return x
}
