package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// groupedConvsAsGEMM rewrites grouped convolutions of a batch of one
// (ResNeXt's and RegNet's 3×3 convolutions: groups of 8 to 64 channels)
// as im2col + a batched matrix product over the groups, the form
// ungrouped convolutions already take: the windows of each group copied
// as columns [G, C·ΠK, ΠO], the weight as [G, F, C·ΠK], their product
// [G, F, ΠO] being the NCHW result. Codegen had no fast path for the
// grouped convolution's direct generic (a loop nest per output element:
// RegNetX-400MF spent 2/3 of its time there).
//
// The generic it matches is the input conversion's grouped convolution
// (x [1, G, C, D…] read at o·s + k·d, w [G, F, C, K…], result
// [1, G, F, O…]; loops 1, g, f, o… then c, k…) with a multiply-add body
// and static shapes; a depthwise convolution (one channel per group) or a
// group with fewer than minGroupTaps products per output stays.
func groupedConvsAsGEMM(fn *ir.Operation) { rewriteGenerics(fn, groupedConvAsGEMM) }

// minGroupTaps: a group's products per output (C·ΠK) below which the
// direct convolution is kept.
const minGroupTaps = 8

// groupConv is a matched grouped convolution: G groups of C input and F
// output channels, kernel K…, output O…, strides and dilations.
type groupConv struct {
	G, C, F          int64
	kernel, out      []int64
	strides, dilates []int64
}

func groupedConvAsGEMM(fn, op *ir.Operation) bool {
	g, ok := linalg.AsGeneric(op)
	if !ok || g.NumInputs() != 2 || len(op.Results) != 1 || !linalg.IsMulAddBody(g) {
		return false
	}
	gc, ok := matchGroupConv(g)
	if !ok || gc.C == 1 || gc.C*product(gc.kernel) < minGroupTaps {
		return false
	}
	x, w, init := op.Operands[0], op.Operands[1], op.Operands[2]
	xt := x.Type.(*ir.RankedTensorType)
	ns := len(gc.kernel)
	K, P := gc.C*product(gc.kernel), product(gc.out)
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	// col[g, c, k…, o…] = x[0, g, c, o·s + k·d]
	cdims := append(append([]int64{gc.G, gc.C}, gc.kernel...), gc.out...)
	nl := len(cdims)
	xm := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{&ir.AffineConstantExpr{Value: 0}, &ir.AffineDimExpr{Pos: 0}, &ir.AffineDimExpr{Pos: 1}}}
	for j := 0; j < ns; j++ {
		o := ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: 2 + ns + j}, &ir.AffineConstantExpr{Value: gc.strides[j]})
		k := ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: 2 + j}, &ir.AffineConstantExpr{Value: gc.dilates[j]})
		xm.Results = append(xm.Results, ir.AffineBinary(ir.AffineAdd, o, k))
	}
	col := reshapeTo(b, copyTo(b, x, xm, &ir.RankedTensorType{Dims: cdims, Elem: xt.Elem}), []int64{gc.G, K, P})
	wk := reshapeTo(b, w, []int64{gc.G, gc.F, K})
	acc := collapsedInit(b, init, []int64{gc.G, gc.F, P})
	// Loops g, f, p (parallel), k (reduction).
	maps := []*ir.AffineMap{linalg.DimMap(4, 0, 1, 3), linalg.DimMap(4, 0, 3, 2), linalg.DimMap(4, 0, 1, 2)}
	mm := linalg.BuildGeneric(b, []*ir.Value{wk, col}, []*ir.Value{acc}, maps,
		[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}, linalg.CloneBody(g.Body()))
	res := reshapeTo(b, mm.Result(0), op.Results[0].Type.(*ir.RankedTensorType).Dims)
	ir.ReplaceAllUsesWith(fn, op.Results[0], res)
	op.Erase()
	return true
}

