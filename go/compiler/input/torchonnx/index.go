package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX indexing operators: scans, top-k, gathers and scatters. Scatters
// are gathers from the output's point of view: each output element
// reduces over every update and takes those whose index lands on it (in
// update order, so later duplicates win as ONNX's reference does).

func init() {
	onnxReg(onnxCumSum, "CumSum", "CumProd")
	onnxReg(onnxTopK, "TopK")
	onnxReg(onnxGatherND, "GatherND")
	onnxReg(onnxScatterElements, "ScatterElements", "Scatter")
	onnxReg(onnxScatterND, "ScatterND")
	onnxReg(onnxOneHot, "OneHot")
	onnxReg(onnxEyeLike, "EyeLike")
	onnxReg(onnxDepthToSpace, "DepthToSpace", "SpaceToDepth")
}

// extractAt reads t at the given indices.
func extractAt(bb *ir.Builder, t *ir.Value, ix []*ir.Value) *ir.Value {
	return bb.Create("tensor.extract", append([]*ir.Value{t}, ix...), []ir.Type{tt(t).Elem}).Result(0)
}

func cIdx(bb *ir.Builder, v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }

func andAll(bb *ir.Builder, a, c *ir.Value) *ir.Value {
	if a == nil {
		return c
	}
	return core.BinOp(bb, "arith.andi", a, c)
}

