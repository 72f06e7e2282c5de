package codegen

import (
	"slices"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// dwShape is a 2-D convolution generic over NCHW tensors, depthwise:
// out[n,c,y,x] += pad(in)[n, c, y·SH + i·DH − PH, x·SW + j·DW − PW] · w[c,(0,)i,j]
// or dense (ci ≥ 0, a reduction over input channels):
// out[n,c,y,x] += pad(in)[n, ci, y·SH + i·DH − PH, x·SW + j·DW − PW] · w[c,ci,i,j]
// with a zero pad written as a wrapped read and a guard (flow fuses pads
// into convolutions so) or no pad at all.
type dwShape struct {
	n, c, y, x, i, j int   // loop numbers
	ci               int   // the input-channel loop of a dense one, else -1
	wc, wi, wj, wci  int   // the weight's result positions of c, i, j and ci
	H, W             int64 // the input plane
	SH, SW, DH, DW   int64
	PH, PW           int64
}

// dimPositions returns the loop of each result of m when every result is
// a plain dimension.
func dimPositions(m *ir.AffineMap) ([]int, bool) {
	var ds []int
	for _, r := range m.Results {
		d, ok := r.(*ir.AffineDimExpr)
		if !ok {
			return nil, false
		}
		ds = append(ds, d.Pos)
	}
	return ds, true
}

// matchDWConv recognizes a depthwise convolution with static f32 shapes
// and returns it with its loops' sizes.
func matchDWConv(op linalg.Generic) (dwShape, []int64, bool) {
	var s dwShape
	var sizes []int64
	its, maps := op.Iterators(), op.Maps()
	if op.NumInputs() != 2 || len(op.Op.Results) != 1 || (len(its) != 6 && len(its) != 7) {
		return s, nil, false
	}
	var shapes [3][]int64
	for k, v := range op.Op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || t.Elem.String() != "f32" {
			return s, nil, false
		}
		for _, d := range t.Dims {
			if d < 0 {
				return s, nil, false
			}
		}
		shapes[k] = t.Dims
	}
	out, ok := dimPositions(maps[2])
	if !ok || len(out) != 4 {
		return s, nil, false
	}
	s.n, s.c, s.y, s.x = out[0], out[1], out[2], out[3]
	var reds []int
	for k, it := range its {
		if it == linalg.Reduction {
			reds = append(reds, k)
		}
	}
	for _, k := range out {
		if its[k] != linalg.Parallel {
			return s, nil, false
		}
	}
	// The input: (n, c, rows, columns), or (n, ci, rows, columns) with ci
	// a reduction (dense).
	in := maps[0]
	if len(in.Results) != 4 || len(shapes[0]) != 4 {
		return s, nil, false
	}
	s.ci = -1
	if d, ok := in.Results[1].(*ir.AffineDimExpr); !ok {
		return s, nil, false
	} else if d.Pos != s.c {
		s.ci = d.Pos
		if its[d.Pos] != linalg.Reduction {
			return s, nil, false
		}
		reds = slices.DeleteFunc(reds, func(k int) bool { return k == d.Pos })
	}
	if len(reds) != 2 {
		return s, nil, false
	}
	// Loop sizes: the output's dimensions and the weight's window.
	sizes = make([]int64, len(its))
	for r, k := range out {
		sizes[k] = shapes[2][r]
	}
	if d, ok := in.Results[0].(*ir.AffineDimExpr); !ok || d.Pos != s.n {
		return s, nil, false
	}
	s.H, s.W = shapes[0][2], shapes[0][3]
	rowForm, rowMod, ok1 := windowForm(in.Results[2], s.y, reds, s.H, len(its))
	colForm, colMod, ok2 := windowForm(in.Results[3], s.x, reds, s.W, len(its))
	if !ok1 || !ok2 || rowForm.red == colForm.red {
		return s, nil, false
	}
	s.i, s.j = rowForm.red, colForm.red
	s.SH, s.DH, s.SW, s.DW = rowForm.stride, rowForm.dilation, colForm.stride, colForm.dilation
	// The weight: (c, [ci,] i, j) with unit dimensions indexed by 0 anywhere.
	s.wc, s.wi, s.wj, s.wci = -1, -1, -1, -1
	for r, e := range maps[1].Results {
		switch e := e.(type) {
		case *ir.AffineDimExpr:
			switch e.Pos {
			case s.c:
				s.wc = r
			case s.ci:
				s.wci = r
			case s.i:
				s.wi = r
			case s.j:
				s.wj = r
			default:
				return s, nil, false
			}
		case *ir.AffineConstantExpr:
			if e.Value != 0 {
				return s, nil, false
			}
		default:
			return s, nil, false
		}
	}
	if s.wc < 0 || s.wi < 0 || s.wj < 0 || shapes[1][s.wc] != sizes[s.c] || (s.ci >= 0) != (s.wci >= 0) {
		return s, nil, false
	}
	sizes[s.i], sizes[s.j] = shapes[1][s.wi], shapes[1][s.wj]
	if s.ci >= 0 {
		sizes[s.ci] = shapes[0][1]
		if shapes[1][s.wci] != sizes[s.ci] {
			return s, nil, false
		}
	}
	for _, z := range sizes {
		if z < 1 {
			return s, nil, false
		}
	}
	if shapes[0][0] != sizes[s.n] || (s.ci < 0 && shapes[0][1] != sizes[s.c]) {
		return s, nil, false
	}
	// The body: out + select(guard, in, +0) · w, or out + in · w.
	body := op.Body()
	y := body.Terminator()
	if y == nil || len(y.Operands) != 1 {
		return s, nil, false
	}
	add := y.Operands[0].Owner()
	if add == nil || add.Name != "arith.addf" {
		return s, nil, false
	}
	var mul *ir.Operation
	for k, v := range add.Operands {
		if v == body.Args[2] {
			mul = add.Operands[1-k].Owner()
		}
	}
	if mul == nil || mul.Name != "arith.mulf" {
		return s, nil, false
	}
	var x *ir.Value
	for k, v := range mul.Operands {
		if v == body.Args[1] {
			x = mul.Operands[1-k]
		}
	}
	if x == nil {
		return s, nil, false
	}
	var bounds map[int]*[2]int64 // per form (0 rows, 1 columns): lo, hi
	if x != body.Args[0] {
		sel := x.Owner()
		if sel == nil || sel.Name != "arith.select" || sel.Operands[1] != body.Args[0] || !isPositiveZero(sel.Operands[2]) {
			return s, nil, false
		}
		forms := [2]windowLinear{rowForm, colForm}
		var ok bool
		if bounds, ok = guardBounds(sel.Operands[0], forms, len(its)); !ok {
			return s, nil, false
		}
	}
	// Every body op is index arithmetic, the guard, or the three above.
	for _, o := range body.Ops {
		switch o.Name {
		case "linalg.index", "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.cmpi", "arith.andi",
			"arith.select", "arith.mulf", "arith.addf", "linalg.yield":
		default:
			return s, nil, false
		}
	}
	OH, OW := sizes[s.y], sizes[s.x]
	KH, KW := sizes[s.i], sizes[s.j]
	pad := func(f windowLinear, mod bool, b *[2]int64, n, o, k int64) (int64, bool) {
		if !mod {
			// No pad: every read must be inside the plane.
			p := -f.c
			return p, b == nil && -p >= 0 && (o-1)*f.stride+(k-1)*f.dilation-p < n
		}
		// (form + c) mod n is form − lo wherever lo ≤ form < lo + n.
		if b == nil || b[1]-b[0]+1 != n || ((f.c+b[0])%n+n)%n != 0 {
			return 0, false
		}
		return b[0], true
	}
	var okH, okW bool
	s.PH, okH = pad(rowForm, rowMod, bounds[0], s.H, OH, KH)
	s.PW, okW = pad(colForm, colMod, bounds[1], s.W, OW, KW)
	if !okH || !okW || (bounds != nil && len(bounds) != btoi(rowMod)+btoi(colMod)) {
		return s, nil, false
	}
	return s, sizes, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// windowLinear is stride·o + dilation·red + c, one window coordinate of
// output loop o and reduction loop red.
type windowLinear struct {
	o, red              int
	stride, dilation, c int64
}

// windowForm matches e = stride·o + dilation·r + c, or that mod n (a zero
// pad's wrapped read), with r one of reds.
func windowForm(e ir.AffineExpr, o int, reds []int, n int64, nLoops int) (windowLinear, bool, bool) {
	mod := false
	if m, ok := e.(*ir.AffineBinaryExpr); ok && m.Kind == ir.AffineMod {
		nc, ok := m.RHS.(*ir.AffineConstantExpr)
		if !ok || nc.Value != n {
			return windowLinear{}, false, false
		}
		e, mod = m.LHS, true
	}
	coef, c, ok := linearForm(e, nLoops)
	if !ok || coef[o] < 1 {
		return windowLinear{}, false, false
	}
	f := windowLinear{o: o, red: -1, stride: coef[o], c: c}
	for k, v := range coef {
		switch {
		case k == o || v == 0:
		case (k == reds[0] || k == reds[1]) && f.red < 0 && v >= 1:
			f.red, f.dilation = k, v
		default:
			return windowLinear{}, false, false
		}
	}
	return f, mod, f.red >= 0
}

// guardBounds reads a pad's guard, a conjunction of signed comparisons of
// window coordinates (as forms' stride·o + dilation·red) with constants,
// into each form's [lo, hi]; ok is false for anything else.
func guardBounds(cond *ir.Value, forms [2]windowLinear, nLoops int) (map[int]*[2]int64, bool) {
	bounds := map[int]*[2]int64{}
	var walk func(v *ir.Value) bool
	walk = func(v *ir.Value) bool {
		o := v.Owner()
		if o == nil {
			return false
		}
		switch o.Name {
		case "arith.andi":
			return walk(o.Operands[0]) && walk(o.Operands[1])
		case "arith.cmpi":
			p, ok := o.Attr("predicate").(*ir.IntegerAttr)
			if !ok {
				return false
			}
			lc, lk, ok1 := bodyIndexForm(o.Operands[0], nLoops)
			rc, rk, ok2 := bodyIndexForm(o.Operands[1], nLoops)
			if !ok1 || !ok2 {
				return false
			}
			// d = lhs − rhs = coef·loops + k, compared with 0.
			for i := range lc {
				lc[i] -= rc[i]
			}
			k := lk - rk
			for fi, f := range forms {
				sign := int64(0)
				switch {
				case sameForm(lc, f, 1):
					sign = 1
				case sameForm(lc, f, -1):
					sign = -1
				default:
					continue
				}
				// sign·form + k (pred) 0.
				lower := map[int64]bool{5: true, 4: true}[p.Value] // sge, sgt
				upper := map[int64]bool{3: true, 2: true}[p.Value] // sle, slt
				if !lower && !upper {
					return false
				}
				strict := p.Value == 4 || p.Value == 2
				// form ≥ bound (lower, sign +1), form ≤ bound otherwise.
				bound := -k
				if sign < 0 {
					bound = k
					lower, upper = upper, lower
				}
				if strict {
					if (sign > 0) == (p.Value == 4) {
						bound++
					} else {
						bound--
					}
				}
				b := bounds[fi]
				if b == nil {
					b = &[2]int64{-1 << 62, 1 << 62}
					bounds[fi] = b
				}
				if lower {
					b[0] = max(b[0], bound)
				} else {
					b[1] = min(b[1], bound)
				}
				return true
			}
			return false
		}
		return false
	}
	if !walk(cond) {
		return nil, false
	}
	for _, b := range bounds {
		if b[0] == -1<<62 || b[1] == 1<<62 {
			return nil, false
		}
	}
	return bounds, true
}

// sameForm reports whether coef is sign·(stride·o + dilation·red).
func sameForm(coef []int64, f windowLinear, sign int64) bool {
	for k, v := range coef {
		want := int64(0)
		switch k {
		case f.o:
			want = sign * f.stride
		case f.red:
			want = sign * f.dilation
		}
		if v != want {
			return false
		}
	}
	return true
}

// bodyIndexForm returns v, an index value of a generic's body, as a
// linear form of its loops: linalg.index, constants, addi, subi and muli
// by a constant.
func bodyIndexForm(v *ir.Value, n int) ([]int64, int64, bool) {
	o := v.Owner()
	if o == nil {
		return nil, 0, false
	}
	switch o.Name {
	case "linalg.index":
		d, ok := o.Attr("dim").(*ir.IntegerAttr)
		if !ok || d.Value < 0 || int(d.Value) >= n {
			return nil, 0, false
		}
		c := make([]int64, n)
		c[d.Value] = 1
		return c, 0, true
	case "arith.constant":
		a, ok := o.Attr("value").(*ir.IntegerAttr)
		return make([]int64, n), a.Value, ok && a != nil
	case "arith.addi", "arith.subi", "arith.muli":
		lc, lk, ok1 := bodyIndexForm(o.Operands[0], n)
		rc, rk, ok2 := bodyIndexForm(o.Operands[1], n)
		if !ok1 || !ok2 {
			return nil, 0, false
		}
		return combineLinear(map[string]byte{"arith.addi": '+', "arith.subi": '-', "arith.muli": '*'}[o.Name], lc, lk, rc, rk)
	}
	return nil, 0, false
}

// dwTile is what an epilogue needs from a DWConv lowering: the
// workgroup's channels and batch element.
type dwTile struct {
	l      *genericLowering
	s      dwShape
	c0, cN kir.Value
	n      kir.Value
	c      *ir.Value // the tensor the convolution wrote
}

// lowerDWConv maps a depthwise convolution to DWConv tiles: the grid
// covers channel tiles (x) and the batch (y); each workgroup convolves
// its channels' whole planes.
func (g *gen) lowerDWConv(op linalg.Generic, results []*ir.Value) (bool, error) {
	return g.lowerDWConvFused(op, results, nil)
}

// lowerDWConvFused is lowerDWConv with epilogue epi (nil: none) fused into
// the tile op (fusedDWEpilogue says when it can be); results are then
// epi's.
func (g *gen) lowerDWConvFused(op linalg.Generic, results []*ir.Value, epi *linalg.Generic) (bool, error) {
	s, sizes, ok := matchDWConv(op)
	if !ok {
		return false, nil
	}
	// DWConv writes out = Σ: the output must start as +0.
	if fill := flow.FillScalar(op.Op.Operands[2]); fill == nil || !isPositiveZero(fill) {
		return false, nil
	}
	l := &genericLowering{g: g, op: op, maps: op.Maps(), its: op.Iterators(), nIn: 2, results: results, vecDim: -1}
	if err := l.analyze(); err != nil {
		return true, err
	}
	In, Wt, Out := op.Op.Operands[0], op.Op.Operands[1], results[0]
	C, N := sizes[s.c], sizes[s.n]
	OH, OW := sizes[s.y], sizes[s.x]
	// Whole planes per workgroup, about WorkgroupElements outputs, and at
	// least 8 workgroups when there are that many channels.
	ct := max(1, g.st.WorkgroupElements/(OH*OW))
	ct = max(1, min(ct, (C+7)/8))
	if s.ci >= 0 {
		// A dense one shares each input load among blocks of 8 channels
		// (the llvm-cpu target's denseBlockChannels): workgroups of whole
		// blocks, and no input plane re-read by more workgroups than it
		// must be (MobileNetV2's first layer, 32 channels at 112×112, had
		// 16 workgroups of 2 channels, each reading the whole image).
		ct = min(C, (ct+7)/8*8)
	}
	g.k.Grid[0] = kir.GridDim{Static: C, Tile: ct}
	g.k.Grid[1] = kir.GridDim{Static: N, Tile: 1}
	top := g.b
	c0 := top.Bin(kir.Mul, top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0), g.idx(ct))
	cN := top.Bin(kir.MinS, g.idx(ct), top.Bin(kir.Sub, g.idx(C), c0))
	n := top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 1)
	is, ws, os := g.strides[In], g.strides[Wt], g.strides[Out]
	off := func(st []kir.Value, nPos, cPos int) kir.Value {
		o := top.Bin(kir.Mul, c0, st[cPos])
		if nPos >= 0 {
			o = top.Bin(kir.Add, o, top.Bin(kir.Mul, n, st[nPos]))
		}
		return o
	}
	cb := g.bindingOf[Out]
	e := kir.NoDWConvEpilogue
	if epi != nil {
		var err error
		if e, err = g.fusedDWEpilogue(op, *epi, s, c0); err != nil {
			return true, err
		}
	}
	if g.d.WrittenFirst == nil {
		g.d.WrittenFirst = map[int]bool{}
	}
	g.d.WrittenFirst[cb] = true
	// The input planes each output channel sums: its own (depthwise), or
	// the CI planes all channels read (dense).
	inOff, inCS, ci, inSum, wSum := off(is, 0, 1), is[1], g.idx(1), g.idx(0), g.idx(0)
	if s.ci >= 0 {
		inOff, inCS, ci, inSum, wSum = top.Bin(kir.Mul, n, is[0]), g.idx(0), g.idx(sizes[s.ci]), is[1], ws[s.wci]
	}
	top.DWConv(g.bindingOf[In], g.bindingOf[Wt], cb, [kir.DWConvArgs]kir.Value{
		inOff, inCS, is[2],
		off(ws, -1, s.wc), ws[s.wc], ws[s.wi], ws[s.wj],
		off(os, 0, 1), os[1], os[2],
		cN, g.idx(s.H), g.idx(s.W), g.idx(OH), g.idx(OW),
		g.idx(sizes[s.i]), g.idx(sizes[s.j]),
		g.idx(s.SH), g.idx(s.SW), g.idx(s.DH), g.idx(s.DW), g.idx(s.PH), g.idx(s.PW),
		ci, inSum, wSum,
	}, e)
	g.dw = &dwTile{l: l, s: s, c0: c0, cN: cN, n: n, c: Out}
	return true, nil
}