// matchGroupConv recognizes the grouped convolution's loops and maps.
func matchGroupConv(g linalg.Generic) (groupConv, bool) {
	var gc groupConv
	maps, its := g.Maps(), g.Iterators()
	ops := g.Op.Operands
	var ts [3]*ir.RankedTensorType
	for i := range ts {
		t, ok := ops[i].Type.(*ir.RankedTensorType)
		if !ok || !static(t) {
			return gc, false
		}
		ts[i] = t
	}
	xt, wt, rt := ts[0], ts[1], ts[2]
	ns := len(xt.Dims) - 3
	n := len(its)
	if ns < 1 || len(wt.Dims) != ns+3 || len(rt.Dims) != ns+3 || n != 2*ns+4 || xt.Dims[0] != 1 {
		return gc, false
	}
	O := ns + 3 // the first reduction loop (c)
	for i, it := range its {
		if (it == linalg.Parallel) != (i < O) {
			return gc, false
		}
	}
	// result (n, g, f, o…); weight (g, f, c, k…); input (n, g, c, window…)
	if !isDims(maps[2], 0, n, seq(0, O)...) || !isDims(maps[1], 0, n, append([]int{1, 2, O}, seq(O+1, n)...)...) {
		return gc, false
	}
	xm := maps[0]
	if len(xm.Results) != ns+3 || !isDims(&ir.AffineMap{NumDims: n, Results: xm.Results[:3]}, 0, n, 0, 1, O) {
		return gc, false
	}
	gc.G, gc.C, gc.F = xt.Dims[1], xt.Dims[2], rt.Dims[2]
	if wt.Dims[0] != gc.G || wt.Dims[1] != gc.F || wt.Dims[2] != gc.C || rt.Dims[1] != gc.G {
		return gc, false
	}
	for j := 0; j < ns; j++ {
		coef, c, ok := linearForm(xm.Results[3+j], n)
		if !ok || c != 0 {
			return gc, false
		}
		for d, v := range coef {
			if v != 0 && d != 3+j && d != O+1+j {
				return gc, false
			}
		}
		s, dl := coef[3+j], coef[O+1+j]
		if s <= 0 || dl <= 0 {
			return gc, false
		}
		gc.strides = append(gc.strides, s)
		gc.dilates = append(gc.dilates, dl)
		gc.kernel = append(gc.kernel, wt.Dims[3+j])
		gc.out = append(gc.out, rt.Dims[3+j])
		// Every window stays inside the input (the input conversion pads
		// first).
		if (gc.out[j]-1)*s+(gc.kernel[j]-1)*dl >= xt.Dims[3+j] {
			return gc, false
		}
	}
	return gc, true
}

// isDims reports whether m (over n loops) is exactly the loops dims, in
// order, from result first on.
func isDims(m *ir.AffineMap, first, n int, dims ...int) bool {
	if m.NumDims != n || len(m.Results)-first != len(dims) {
		return false
	}
	for i, d := range dims {
		e, ok := m.Results[first+i].(*ir.AffineDimExpr)
		if !ok || e.Pos != d {
			return false
		}
	}
	return true
}

// linearForm returns e as Σ coef[d]·d + c over n loops, when it is one
// (checked by evaluating it).
func linearForm(e ir.AffineExpr, n int) (coef []int64, c int64, ok bool) {
	at := make([]int64, n)
	c, err := e.Eval(at, nil)
	if err != nil {
		return nil, 0, false
	}
	coef = make([]int64, n)
	for d := range at {
		at[d] = 1
		v, err := e.Eval(at, nil)
		at[d] = 0
		if err != nil {
			return nil, 0, false
		}
		coef[d] = v - c
	}
	// A probe away from the unit points rules out floordiv/mod terms.
	want := c
	for d := range at {
		at[d] = int64(3*d + 5)
		want += coef[d] * at[d]
	}
	got, err := e.Eval(at, nil)
	return coef, c, err == nil && got == want
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func product(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}