// onnxCumSum: out[i] = sum of x[j] along axis for j <= i (j < i when
// exclusive; from the end when reverse).
func onnxCumSum(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	n := len(rt.Dims)
	excl, rev := o.attrInt("exclusive", 0) != 0, o.attrInt("reverse", 0) != 0
	axv, ok := o.constInts(1)
	if !ok || len(axv) != 1 {
		return o.cumSumDynamic(excl, rev)
	}
	ax, err := o.normAxis(axv[0], n)
	if err != nil {
		return nil, err
	}
	// Loops: the output dims, then j (reduction) along the axis.
	xm := &ir.AffineMap{NumDims: n + 1}
	for i := 0; i < n; i++ {
		if i == ax {
			xm.Results = append(xm.Results, dimExpr(n))
		} else {
			xm.Results = append(xm.Results, dimExpr(i))
		}
	}
	om := linalg.Identity(n + 1)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	g := linalg.BuildGeneric(o.b, []*ir.Value{x}, []*ir.Value{filled(o.b, rt, o.scanInit())}, []*ir.AffineMap{xm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		take := takeCum(bb, core.LoopIndex(bb, n), core.LoopIndex(bb, ax), excl, rev)
		return []*ir.Value{s.sel(take, o.scanStep(s, args[1], args[0]), args[1])}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// scanInit and scanStep are the identity and the combination of CumSum
// (sum) and CumProd (product).
func (o *onnxOp) scanInit() float64 {
	if o.kind == "CumProd" {
		return 1
	}
	return 0
}

func (o *onnxOp) scanStep(s sc, acc, v *ir.Value) *ir.Value {
	if o.kind == "CumProd" {
		return s.mul(acc, v)
	}
	return s.add(acc, v)
}

// takeCum says whether element j along the scan axis counts for
// position i.
func takeCum(bb *ir.Builder, j, i *ir.Value, excl, rev bool) *ir.Value {
	switch {
	case !rev && !excl:
		return core.CmpI(bb, 3, j, i) // sle
	case !rev:
		return core.CmpI(bb, core.PredSLT, j, i)
	case !excl:
		return core.CmpI(bb, core.PredSGE, j, i)
	}
	return core.CmpI(bb, 4, j, i) // sgt
}

// cumSumDynamic is CumSum with an axis known only at run time: the scan
// loop runs over the largest dimension and each element selects its
// indices by comparing the axis with every dimension.
func (o *onnxOp) cumSumDynamic(excl, rev bool) ([]*ir.Value, error) {
	x, axv, rt := o.in(0), o.in(1), o.rts[0]
	n := len(rt.Dims)
	maxDim := int64(1)
	for _, d := range rt.Dims {
		maxDim = max64(maxDim, d)
	}
	win := empty(o.b, ir.Tensor([]int64{maxDim}, rt.Elem))
	wm := &ir.AffineMap{NumDims: n + 1, Results: []ir.AffineExpr{dimExpr(n)}}
	om := linalg.Identity(n + 1)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	g := linalg.BuildGeneric(o.b, []*ir.Value{win}, []*ir.Value{filled(o.b, rt, o.scanInit())}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		ax := extractIndex(bb, axv, 0)
		ax = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, ax, cIdx(bb, 0)), core.BinOp(bb, "arith.addi", ax, cIdx(bb, int64(n))), ax}, []ir.Type{ir.Index}).Result(0)
		j := core.LoopIndex(bb, n)
		validB := bb.Constant(ir.IntAttr(0, ir.I1))
		takeB := validB
		var ix []*ir.Value
		for d := 0; d < n; d++ {
			is := core.CmpI(bb, core.PredEQ, ax, cIdx(bb, int64(d)))
			i := core.LoopIndex(bb, d)
			jc := bb.Create("arith.minsi", []*ir.Value{j, cIdx(bb, rt.Dims[d]-1)}, []ir.Type{ir.Index}).Result(0)
			ix = append(ix, bb.Create("arith.select", []*ir.Value{is, jc, i}, []ir.Type{ir.Index}).Result(0))
			validB = bb.Create("arith.select", []*ir.Value{is, core.CmpI(bb, core.PredSLT, j, cIdx(bb, rt.Dims[d])), validB}, []ir.Type{ir.I1}).Result(0)
			takeB = bb.Create("arith.select", []*ir.Value{is, takeCum(bb, j, i, excl, rev), takeB}, []ir.Type{ir.I1}).Result(0)
		}
		ok := core.BinOp(bb, "arith.andi", validB, takeB)
		v := extractAt(bb, x, ix)
		return []*ir.Value{s.sel(ok, o.scanStep(s, args[1], v), args[1])}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxTopK ranks every element along the axis (the number of elements
// that come before it: larger, or equal with a smaller index; reversed
// for smallest) and picks the elements of rank 0..k-1.
func onnxTopK(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	vt, it := o.rts[0], o.rts[1]
	n := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -1), n)
	if err != nil {
		return nil, err
	}
	largest := o.attrInt("largest", 1) != 0
	uns := o.isUnsigned(x)
	// ranks[p] = #{j : x[p with axis j] before x[p]}
	rankT := ir.Tensor(xt.Dims, ir.I64)
	jm := &ir.AffineMap{NumDims: n + 1}
	for i := 0; i < n; i++ {
		if i == ax {
			jm.Results = append(jm.Results, dimExpr(n))
		} else {
			jm.Results = append(jm.Results, dimExpr(i))
		}
	}
	pm := linalg.Identity(n + 1)
	pm.Results = pm.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	ranks := linalg.BuildGeneric(o.b, []*ir.Value{x, x}, []*ir.Value{filledInt(o.b, rankT, 0)}, []*ir.AffineMap{pm, jm, pm}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, xt.Elem}
		me, other := args[0], args[1]
		better := s.cmp("gt", other, me, uns)
		if !largest {
			better = s.cmp("lt", other, me, uns)
		}
		tie := core.BinOp(bb, "arith.andi", s.cmp("eq", other, me, uns), core.CmpI(bb, core.PredSLT, core.LoopIndex(bb, n), core.LoopIndex(bb, ax)))
		before := core.BinOp(bb, "arith.ori", better, tie)
		one := bb.Create("arith.extui", []*ir.Value{before}, []ir.Type{ir.I64}).Result(0)
		return []*ir.Value{core.BinOp(bb, "arith.addi", args[2], one)}
	}).Result(0)
	// out[p with axis r] = the element whose rank is r.
	km := &ir.AffineMap{NumDims: n + 1}
	for i := 0; i < n; i++ {
		if i == ax {
			km.Results = append(km.Results, dimExpr(n))
		} else {
			km.Results = append(km.Results, dimExpr(i))
		}
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{x, ranks}, []*ir.Value{empty(o.b, vt), filledInt(o.b, it, 0)}, []*ir.AffineMap{km, km, pm, pm}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		r := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, ax)}, []ir.Type{ir.I64}).Result(0)
		hit := core.Cmp(bb, "arith.cmpi", 0, args[1], r)
		j := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, n)}, []ir.Type{ir.I64}).Result(0)
		v := bb.Create("arith.select", []*ir.Value{hit, args[0], args[2]}, []ir.Type{xt.Elem}).Result(0)
		k := bb.Create("arith.select", []*ir.Value{hit, j, args[3]}, []ir.Type{ir.I64}).Result(0)
		return []*ir.Value{v, k}
	})
	return []*ir.Value{g.Result(0), g.Result(1)}, nil
}