// lowerDWConvEpilogue maps a depthwise convolution root to DWConv tiles
// followed by epilogue epi over each workgroup's channels, like
// lowerContractEpilogue: the convolution writes the region's result of
// the root, or, where flow.EpilogueInPlace holds, epi's result, which epi
// then overwrites in place. It reports false when the root is no
// depthwise convolution or the epilogue cannot sweep its planes.
func (g *gen) lowerDWConvEpilogue(root, epi linalg.Generic, rootResult *ir.Value, results []*ir.Value) (bool, error) {
	c := rootResult
	if c == nil && flow.EpilogueInPlace(root.Op, epi.Op) {
		c = results[0]
	}
	if c == nil {
		return false, nil
	}
	if rootResult == nil && c == results[0] && canFuseDWEpilogue(root, epi) {
		return g.lowerDWConvFused(root, results, &epi)
	}
	ok, err := g.lowerDWConv(root, []*ir.Value{c})
	if !ok || err != nil {
		return ok, err
	}
	return true, g.dwEpilogue(epi, results)
}

// dwEpilogue runs epi over the workgroup's channels after the DWConv:
// each channel's plane as one run of OH·OW points when every tensor epi
// touches holds whole planes contiguously (else row by row), vectors of
// decreasing width and then single points.
func (g *gen) dwEpilogue(epi linalg.Generic, results []*ir.Value) error {
	t := g.dw
	l, s := t.l, t.s
	if err := g.bindEpilogue(l, epi, results); err != nil {
		return err
	}
	e := l.epi
	cb := g.bindingOf[t.c]
	g.k.Bindings[cb].Access = kir.ReadWrite
	OH, OW := l.sizes[s.y].static, l.sizes[s.x].static
	flat := planesContiguous(l.maps[l.nIn], t.c, s, OH, OW)
	for i, in := range epi.Inputs() {
		if i != e.rootArg {
			flat = flat && planesContiguous(e.maps[i], in, s, OH, OW)
		}
	}
	for j, r := range results {
		flat = flat && planesContiguous(e.maps[e.nIn+j], r, s, OH, OW)
	}
	w := max(g.st.VectorWidth, 1)
	l.vecDim, l.wrap = s.x, nil
	ms := append([]*ir.AffineMap{l.maps[l.nIn]}, e.maps...)
	for _, m := range ms {
		for _, r := range m.Results {
			if _, ok := linearCoef(r, s.x); !ok {
				w = 1
			}
		}
	}
	rows, cols := g.idx(OH), g.idx(OW)
	if flat {
		rows, cols = g.idx(1), g.idx(OH*OW)
	}
	ivs := make([]kir.Value, len(l.its))
	for k := range ivs {
		ivs[k] = g.idx(0)
	}
	ivs[s.n] = t.n
	var ferr error
	point := func(b *kir.Builder, y, x kir.Value, w int) {
		ivs[s.y], ivs[s.x] = y, x
		if err := l.epiloguePoint(b, t.c, cb, ivs, w); err != nil {
			ferr = err
		}
	}
	g.b.For(g.idx(0), t.cN, g.idx(1), nil, func(b *kir.Builder, cc kir.Value, _ []kir.Value) []kir.Value {
		ivs[s.c] = b.Bin(kir.Add, t.c0, cc)
		b.For(g.idx(0), rows, g.idx(1), nil, func(b *kir.Builder, y kir.Value, _ []kir.Value) []kir.Value {
			sweepWidths(b, g, cols, w, func(b *kir.Builder, x kir.Value, w int) { point(b, y, x, w) })
			return nil
		})
		return nil
	})
	return ferr
}

// planesContiguous reports whether tensor t, read or written through map
// m over a convolution's loops, holds each (y, x) plane as OH·OW
// consecutive elements (or does not depend on y and x), so that a plane
// can be swept as one run of points with y = 0.
func planesContiguous(m *ir.AffineMap, t *ir.Value, s dwShape, OH, OW int64) bool {
	tt, ok := t.Type.(*ir.RankedTensorType)
	if !ok {
		return true
	}
	ry, rx := -1, -1
	for r, e := range m.Results {
		cy, oky := linearCoef(e, s.y)
		cx, okx := linearCoef(e, s.x)
		if !oky || !okx {
			return false
		}
		if cy == 0 && cx == 0 {
			continue
		}
		d, isDim := e.(*ir.AffineDimExpr)
		switch {
		case isDim && d.Pos == s.y:
			ry = r
		case isDim && d.Pos == s.x:
			rx = r
		default:
			return false
		}
	}
	if ry < 0 && rx < 0 {
		return true
	}
	last := len(m.Results) - 1
	return rx == last && ry == last-1 && tt.Dims[rx] == OW && tt.Dims[ry] == OH
}

// dwEpilogueChain is the chain the DWConv tile op fuses (matchEpiChain):
// root [+ bias(c)] [maximumf lo] [minimumf hi] over the 4-d output, the
// bias indexed by the channel. It returns the bias's input number (−1:
// none) and the bounds' body values (nil: none).
func dwEpilogueChain(root, epi linalg.Generic) (bias int, lo, hi *ir.Value, ok bool) {
	out, ok := dimPositions(root.Maps()[root.NumInputs()])
	if !ok || len(out) != 4 {
		return -1, nil, nil, false
	}
	c, ok := matchEpiChain(root, epi, []int{out[1]}, false)
	return c.bias, c.lo, c.hi, ok
}