// onnxGatherND: out[b…, i…, r…] = data[b…, indices[b…, i…, :]…, r…].
func onnxGatherND(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, rt := o.in(0), o.in(1), o.rts[0]
	xt, it := tt(x), tt(ind)
	bd := int(o.attrInt("batch_dims", 0))
	q := len(it.Dims)
	k := int(it.Dims[q-1])
	n := len(rt.Dims)
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		var iix []*ir.Value
		for d := 0; d < q-1; d++ {
			iix = append(iix, core.LoopIndex(bb, d))
		}
		var dix []*ir.Value
		for d := 0; d < bd; d++ {
			dix = append(dix, core.LoopIndex(bb, d))
		}
		for t := 0; t < k; t++ {
			v := extractAt(bb, ind, append(append([]*ir.Value{}, iix...), cIdx(bb, int64(t))))
			dix = append(dix, normIndex(bb, v, xt.Dims[bd+t]))
		}
		for d := q - 1; d < n; d++ {
			dix = append(dix, core.LoopIndex(bb, d))
		}
		return []*ir.Value{extractAt(bb, x, dix)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// scatterCombine folds an update into the current value.
func (o *onnxOp) scatterCombine(s sc, cur, upd *ir.Value) (*ir.Value, error) {
	uns := o.isUnsigned(o.in(0))
	switch o.attrStr("reduction", "none") {
	case "none":
		return upd, nil
	case "add":
		return s.add(cur, upd), nil
	case "mul":
		return s.mul(cur, upd), nil
	case "max":
		return s.max(cur, upd, uns), nil
	case "min":
		return s.min(cur, upd, uns), nil
	}
	return nil, o.errorf("reduction '%s' is not supported by gree", o.attrStr("reduction", ""))
}

func onnxScatterElements(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, upd, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	xt, it := tt(x), tt(ind)
	n := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", 0), n)
	if err != nil {
		return nil, err
	}
	// Loops: output dims, then j over the indices' axis (reduction).
	win := empty(o.b, ir.Tensor([]int64{it.Dims[ax]}, rt.Elem))
	wm := &ir.AffineMap{NumDims: n + 1, Results: []ir.AffineExpr{dimExpr(n)}}
	om := linalg.Identity(n + 1)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	init := copyGeneric(o.b, x, linalg.Identity(n), rt)
	var cerr error
	g := linalg.BuildGeneric(o.b, []*ir.Value{win}, []*ir.Value{init}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		var ok *ir.Value
		var uix []*ir.Value
		for d := 0; d < n; d++ {
			if d == ax {
				uix = append(uix, core.LoopIndex(bb, n))
				continue
			}
			i := core.LoopIndex(bb, d)
			if it.Dims[d] < xt.Dims[d] {
				ok = andAll(bb, ok, core.CmpI(bb, core.PredSLT, i, cIdx(bb, it.Dims[d])))
				i = bb.Create("arith.minsi", []*ir.Value{i, cIdx(bb, it.Dims[d]-1)}, []ir.Type{ir.Index}).Result(0)
			}
			uix = append(uix, i)
		}
		target := normIndex(bb, extractAt(bb, ind, uix), xt.Dims[ax])
		ok = andAll(bb, ok, core.CmpI(bb, core.PredEQ, target, core.LoopIndex(bb, ax)))
		u := extractAt(bb, upd, uix)
		nv, err := o.scatterCombine(s, args[1], u)
		if err != nil {
			cerr = err
			return args[1:]
		}
		return []*ir.Value{s.sel(ok, nv, args[1])}
	})
	return []*ir.Value{g.Result(0)}, cerr
}

func onnxScatterND(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, upd, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	xt, it := tt(x), tt(ind)
	n := len(xt.Dims)
	q := len(it.Dims)
	k := int(it.Dims[q-1])
	batch := it.Dims[:q-1]
	nl := n + len(batch)
	win := empty(o.b, ir.Tensor(append([]int64{1}, batch...), rt.Elem))
	wm := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{cstExpr(0)}}
	for i := range batch {
		wm.Results = append(wm.Results, dimExpr(n+i))
	}
	om := linalg.Identity(nl)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, nl)
	for i := n; i < nl; i++ {
		its[i] = linalg.Reduction
	}
	init := copyGeneric(o.b, x, linalg.Identity(n), rt)
	var cerr error
	g := linalg.BuildGeneric(o.b, []*ir.Value{win}, []*ir.Value{init}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		var bix []*ir.Value
		for i := range batch {
			bix = append(bix, core.LoopIndex(bb, n+i))
		}
		var ok *ir.Value
		for t := 0; t < k; t++ {
			v := extractAt(bb, ind, append(append([]*ir.Value{}, bix...), cIdx(bb, int64(t))))
			ok = andAll(bb, ok, core.CmpI(bb, core.PredEQ, normIndex(bb, v, xt.Dims[t]), core.LoopIndex(bb, t)))
		}
		uix := append([]*ir.Value{}, bix...)
		for d := k; d < n; d++ {
			uix = append(uix, core.LoopIndex(bb, d))
		}
		nv, err := o.scatterCombine(s, args[1], extractAt(bb, upd, uix))
		if err != nil {
			cerr = err
			return args[1:]
		}
		if ok == nil {
			return []*ir.Value{nv}
		}
		return []*ir.Value{s.sel(ok, nv, args[1])}
	})
	return []*ir.Value{g.Result(0)}, cerr
}

// onnxOneHot: out[…, d, …] = values[1] where indices[…] (wrapped) == d.
func onnxOneHot(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	ind, vals, rt := o.in(0), o.in(2), o.rts[0]
	n := len(rt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -1), n)
	if err != nil {
		return nil, err
	}
	depth := rt.Dims[ax]
	im := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		if i != ax {
			im.Results = append(im.Results, dimExpr(i))
		}
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{ind}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{im, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		v := castScalar(bb, args[0], ir.I64, o.isUnsigned(ind), false)
		i := bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.Index}).Result(0)
		i = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, i, cIdx(bb, 0)), core.BinOp(bb, "arith.addi", i, cIdx(bb, depth)), i}, []ir.Type{ir.Index}).Result(0)
		hit := core.CmpI(bb, core.PredEQ, i, core.LoopIndex(bb, ax))
		on := extractAt(bb, vals, []*ir.Value{cIdx(bb, 1)})
		off := extractAt(bb, vals, []*ir.Value{cIdx(bb, 0)})
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{hit, on, off}, []ir.Type{rt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func onnxEyeLike(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	k := o.attrInt("k", 0)
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(2)}, core.Parallel(2), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		hit := core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.subi", core.LoopIndex(bb, 1), core.LoopIndex(bb, 0)), cIdx(bb, k))
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{hit, scalarConst(bb, 1, rt.Elem), scalarConst(bb, 0, rt.Elem)}, []ir.Type{rt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxDepthToSpace and SpaceToDepth are reshapes with a transpose, done
// as one gather over the static output.
func onnxDepthToSpace(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	if len(xt.Dims) != 4 {
		return nil, o.errorf("needs a 4-D input")
	}
	bs := o.attrInt("blocksize", 1)
	crd := o.attrStr("mode", "DCR") == "CRD"
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return cIdx(bb, v) }
		nn, ch, h, w := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1), core.LoopIndex(bb, 2), core.LoopIndex(bb, 3)
		var ix []*ir.Value
		if o.kind == "DepthToSpace" {
			C := rt.Dims[1]
			bh, bw := core.BinOp(bb, "arith.remsi", h, c(bs)), core.BinOp(bb, "arith.remsi", w, c(bs))
			blk := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", bh, c(bs)), bw)
			var ic *ir.Value
			if crd {
				ic = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", ch, c(bs*bs)), blk)
			} else {
				ic = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", blk, c(C)), ch)
			}
			ix = []*ir.Value{nn, ic, core.BinOp(bb, "arith.divsi", h, c(bs)), core.BinOp(bb, "arith.divsi", w, c(bs))}
		} else {
			C := xt.Dims[1]
			blk := core.BinOp(bb, "arith.divsi", ch, c(C))
			ic := core.BinOp(bb, "arith.remsi", ch, c(C))
			bh, bw := core.BinOp(bb, "arith.divsi", blk, c(bs)), core.BinOp(bb, "arith.remsi", blk, c(bs))
			ix = []*ir.Value{nn, ic, core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", h, c(bs)), bh), core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", w, c(bs)), bw)}
		}
		return []*ir.Value{extractAt(bb, x, ix)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func init() {
	onnxReg(onnxReverseSequence, "ReverseSequence")
	onnxReg(onnxTensorScatter, "TensorScatter")
}

// onnxReverseSequence reverses the first sequence_lens[b] steps along
// time_axis of each batch entry b.
func onnxReverseSequence(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, lens, rt := o.in(0), o.in(1), o.rts[0]
	n := len(rt.Dims)
	ba, err := o.normAxis(o.attrInt("batch_axis", 1), n)
	if err != nil {
		return nil, err
	}
	ta, err := o.normAxis(o.attrInt("time_axis", 0), n)
	if err != nil {
		return nil, err
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{x}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		l := bb.Create("arith.index_cast", []*ir.Value{extractAt(bb, lens, []*ir.Value{core.LoopIndex(bb, ba)})}, []ir.Type{ir.Index}).Result(0)
		t := core.LoopIndex(bb, ta)
		in := core.CmpI(bb, core.PredSLT, t, l)
		src := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.subi", l, cIdx(bb, 1)), t)
		src = bb.Create("arith.minsi", []*ir.Value{bb.Create("arith.maxsi", []*ir.Value{src, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0), cIdx(bb, rt.Dims[ta]-1)}, []ir.Type{ir.Index}).Result(0)
		var ix []*ir.Value
		for d := 0; d < n; d++ {
			if d == ta {
				ix = append(ix, src)
			} else {
				ix = append(ix, core.LoopIndex(bb, d))
			}
		}
		v := extractAt(bb, x, ix)
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{in, v, a[0]}, []ir.Type{rt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxTensorScatter writes update into the cache along axis starting at
// write_indices[b] (wrapping around in circular mode).
func onnxTensorScatter(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	past, upd, widx, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	n := len(rt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -2), n)
	if err != nil {
		return nil, err
	}
	circular := o.attrStr("mode", "linear") == "circular"
	M, S := rt.Dims[ax], tt(upd).Dims[ax]
	g := linalg.BuildGeneric(o.b, []*ir.Value{past}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		w := cIdx(bb, 0)
		if widx != nil {
			w = bb.Create("arith.index_cast", []*ir.Value{extractAt(bb, widx, []*ir.Value{core.LoopIndex(bb, 0)})}, []ir.Type{ir.Index}).Result(0)
		}
		rel := core.BinOp(bb, "arith.subi", core.LoopIndex(bb, ax), w)
		if circular {
			rel = core.BinOp(bb, "arith.remsi", core.BinOp(bb, "arith.addi", rel, cIdx(bb, M)), cIdx(bb, M))
		}
		in := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, rel, cIdx(bb, 0)), core.CmpI(bb, core.PredSLT, rel, cIdx(bb, S)))
		rc := bb.Create("arith.minsi", []*ir.Value{bb.Create("arith.maxsi", []*ir.Value{rel, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0), cIdx(bb, max64(S-1, 0))}, []ir.Type{ir.Index}).Result(0)
		var ix []*ir.Value
		for d := 0; d < n; d++ {
			if d == ax {
				ix = append(ix, rc)
			} else {
				ix = append(ix, core.LoopIndex(bb, d))
			}
		}
		v := extractAt(bb, upd, ix)
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{in, v, a[0]}, []ir.Type{rt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}