// canFuseDWEpilogue reports whether epi, consuming depthwise convolution
// root, is a chain the DWConv tile op fuses.
func canFuseDWEpilogue(root, epi linalg.Generic) bool {
	if _, _, ok := matchDWConv(root); !ok {
		return false
	}
	_, _, _, ok := dwEpilogueChain(root, epi)
	return ok
}

// fusedDWEpilogue binds what epi's fused chain reads and returns it as the
// tile op's epilogue for the channels from c0.
func (g *gen) fusedDWEpilogue(root, epi linalg.Generic, s dwShape, c0 kir.Value) (kir.DWConvEpilogue, error) {
	e := kir.NoDWConvEpilogue
	bias, lo, hi, ok := dwEpilogueChain(root, epi)
	if !ok {
		return e, ir.OpErrorf(epi.Op, "is not a bias and clamp chain the depthwise convolution can fuse")
	}
	top := g.b
	if bias >= 0 {
		t := epi.Inputs()[bias]
		bi, err := g.bind(t, kir.Read)
		if err != nil {
			return e, ir.OpErrorf(epi.Op, "%v", err)
		}
		en, _ := newEpilogue(root, epi, nil)
		var stride kir.Value = -1
		for r, x := range en.maps[bias].Results {
			if _, isDim := x.(*ir.AffineDimExpr); isDim {
				stride = g.strides[t][r]
			}
		}
		e.Bias, e.BiasOff, e.BiasStride = bi, top.Bin(kir.Mul, c0, stride), stride
	}
	bound := func(v *ir.Value) (kir.Value, error) { return g.epilogueBound(epi, v) }
	var err error
	if lo != nil {
		if e.Lo, err = bound(lo); err != nil {
			return e, ir.OpErrorf(epi.Op, "%v", err)
		}
	}
	if hi != nil {
		if e.Hi, err = bound(hi); err != nil {
			return e, ir.OpErrorf(epi.Op, "%v", err)
		}
	}
	return e, nil
}
