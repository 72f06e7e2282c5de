package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX contractions, convolutions, pooling and batch normalization.

func init() {
	onnxReg(onnxMatMul, "MatMul", "MatMulInteger")
	onnxReg(onnxGemm, "Gemm")
	onnxReg(onnxConvolution, "Conv", "ConvInteger")
	onnxReg(onnxPool, "MaxPool", "AveragePool", "LpPool")
	onnxReg(onnxBatchNorm, "BatchNormalization")
	onnxReg(onnxConvTranspose, "ConvTranspose")
}

// zeroPointed reads element a minus the zero point zp (nil: none) as rt.
func zeroPointed(s sc, a, zp *ir.Value, unsigned bool) *ir.Value {
	v := castScalar(s.b, a, s.t, unsigned, false)
	if zp != nil {
		v = s.sub(v, castScalar(s.b, zp, s.t, unsigned, false))
	}
	return v
}

// onnxMatMul is numpy matmul: batch dimensions broadcast, 1-D operands
// promoted and their dimension dropped. MatMulInteger subtracts the zero
// points (scalar or per row of A / per column of B) and accumulates in i32.
func onnxMatMul(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	a, bv, rt := o.in(0), o.in(1), o.rts[0]
	at, bt := tt(a), tt(bv)
	ra, rb, R := len(at.Dims), len(bt.Dims), len(rt.Dims)
	a1, b1 := ra == 1, rb == 1
	nb := R
	if !a1 {
		nb--
	}
	if !b1 {
		nb--
	}
	n := R + 1
	k := R
	batchMap := func(dims []int64, nbat int) []ir.AffineExpr {
		var es []ir.AffineExpr
		for i := 0; i < nbat; i++ {
			j := nb - nbat + i
			if dims[i] == 1 && rt.Dims[j] != 1 {
				es = append(es, cstExpr(0))
			} else {
				es = append(es, dimExpr(j))
			}
		}
		return es
	}
	am := &ir.AffineMap{NumDims: n}
	if a1 {
		am.Results = []ir.AffineExpr{dimExpr(k)}
	} else {
		am.Results = append(batchMap(at.Dims, ra-2), dimExpr(nb), dimExpr(k))
	}
	bm := &ir.AffineMap{NumDims: n}
	if b1 {
		bm.Results = []ir.AffineExpr{dimExpr(k)}
	} else {
		col := nb
		if !a1 {
			col++
		}
		bm.Results = append(batchMap(bt.Dims, rb-2), dimExpr(k), dimExpr(col))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:R]
	its := make([]linalg.Iterator, n)
	its[k] = linalg.Reduction
	ins := []*ir.Value{a, bv}
	maps := []*ir.AffineMap{am, bm}
	azp, bzp := o.in(2), o.in(3)
	if o.kind == "MatMulInteger" {
		if azp != nil {
			ins = append(ins, azp)
			m := &ir.AffineMap{NumDims: n}
			if d := tt(azp).Dims; len(d) == 1 && d[0] > 1 && !a1 {
				m.Results = []ir.AffineExpr{dimExpr(nb)}
			} else if len(d) == 1 {
				m.Results = []ir.AffineExpr{cstExpr(0)}
			}
			maps = append(maps, m)
		}
		if bzp != nil {
			ins = append(ins, bzp)
			m := &ir.AffineMap{NumDims: n}
			if d := tt(bzp).Dims; len(d) == 1 && d[0] > 1 && !b1 {
				m.Results = []ir.AffineExpr{bm.Results[len(bm.Results)-1]}
			} else if len(d) == 1 {
				m.Results = []ir.AffineExpr{cstExpr(0)}
			}
			maps = append(maps, m)
		}
	}
	maps = append(maps, om)
	ua, ub := o.isUnsigned(a), o.isUnsigned(bv)
	g := linalg.BuildGeneric(o.b, ins, []*ir.Value{filled(o.b, rt, 0)}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		if o.kind == "MatMulInteger" {
			var za, zb *ir.Value
			k := 2
			if azp != nil {
				za = args[k]
				k++
			}
			if bzp != nil {
				zb = args[k]
			}
			x := zeroPointed(s, args[0], za, ua)
			y := zeroPointed(s, args[1], zb, ub)
			return []*ir.Value{s.add(args[len(args)-1], s.mul(x, y))}
		}
		return core.MulAdd(bb, []*ir.Value{args[0], args[1], args[len(args)-1]})
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxGemm is Y = alpha * A' B' + beta * C with optional transposes.
func onnxGemm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	a, bv, c, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	ta, tb := o.attrInt("transA", 0) != 0, o.attrInt("transB", 0) != 0
	alpha, beta := o.attrFloat("alpha", 1), o.attrFloat("beta", 1)
	// loops: i, j, k
	am := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2)}}
	if ta {
		am.Results = []ir.AffineExpr{dimExpr(2), dimExpr(0)}
	}
	bm := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(2), dimExpr(1)}}
	if tb {
		bm.Results = []ir.AffineExpr{dimExpr(1), dimExpr(2)}
	}
	om := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}
	g := linalg.BuildGeneric(o.b, []*ir.Value{a, bv}, []*ir.Value{filled(o.b, rt, 0)}, []*ir.AffineMap{am, bm, om}, its, core.MulAdd)
	y := g.Result(0)
	if alpha == 1 && (c == nil || beta == 0) {
		return []*ir.Value{y}, nil
	}
	ins := []*ir.Value{y}
	if c != nil && beta != 0 {
		ins = append(ins, c)
	}
	y = mapGeneric(o.b, ins, rt, func(bb *ir.Builder, args []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		v := args[0]
		if alpha != 1 {
			v = s.mul(v, s.c(alpha))
		}
		if len(args) > 1 {
			cv := args[1]
			if beta != 1 {
				cv = s.mul(cv, s.c(beta))
			}
			v = s.add(v, cv)
		}
		return v
	})
	return []*ir.Value{y}, nil
}

// windowPads returns the low padding of each spatial dimension from pads
// or auto_pad (SAME_UPPER puts the extra padding at the end).
func (o *onnxOp) windowPads(in, out, kernel, strides, dil []int64) ([]int64, error) {
	ns := len(kernel)
	low := make([]int64, ns)
	switch ap := o.attrStr("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		if pads, ok := o.attrInts("pads"); ok {
			if len(pads) != 2*ns {
				return nil, o.errorf("has %d pads for %d spatial dimensions", len(pads), ns)
			}
			copy(low, pads[:ns])
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		for i := 0; i < ns; i++ {
			total := (out[i]-1)*strides[i] + (kernel[i]-1)*dil[i] + 1 - in[i]
			if total < 0 {
				total = 0
			}
			low[i] = total / 2
			if ap == "SAME_LOWER" {
				low[i] = total - total/2
			}
		}
	default:
		return nil, o.errorf("has an unknown auto_pad '%s'", ap)
	}
	return low, nil
}

// ints1 returns attribute name or n ones.
func (o *onnxOp) ints1(name string, n int) []int64 {
	v, ok := o.attrInts(name)
	if !ok || len(v) != n {
		v = make([]int64, n)
		for i := range v {
			v[i] = 1
		}
	}
	return v
}

// onnxConvolution: X [N, C, D…], W [M, C/group, K…], optional bias [M]. The
// input is read with bounds checks (padding reads zero); groups select the
// input channels (f / (M/group)) * (C/group) + c.
func onnxConvolution(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, w, rt := o.in(0), o.in(1), o.rts[0]
	xt, wt := tt(x), tt(w)
	ns := len(xt.Dims) - 2
	if ns < 1 || len(wt.Dims) != ns+2 {
		return nil, o.errorf("needs inputs of rank >= 3 with matching weights")
	}
	kernel := wt.Dims[2:]
	strides, dil := o.ints1("strides", ns), o.ints1("dilations", ns)
	low, err := o.windowPads(xt.Dims[2:], rt.Dims[2:], kernel, strides, dil)
	if err != nil {
		return nil, err
	}
	group := o.attrInt("group", 1)
	M, Cg := rt.Dims[1], wt.Dims[1]
	if group < 1 || M%group != 0 || Cg*group != xt.Dims[1] {
		return nil, o.errorf("has channel counts that do not match group %d", group)
	}
	Mg := M / group
	// Loops: n, f, o_1..o_ns (parallel), c, k_1..k_ns (reduction).
	O := ns + 2
	n := O + 1 + ns
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	wm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1), dimExpr(O)}}
	for j := 0; j < ns; j++ {
		wm.Results = append(wm.Results, dimExpr(O+1+j))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	elem := rt.Elem
	var xzp, wzp *ir.Value
	if o.kind == "ConvInteger" {
		xzp, wzp = o.in(2), o.in(3)
	}
	ux, uw := o.isUnsigned(x), o.isUnsigned(w)
	needCheck := false
	for j := 0; j < ns; j++ {
		last := (rt.Dims[2+j]-1)*strides[j] + (kernel[j]-1)*dil[j] - low[j]
		if low[j] > 0 || last >= xt.Dims[2+j] {
			needCheck = true
		}
	}
	bias := o.in(2)
	if o.kind != "Conv" {
		bias = nil
	}
	if xzp == nil && wzp == nil && group == 1 && ir.IsFloat(elem) && !smallDense(xt, wt) {
		return []*ir.Value{convGEMM(o.b, x, w, bias, rt, strides, dil, low)}, nil
	}
	if xzp == nil && wzp == nil && ir.IsFloat(elem) && groupedGEMM(xt, wt, group) {
		return []*ir.Value{convGroupedNCHW(o.b, x, w, bias, rt, strides, dil, low, group)}, nil
	}
	if xzp == nil && wzp == nil {
		// The bias is added after the sum by an element-wise consumer,
		// which runs as the reduction's epilogue (with what follows, such
		// as a Clip) instead of a pass writing it as the initial value.
		r := convAffine(o.b, x, w, filled(o.b, rt, 0), rt, strides, dil, low, group, needCheck)
		if bias != nil {
			bm := &ir.AffineMap{NumDims: O, Results: []ir.AffineExpr{dimExpr(1)}}
			r = linalg.BuildGeneric(o.b, []*ir.Value{r, bias}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(O), bm, linalg.Identity(O)}, core.Parallel(O), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
				return []*ir.Value{sc{bb, elem}.add(a[0], a[1])}
			}).Result(0)
		}
		return []*ir.Value{r}, nil
	}
	var init *ir.Value
	if bias != nil {
		init = copyGeneric(o.b, bias, &ir.AffineMap{NumDims: O, Results: []ir.AffineExpr{dimExpr(1)}}, rt)
	} else {
		init = filled(o.b, rt, 0)
	}
	ins := []*ir.Value{w}
	maps := []*ir.AffineMap{wm}
	if xzp != nil {
		ins, maps = append(ins, xzp), append(maps, &ir.AffineMap{NumDims: n})
	}
	if wzp != nil {
		m := &ir.AffineMap{NumDims: n}
		if d := tt(wzp).Dims; len(d) == 1 && d[0] > 1 {
			m.Results = []ir.AffineExpr{dimExpr(1)}
		} else if len(d) == 1 {
			m.Results = []ir.AffineExpr{cstExpr(0)}
		}
		ins, maps = append(ins, wzp), append(maps, m)
	}
	maps = append(maps, om)
	g := linalg.BuildGeneric(o.b, ins, []*ir.Value{init}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		ix := []*ir.Value{core.LoopIndex(bb, 0)}
		ch := core.LoopIndex(bb, O)
		if group > 1 {
			grp := core.BinOp(bb, "arith.divui", core.LoopIndex(bb, 1), c(Mg))
			ch = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", grp, c(Cg)), ch)
		}
		ix = append(ix, ch)
		var inside *ir.Value
		for j := 0; j < ns; j++ {
			pos := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, 2+j), c(strides[j])), core.BinOp(bb, "arith.muli", core.LoopIndex(bb, O+1+j), c(dil[j])))
			pos = core.BinOp(bb, "arith.subi", pos, c(low[j]))
			size := xt.Dims[2+j]
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, pos, c(0)), core.CmpI(bb, core.PredSLT, pos, c(size)))
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			cl := bb.Create("arith.maxsi", []*ir.Value{pos, c(0)}, []ir.Type{ir.Index}).Result(0)
			ix = append(ix, bb.Create("arith.minsi", []*ir.Value{cl, c(size - 1)}, []ir.Type{ir.Index}).Result(0))
		}
		xv := bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0)
		k := 1
		var zx, zw *ir.Value
		if xzp != nil {
			zx = args[k]
			k++
		}
		if wzp != nil {
			zw = args[k]
		}
		xe := zeroPointed(s, xv, zx, ux)
		we := zeroPointed(s, args[0], zw, uw)
		xe = s.sel(inside, xe, s.c(0))
		return []*ir.Value{s.add(args[len(args)-1], s.mul(xe, we))}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxPool: MaxPool, AveragePool (count_include_pad) and LpPool over the
// spatial dimensions of X [N, C, D…]. The window reads are bounds-checked;
// the average divides by a per-position count computed at compile time.
func onnxPool(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	withIndices := len(o.rts) > 1 && o.rts[1] != nil
	if withIndices && o.kind != "MaxPool" {
		return nil, o.errorf("has a second result only MaxPool defines")
	}
	colMajor := o.attrInt("storage_order", 0) != 0
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	ns := len(xt.Dims) - 2
	kernel, ok := o.attrInts("kernel_shape")
	if !ok || len(kernel) != ns {
		return nil, o.errorf("needs kernel_shape with %d entries", ns)
	}
	strides, dil := o.ints1("strides", ns), o.ints1("dilations", ns)
	low, err := o.windowPads(xt.Dims[2:], rt.Dims[2:], kernel, strides, dil)
	if err != nil {
		return nil, err
	}
	var highEdge []int64 // end of the padded region per spatial dim
	pads, _ := o.attrInts("pads")
	for j := 0; j < ns; j++ {
		hi := int64(0)
		if len(pads) == 2*ns {
			hi = pads[ns+j]
		} else if ap := o.attrStr("auto_pad", "NOTSET"); ap == "SAME_UPPER" || ap == "SAME_LOWER" {
			total := (rt.Dims[2+j]-1)*strides[j] + (kernel[j]-1)*dil[j] + 1 - xt.Dims[2+j]
			if total > 0 {
				hi = total - low[j]
			}
		}
		highEdge = append(highEdge, xt.Dims[2+j]+hi)
	}
	elem := rt.Elem
	O := ns + 2
	n := O + ns
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	window := empty(o.b, ir.Tensor(kernel, elem))
	wm := &ir.AffineMap{NumDims: n}
	for j := 0; j < ns; j++ {
		wm.Results = append(wm.Results, dimExpr(O+j))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	p := float64(o.attrInt("p", 2))
	// The input is padded with the reduction's neutral value (so every
	// window reads in bounds through an affine map).
	init := 0.0
	if o.kind == "MaxPool" && !o.isUnsigned(x) {
		init = math.Inf(-1)
	}
	pin := padWindows(o.b, x, kernel, rt, strides, dil, low, init)
	xm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}
	for j := 0; j < ns; j++ {
		xm.Results = append(xm.Results, addExpr(mulExpr(dimExpr(2+j), strides[j]), mulExpr(dimExpr(O+j), dil[j])))
	}
	if withIndices {
		// Values and the flat index (row-major, or column-major spatial
		// dimensions) of the first maximum, in the unpadded input.
		idxT := o.rts[1]
		g := linalg.BuildGeneric(o.b, []*ir.Value{pin, window}, []*ir.Value{filled(o.b, rt, init), filledInt(o.b, idxT, 0)}, []*ir.AffineMap{xm, wm, om, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			s := sc{bb, elem}
			v, acc := args[0], args[2]
			better := s.cmp("gt", v, acc, o.isUnsigned(x))
			flat := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, 0), cIdx(bb, xt.Dims[1])), core.LoopIndex(bb, 1))
			for q := 0; q < ns; q++ {
				j := q
				if colMajor { // storage_order 1: the spatial dimensions column-major
					j = ns - 1 - q
				}
				pos := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, 2+j), cIdx(bb, strides[j])), core.BinOp(bb, "arith.muli", core.LoopIndex(bb, O+j), cIdx(bb, dil[j])))
				pos = core.BinOp(bb, "arith.subi", pos, cIdx(bb, low[j]))
				flat = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", flat, cIdx(bb, xt.Dims[2+j])), pos)
			}
			fi := bb.Create("arith.index_cast", []*ir.Value{flat}, []ir.Type{idxT.Elem}).Result(0)
			return []*ir.Value{s.sel(better, v, acc), bb.Create("arith.select", []*ir.Value{better, fi, args[3]}, []ir.Type{idxT.Elem}).Result(0)}
		})
		return []*ir.Value{g.Result(0), g.Result(1)}, nil
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{pin, window}, []*ir.Value{filled(o.b, rt, init)}, []*ir.AffineMap{xm, wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		v := args[0]
		acc := args[len(args)-1]
		switch o.kind {
		case "MaxPool":
			return []*ir.Value{s.max(acc, v, o.isUnsigned(x))}
		case "AveragePool":
			return []*ir.Value{s.add(acc, v)}
		}
		a := s.op("math.absf", v)
		switch p {
		case 2:
			return []*ir.Value{s.add(acc, s.mul(a, a))}
		case 1:
			return []*ir.Value{s.add(acc, a)}
		}
		return []*ir.Value{s.add(acc, s.op("math.powf", a, s.c(p)))}
	})
	y := g.Result(0)
	switch o.kind {
	case "AveragePool":
		// Divisors per output position: the window positions inside the
		// input (count_include_pad=0) or inside the padded input.
		includePad := o.attrInt("count_include_pad", 0) != 0
		sp := rt.Dims[2:]
		total, _ := ir.NumElements(sp)
		counts := make([]float64, total)
		pos := make([]int64, ns)
		for e := int64(0); e < total; e++ {
			r := e
			for j := ns - 1; j >= 0; j-- {
				pos[j] = r % sp[j]
				r /= sp[j]
			}
			cnt := int64(1)
			for j := 0; j < ns; j++ {
				k := int64(0)
				for q := int64(0); q < kernel[j]; q++ {
					at := pos[j]*strides[j] + q*dil[j] - low[j]
					if includePad {
						if at >= -low[j] && at < highEdge[j] {
							k++
						}
					} else if at >= 0 && at < xt.Dims[2+j] {
						k++
					}
				}
				cnt *= k
			}
			counts[e] = float64(max64(cnt, 1))
		}
		cnt := denseOf(o.b, ir.Tensor(sp, elem), counts, nil)
		cm := &ir.AffineMap{NumDims: O}
		for j := 0; j < ns; j++ {
			cm.Results = append(cm.Results, dimExpr(2+j))
		}
		y = mapGenericMaps(o.b, []*ir.Value{y, cnt}, []*ir.AffineMap{linalg.Identity(O), cm}, rt, func(s sc, a []*ir.Value) *ir.Value {
			return s.op("arith.divf", a[0], a[1])
		})
	case "LpPool":
		if p != 1 {
			y = mapGeneric(o.b, []*ir.Value{y}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
				s := sc{bb, elem}
				if p == 2 {
					return s.op("math.sqrt", a[0])
				}
				return s.op("math.powf", a[0], s.c(1/p))
			})
		}
	}
	return []*ir.Value{y}, nil
}

// onnxBatchNorm in inference mode: (x - mean) / sqrt(var + eps) * scale + B
// per channel (dimension 1).
func onnxBatchNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	if o.attrInt("training_mode", 0) != 0 {
		return o.batchNormTraining()
	}
	x, rt := o.in(0), o.rts[0]
	n := len(rt.Dims)
	cm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1)}}
	if n < 2 {
		cm.Results = nil
	}
	eps := o.attrFloat("epsilon", 1e-5)
	y := mapGenericMaps(o.b, []*ir.Value{x, o.in(1), o.in(2), o.in(3), o.in(4)}, []*ir.AffineMap{linalg.Identity(n), cm, cm, cm, cm}, rt, func(s sc, a []*ir.Value) *ir.Value {
		cv := func(v *ir.Value) *ir.Value { return castScalar(s.b, v, s.t, false, false) }
		inv := s.op("math.rsqrt", s.add(cv(a[4]), s.c(eps)))
		return s.add(s.mul(s.mul(s.sub(a[0], cv(a[3])), inv), cv(a[1])), cv(a[2]))
	})
	return []*ir.Value{y}, nil
}

// onnxConvTranspose: X [N, C, D…], W [C, M/group, K…], optional bias.
// Each output position gathers the inputs i with o = i*s + k*d - pad.
func onnxConvTranspose(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, w, rt := o.in(0), o.in(1), o.rts[0]
	xt, wt := tt(x), tt(w)
	ns := len(xt.Dims) - 2
	if ns < 1 || len(wt.Dims) != ns+2 {
		return nil, o.errorf("needs inputs of rank >= 3 with matching weights")
	}
	kernel := wt.Dims[2:]
	strides, dil := o.ints1("strides", ns), o.ints1("dilations", ns)
	group := o.attrInt("group", 1)
	C, M := xt.Dims[1], rt.Dims[1]
	if group < 1 || C%group != 0 || wt.Dims[0] != C || wt.Dims[1]*group != M {
		return nil, o.errorf("has channel counts that do not match group %d", group)
	}
	Cg, Mg := C/group, M/group
	low := make([]int64, ns)
	pads, hasPads := o.attrInts("pads")
	ap := o.attrStr("auto_pad", "NOTSET")
	outPad, _ := o.attrInts("output_padding")
	for j := 0; j < ns; j++ {
		if hasPads && len(pads) == 2*ns && ap == "NOTSET" {
			low[j] = pads[j]
			continue
		}
		if ap == "VALID" || ap == "NOTSET" && !hasPads && o.attr("output_shape") == nil {
			continue
		}
		op := int64(0)
		if j < len(outPad) {
			op = outPad[j]
		}
		total := strides[j]*(xt.Dims[2+j]-1) + op + (kernel[j]-1)*dil[j] + 1 - rt.Dims[2+j]
		if total < 0 {
			total = 0 // the extra outputs come at the end
		}
		if ap == "SAME_UPPER" {
			low[j] = total / 2
		} else {
			low[j] = total - total/2
		}
	}
	O := ns + 2
	n := O + 1 + ns
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	window := empty(o.b, ir.Tensor(append([]int64{Cg}, kernel...), rt.Elem))
	wm := &ir.AffineMap{NumDims: n}
	for j := 0; j <= ns; j++ {
		wm.Results = append(wm.Results, dimExpr(O+j))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	var init *ir.Value
	if b := o.in(2); b != nil {
		init = copyGeneric(o.b, b, &ir.AffineMap{NumDims: O, Results: []ir.AffineExpr{dimExpr(1)}}, rt)
	} else {
		init = filled(o.b, rt, 0)
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{window}, []*ir.Value{init}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		m := core.LoopIndex(bb, 1)
		grp := core.BinOp(bb, "arith.divui", m, c(Mg))
		ch := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", grp, c(Cg)), core.LoopIndex(bb, O))
		xix := []*ir.Value{core.LoopIndex(bb, 0), ch}
		wix := []*ir.Value{ch, core.BinOp(bb, "arith.remui", m, c(Mg))}
		var inside *ir.Value
		for j := 0; j < ns; j++ {
			k := core.LoopIndex(bb, O+1+j)
			num := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", core.LoopIndex(bb, 2+j), c(low[j])), core.BinOp(bb, "arith.muli", k, c(dil[j])))
			i := core.BinOp(bb, "arith.divsi", num, c(strides[j]))
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, num, c(0)), core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remsi", num, c(strides[j])), c(0)))
			ok = core.BinOp(bb, "arith.andi", ok, core.CmpI(bb, core.PredSLT, i, c(xt.Dims[2+j])))
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			cl := bb.Create("arith.maxsi", []*ir.Value{i, c(0)}, []ir.Type{ir.Index}).Result(0)
			xix = append(xix, bb.Create("arith.minsi", []*ir.Value{cl, c(xt.Dims[2+j] - 1)}, []ir.Type{ir.Index}).Result(0))
			wix = append(wix, k)
		}
		xv := bb.Create("tensor.extract", append([]*ir.Value{x}, xix...), []ir.Type{xt.Elem}).Result(0)
		wv := bb.Create("tensor.extract", append([]*ir.Value{w}, wix...), []ir.Type{wt.Elem}).Result(0)
		p := s.mul(castScalar(bb, xv, rt.Elem, false, false), castScalar(bb, wv, rt.Elem, false, false))
		return []*ir.Value{s.sel(inside, s.add(args[len(args)-1], p), args[len(args)-1])}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// smallDense reports a 2-D windowed convolution with few input channels
// and taps (C·KH·KW ≤ 32, KH·KW > 1, a network's first layer on an RGB image): it stays a
// direct convolution, which codegen maps to a tile op sharing each input
// load among output channels, instead of im2col + GEMM, whose copied
// windows are larger than the input.
func smallDense(xt, wt *ir.RankedTensorType) bool {
	if len(xt.Dims) != 4 || len(wt.Dims) != 4 || wt.Dims[2]*wt.Dims[3] == 1 {
		return false // 1×1 convolutions are matrix products as they are
	}
	return wt.Dims[1]*wt.Dims[2]*wt.Dims[3] <= 32
}

// convAffine is a convolution whose input reads are affine: the input is
// zero-padded first when the windows reach outside it, and groups become a
// dimension of their own ([N, G, C/G, D…] input, [G, M/G, C/G, K…]
// weights, [N, G, M/G, O…] result), so the generic has the shape of
// linalg's named convolutions and gets their fast paths.
func convAffine(b *ir.Builder, x, w, init *ir.Value, rt *ir.RankedTensorType, strides, dil, low []int64, group int64, pad bool) *ir.Value {
	xt, wt := tt(x), tt(w)
	ns := len(xt.Dims) - 2
	if pad {
		x = padForWindows(b, x, wt.Dims[2:], rt, strides, dil, low)
		xt = tt(x)
		low = make([]int64, ns)
	}
	G := group
	C, M := xt.Dims[1], rt.Dims[1]
	if G == 1 || (G == C && M == C) {
		return convNCHW(b, x, w, init, strides, dil, low, ns, G == 1)
	}
	gx := reshape(b, x, ir.Tensor(append([]int64{xt.Dims[0], G, C / G}, xt.Dims[2:]...), xt.Elem))
	gw := reshape(b, w, ir.Tensor(append([]int64{G, M / G, wt.Dims[1]}, wt.Dims[2:]...), wt.Elem))
	gt := ir.Tensor(append([]int64{rt.Dims[0], G, M / G}, rt.Dims[2:]...), rt.Elem)
	ginit := reshape(b, init, gt)
	// Loops: n, g, f, o… (parallel), c, k… (reduction).
	O := ns + 3
	n := O + 1 + ns
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	xm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(O)}}
	wm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1), dimExpr(2), dimExpr(O)}}
	for j := 0; j < ns; j++ {
		xm.Results = append(xm.Results, addExpr(mulExpr(dimExpr(3+j), strides[j]), addExpr(mulExpr(dimExpr(O+1+j), dil[j]), cstExpr(-low[j]))))
		wm.Results = append(wm.Results, dimExpr(O+1+j))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	g := linalg.BuildGeneric(b, []*ir.Value{gx, gw}, []*ir.Value{ginit}, []*ir.AffineMap{xm, wm, om}, its, core.MulAdd)
	return reshape(b, g.Result(0), rt)
}

// convNCHW is a dense (every output channel sums the input channels) or
// depthwise convolution as one generic on the NCHW operands directly:
// loops n, f, o… (parallel), then c (dense only) and k… (reduction).
func convNCHW(b *ir.Builder, x, w, init *ir.Value, strides, dil, low []int64, ns int, dense bool) *ir.Value {
	k0 := 2 + ns // the first reduction loop
	xc, wc := dimExpr(1), ir.AffineExpr(cstExpr(0))
	if dense {
		xc, wc = dimExpr(k0), dimExpr(k0)
		k0++
	}
	n := k0 + ns
	its := make([]linalg.Iterator, n)
	for i := 2 + ns; i < n; i++ {
		its[i] = linalg.Reduction
	}
	xm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(0), xc}}
	wm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1), wc}}
	for j := 0; j < ns; j++ {
		xm.Results = append(xm.Results, addExpr(mulExpr(dimExpr(2+j), strides[j]), addExpr(mulExpr(dimExpr(k0+j), dil[j]), cstExpr(-low[j]))))
		wm.Results = append(wm.Results, dimExpr(k0+j))
	}
	om := linalg.Identity(n)
	om.Results = om.Results[:2+ns]
	return linalg.BuildGeneric(b, []*ir.Value{x, w}, []*ir.Value{init}, []*ir.AffineMap{xm, wm, om}, its, core.MulAdd).Result(0)
}

// padForWindows zero-pads x [N, C, D…] so that every window of the
// result rt reads inside it (low padding first, then whatever the last
// window needs).
func padForWindows(b *ir.Builder, x *ir.Value, kernel []int64, rt *ir.RankedTensorType, strides, dil, low []int64) *ir.Value {
	return padWindows(b, x, kernel, rt, strides, dil, low, 0)
}

// padWindows is padForWindows with padding value v.
func padWindows(b *ir.Builder, x *ir.Value, kernel []int64, rt *ir.RankedTensorType, strides, dil, low []int64, v float64) *ir.Value {
	xt := tt(x)
	ns := len(kernel)
	lo := make([]int64, len(xt.Dims))
	hi := make([]int64, len(xt.Dims))
	any := false
	for j := 0; j < ns; j++ {
		last := (rt.Dims[2+j]-1)*strides[j] + (kernel[j]-1)*dil[j]
		lo[2+j] = low[j]
		hi[2+j] = max64(0, last+1-low[j]-xt.Dims[2+j])
		any = any || lo[2+j] > 0 || hi[2+j] > 0
	}
	if !any {
		return x
	}
	return padWithValue(b, x, lo, hi, v)
}

// padWithValue pads x with v: a generic over the padded shape reads x
// through an affine map that wraps around ((i - lo) mod size, always in
// bounds) and keeps the element only inside, so no element is read
// through tensor.extract.
func padWithValue(b *ir.Builder, x *ir.Value, lo, hi []int64, v float64) *ir.Value {
	xt := tt(x)
	n := len(xt.Dims)
	dims := make([]int64, n)
	m := &ir.AffineMap{NumDims: n}
	for i, d := range xt.Dims {
		dims[i] = d + lo[i] + hi[i]
		e := dimExpr(i)
		if lo[i] != 0 || hi[i] != 0 {
			e = ir.AffineBinary(ir.AffineMod, addExpr(e, cstExpr(d-lo[i]%d)), cstExpr(d))
		}
		m.Results = append(m.Results, e)
	}
	rt := ir.Tensor(dims, xt.Elem)
	g := linalg.BuildGeneric(b, []*ir.Value{x}, []*ir.Value{empty(b, rt)}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		var ok *ir.Value
		for i, d := range xt.Dims {
			if lo[i] == 0 && hi[i] == 0 {
				continue
			}
			j := core.LoopIndex(bb, i)
			in := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, j, cIdx(bb, lo[i])), core.CmpI(bb, core.PredSLT, j, cIdx(bb, lo[i]+d)))
			ok = andAll(bb, ok, in)
		}
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{ok, a[0], scalarConst(bb, v, xt.Elem)}, []ir.Type{xt.Elem}).Result(0)}
	})
	return g.Result(0)
}

// convGEMM is a float convolution without groups as im2col + GEMM (the
// windows as rows [N·ΠO, C·ΠK], the weight [M, C·ΠK]), so codegen runs
// it on its matrix-multiply kernels; the [N·ΠO, M] product (bias added in
// the accumulator's initial value) is transposed back to N, M, O….
func convGEMM(b *ir.Builder, x, w, bias *ir.Value, rt *ir.RankedTensorType, strides, dil, low []int64) *ir.Value {
	wt := tt(w)
	kernel := wt.Dims[2:]
	ns := len(kernel)
	if winograd(tt(x), w, rt, strides, dil) {
		if r := convWinograd(b, x, w, bias, rt, low); r != nil {
			return r
		}
	}
	pin := padForWindows(b, x, kernel, rt, strides, dil, low)
	pt := tt(pin)
	if pt.Dims[0] == 1 {
		return convGEMMNCHW(b, pin, w, bias, rt, strides, dil)
	}
	N, C, M := pt.Dims[0], pt.Dims[1], rt.Dims[1]
	outs := rt.Dims[2:]
	// col[n, o…, c, k…] = pin[n, c, o·s + k·d]
	dims := append(append(append([]int64{N}, outs...), C), kernel...)
	nl := len(dims)
	im := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1 + ns)}}
	for j := 0; j < ns; j++ {
		im.Results = append(im.Results, addExpr(mulExpr(dimExpr(1+j), strides[j]), mulExpr(dimExpr(2+ns+j), dil[j])))
	}
	col := copyGeneric(b, pin, im, ir.Tensor(dims, pt.Elem))
	P, K := int64(1), C
	for _, o := range outs {
		P *= o
	}
	for _, k := range kernel {
		K *= k
	}
	col = reshape(b, col, ir.Tensor([]int64{N * P, K}, pt.Elem))
	wm := reshape(b, w, ir.Tensor([]int64{M, K}, wt.Elem))
	prod := core.GemmABt(b, col, wm, bias, rt.Elem, 0, 0) // [N·P, M]
	prod = reshape(b, prod, ir.Tensor([]int64{N, P, M}, rt.Elem))
	tr := copyGeneric(b, prod, &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(2), dimExpr(1)}}, ir.Tensor([]int64{N, M, P}, rt.Elem))
	return reshape(b, tr, rt)
}

// convGEMMNCHW is convGEMM for a batch of one, in the layout of the
// result: the weight [M, C·ΠK] times the windows as columns [C·ΠK, ΠO]
// gives [M, ΠO], which is the NCHW result without a transpose. A 1×1
// convolution with unit strides reads the input itself as the columns
// (no copy). The bias is added by an element-wise consumer of the
// product, which dispatch formation runs as the contraction's epilogue.
func convGEMMNCHW(b *ir.Builder, pin, w, bias *ir.Value, rt *ir.RankedTensorType, strides, dil []int64) *ir.Value {
	wt, pt := tt(w), tt(pin)
	kernel := wt.Dims[2:]
	ns := len(kernel)
	C, M := pt.Dims[1], rt.Dims[1]
	outs := rt.Dims[2:]
	P, K := int64(1), C
	for _, o := range outs {
		P *= o
	}
	for _, k := range kernel {
		K *= k
	}
	if tapped(pt, wt, rt, strides, dil) {
		return convTapped(b, pin, w, bias, rt)
	}
	direct := true
	for j := 0; j < ns; j++ {
		direct = direct && kernel[j] == 1 && strides[j] == 1 && pt.Dims[2+j] == outs[j]
	}
	var col *ir.Value
	if direct {
		col = reshape(b, pin, ir.Tensor([]int64{K, P}, pt.Elem))
	} else {
		// col[c, k…, o…] = pin[0, c, o·s + k·d]
		dims := append(append([]int64{C}, kernel...), outs...)
		nl := len(dims)
		im := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{cstExpr(0), dimExpr(0)}}
		for j := 0; j < ns; j++ {
			im.Results = append(im.Results, addExpr(mulExpr(dimExpr(1+ns+j), strides[j]), mulExpr(dimExpr(1+j), dil[j])))
		}
		col = reshape(b, copyGeneric(b, pin, im, ir.Tensor(dims, pt.Elem)), ir.Tensor([]int64{K, P}, pt.Elem))
	}
	prod := product(b, reshape(b, w, ir.Tensor([]int64{M, K}, wt.Elem)), col, false)
	return reshape(b, addRowBias(b, prod, bias), rt)
}

// product is the matrix product a·x (aᵀ·x when transposed) from a zero
// fill, batched over the leading axis when both are rank 3: a [(B,) M, K]
// (or [(B,) K, M]), x [(B,) K, N].
func product(b *ir.Builder, a, x *ir.Value, transposed bool) *ir.Value {
	at, xt := tt(a), tt(x)
	r := len(at.Dims)
	batch := r == 3
	dims := []int64{at.Dims[r-2], xt.Dims[r-1]}
	if transposed {
		dims[0] = at.Dims[r-1]
	}
	// Loops (b,) m, n, k.
	n := 3
	lead := []ir.AffineExpr{}
	if batch {
		dims = append([]int64{at.Dims[0]}, dims...)
		n = 4
		lead = []ir.AffineExpr{dimExpr(0)}
	}
	o := n - 3
	m := func(es ...ir.AffineExpr) *ir.AffineMap {
		return &ir.AffineMap{NumDims: n, Results: append(append([]ir.AffineExpr{}, lead...), es...)}
	}
	am := m(dimExpr(o), dimExpr(o+2))
	if transposed {
		am = m(dimExpr(o+2), dimExpr(o))
	}
	maps := []*ir.AffineMap{am, m(dimExpr(o+2), dimExpr(o+1)), m(dimExpr(o), dimExpr(o+1))}
	its := core.Parallel(n)
	its[n-1] = linalg.Reduction
	return linalg.BuildGeneric(b, []*ir.Value{a, x}, []*ir.Value{filled(b, ir.Tensor(dims, at.Elem), 0)}, maps, its, core.MulAdd).Result(0)
}

// groupedGEMM reports whether a grouped convolution of input xt and
// weight wt runs as per-group matrix products (convGroupedNCHW): a batch
// of one, groups of more than one channel (a depthwise convolution has its
// own kernel) and at least minGroupProducts products per output.
func groupedGEMM(xt, wt *ir.RankedTensorType, group int64) bool {
	if group < 2 || len(xt.Dims) != 4 || xt.Dims[0] != 1 || wt.Dims[1] == 1 {
		return false
	}
	return wt.Dims[1]*wt.Dims[2]*wt.Dims[3] >= minGroupProducts
}

// minGroupProducts: a group's products per output (C·KH·KW) below which
// the direct convolution is kept.
const minGroupProducts = 8

// convGroupedNCHW is a grouped convolution at batch 1 (ResNeXt's and
// RegNet's 3×3 convolutions, groups of 8 to 64 channels) as a product per
// group in the layout of the result, the form ungrouped convolutions
// take (convGEMMNCHW) with the groups as the batch: the weight [G, F, C·ΠK]
// times the windows of each group [G, C·ΠK, ΠO] gives [G, F, ΠO], which is
// the NCHW result. The windows read the padded input directly, so the pad
// runs inside the copy; the product starts from a zero fill of its own
// shape (no separate fill: the Contract zeroes its tile) and the bias is
// added on that shape, so that dispatch formation runs it as the
// product's epilogue. (The generic convolution's form, one loop nest per
// output element, is also rewritten into this by flow for other inputs,
// but there its reshapes keep the pad, the fill and the bias in
// dispatches of their own: a quarter of RegNetX-400MF's time.)
func convGroupedNCHW(b *ir.Builder, x, w, bias *ir.Value, rt *ir.RankedTensorType, strides, dil, low []int64, G int64) *ir.Value {
	wt := tt(w)
	kernel := wt.Dims[2:]
	pin := padForWindows(b, x, kernel, rt, strides, dil, low)
	pt := tt(pin)
	C, F := wt.Dims[1], rt.Dims[1]/G
	OH, OW := rt.Dims[2], rt.Dims[3]
	KH, KW := kernel[0], kernel[1]
	K, P := C*KH*KW, OH*OW
	if groupedTapped(wt, strides, dil) {
		return convGroupedTapped(b, pin, w, bias, rt, G)
	}
	// col[g, c, i, j, y, x] = pin[0, g·C + c, y·s + i·d, x·s + j·d]
	im := &ir.AffineMap{NumDims: 6, Results: []ir.AffineExpr{cstExpr(0), addExpr(mulExpr(dimExpr(0), C), dimExpr(1)),
		addExpr(mulExpr(dimExpr(4), strides[0]), mulExpr(dimExpr(2), dil[0])),
		addExpr(mulExpr(dimExpr(5), strides[1]), mulExpr(dimExpr(3), dil[1]))}}
	col := reshape(b, copyGeneric(b, pin, im, ir.Tensor([]int64{G, C, KH, KW, OH, OW}, pt.Elem)), ir.Tensor([]int64{G, K, P}, pt.Elem))
	prod := product(b, reshape(b, w, ir.Tensor([]int64{G, F, K}, wt.Elem)), col, false)
	return reshape(b, addGroupBias(b, prod, bias), rt)
}

// addGroupBias returns the [G, F, P] product plus bias[g·F + f] (bias
// read as [G, F]), or prod itself when bias is nil: an element-wise
// consumer, which dispatch formation runs as the product's epilogue.
func addGroupBias(b *ir.Builder, prod, bias *ir.Value) *ir.Value {
	if bias == nil {
		return prod
	}
	pt := tt(prod)
	gb := reshape(b, bias, ir.Tensor(pt.Dims[:2], tt(bias).Elem))
	return linalg.BuildGeneric(b, []*ir.Value{prod, gb}, []*ir.Value{empty(b, pt)}, []*ir.AffineMap{linalg.Identity(3), linalg.DimMap(3, 0, 1), linalg.Identity(3)}, core.Parallel(3), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{sc{bb, pt.Elem}.add(a[0], a[1])}
	}).Result(0)
}

// groupedTapped reports whether a grouped convolution with weight wt
// runs tapped (convGroupedTapped): unit strides and dilations, a 2-D
// window of more than one tap and at most tappedMaxTaps.
func groupedTapped(wt *ir.RankedTensorType, strides, dil []int64) bool {
	for j := 0; j < 2; j++ {
		if strides[j] != 1 || dil[j] != 1 {
			return false
		}
	}
	taps := wt.Dims[2] * wt.Dims[3]
	return taps > 1 && taps <= tappedMaxTaps
}

// convGroupedTapped is convTapped with the groups as the batch: the
// padded input [1, G·C, Hp, Wp] read as [G, C, Hp·Wp] at each tap's
// offset, the weight transposed to [G, F, KH, KW, C],
//
//	P[g, f, q] = Σ_c Σ_i Σ_j W'[g, f, i, j, c] · X[g, c, q + i·Wp + j]
//
// on a grid of Wp columns per row, the bias added there (the product's
// epilogue), then the OW columns of each row kept. No windows are copied
// (RegNetX-400MF's 3×3 convolutions of 16-channel groups spent as long
// copying their windows as multiplying them).
func convGroupedTapped(b *ir.Builder, pin, w, bias *ir.Value, rt *ir.RankedTensorType, G int64) *ir.Value {
	pt, wt := tt(pin), tt(w)
	Hp, Wp := pt.Dims[2], pt.Dims[3]
	C, F, KH, KW := wt.Dims[1], rt.Dims[1]/G, wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	N := (OH-1)*Wp + OW
	x := reshape(b, pin, ir.Tensor([]int64{G, C, Hp * Wp}, pt.Elem))
	w5 := reshape(b, w, ir.Tensor([]int64{G, F, C, KH, KW}, wt.Elem))
	wT := copyGeneric(b, w5, &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(4), dimExpr(2), dimExpr(3)}},
		ir.Tensor([]int64{G, F, KH, KW, C}, wt.Elem))
	// Loops g, f, q (parallel), c, i, j (reduction).
	maps := []*ir.AffineMap{
		{NumDims: 6, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(4), dimExpr(5), dimExpr(3)}},
		{NumDims: 6, Results: []ir.AffineExpr{dimExpr(0), dimExpr(3), addExpr(dimExpr(2), addExpr(mulExpr(dimExpr(4), Wp), dimExpr(5)))}},
		{NumDims: 6, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), dimExpr(2)}},
	}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction, linalg.Reduction, linalg.Reduction}
	gt := ir.Tensor([]int64{G, F, N}, rt.Elem)
	prod := addGroupBias(b, linalg.BuildGeneric(b, []*ir.Value{wT, x}, []*ir.Value{filled(b, gt, 0)}, maps, its, core.MulAdd).Result(0), bias)
	crop := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1), addExpr(mulExpr(dimExpr(2), Wp), dimExpr(3))}}
	return reshape(b, copyGeneric(b, prod, crop, ir.Tensor([]int64{G, F, OH, OW}, rt.Elem)), rt)
}

// addRowBias returns the [M, P] product plus bias[m] on each row (prod
// itself when bias is nil): an element-wise consumer, which dispatch
// formation runs as the product's epilogue.
func addRowBias(b *ir.Builder, prod, bias *ir.Value) *ir.Value {
	if bias == nil {
		return prod
	}
	pt := tt(prod)
	bm := &ir.AffineMap{NumDims: 2, Results: []ir.AffineExpr{dimExpr(0)}}
	return linalg.BuildGeneric(b, []*ir.Value{prod, bias}, []*ir.Value{empty(b, pt)}, []*ir.AffineMap{linalg.Identity(2), bm, linalg.Identity(2)}, core.Parallel(2), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{sc{bb, pt.Elem}.add(a[0], a[1])}
	}).Result(0)
}

// Tapped convolutions: limits of tapped (see convTapped).
const (
	// tappedMinChannels is the fewest input channels: each tap is a
	// product with a K of that many steps, and the C tile is read and
	// written once per tap (SqueezeNet's 3×3 expansions of 32 channels
	// at 27×27 were no faster).
	tappedMinChannels = 64
	// tappedMaxTaps is the most taps (KH·KW) a tapped convolution has.
	tappedMaxTaps = 25
	// tappedWaste bounds the grid's extra columns: OW ≥ tappedWaste·(Wp - OW).
	tappedWaste = 7
)

// tapped reports whether a padded [1, C, Hp, Wp] input pt and weight wt
// [M, C, KH, KW] with unit strides and dilations make a tapped
// convolution (convTapped) of result rt: a 2-D window of more than one
// tap and at most tappedMaxTaps, over tappedMinChannels input channels or
// more, and rows of at least tappedWaste times the columns the grid adds
// to each (Wp - OW; 14 columns for a 3×3 window). Measured on llvm-cpu
// (two Zen 4 cores), 3×3 with as many output as input channels: 0.75×
// the im2col form's time at 28×28 and 128 channels, 0.81× at 14×14 and
// 256, 1.0× at 56×56 and 64 (the product was at the FMA peak already),
// 1.22× at 7×7 and 512 (61 grid columns for 49 outputs).
func tapped(pt, wt, rt *ir.RankedTensorType, strides, dil []int64) bool {
	if len(pt.Dims) != 4 || len(wt.Dims) != 4 || pt.Dims[0] != 1 || len(rt.Dims) != 4 {
		return false
	}
	if ow := rt.Dims[3]; tappedWaste*(pt.Dims[3]-ow) > ow {
		return false
	}
	for j := 0; j < 2; j++ {
		if strides[j] != 1 || dil[j] != 1 {
			return false
		}
	}
	taps := wt.Dims[2] * wt.Dims[3]
	return taps > 1 && taps <= tappedMaxTaps && wt.Dims[1] >= tappedMinChannels
}

// convTapped is a convolution with unit strides and dilations at batch 1
// as a product whose B is the padded input itself, read at each tap's
// offset: with the [C, Hp, Wp] input flattened to [C, Hp·Wp], output
// (y, x) of tap (i, j) reads element (y+i)·Wp + x+j of each channel's
// plane, that is q + i·Wp + j for q = y·Wp + x. So the outputs are
// computed on a grid of Wp columns per row, q from 0 to (OH-1)·Wp + OW
// (the columns x ≥ OW of each row but the last are computed and dropped):
//
//	P[m, q] = Σ_c Σ_i Σ_j W'[m, i, j, c] · X[c, q + i·Wp + j]
//
// with the weight transposed to [M, KH, KW, C] (a constant's transpose
// folds at compile time). Codegen runs each tap as a matrix product of
// the tap's weights and the input shifted by its offset, all summed in
// one C tile (linalg.MatchTapped), so the windows (KH·KW times the
// input) are never copied to memory; elsewhere it is a plain reduction.
// The bias is added on the grid (the product's epilogue), and a copy
// then keeps the OW columns of each row.
func convTapped(b *ir.Builder, pin, w, bias *ir.Value, rt *ir.RankedTensorType) *ir.Value {
	pt, wt := tt(pin), tt(w)
	C, Hp, Wp := pt.Dims[1], pt.Dims[2], pt.Dims[3]
	M, KH, KW := wt.Dims[0], wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	N := (OH-1)*Wp + OW
	x := reshape(b, pin, ir.Tensor([]int64{C, Hp * Wp}, pt.Elem))
	wT := copyGeneric(b, w, &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(0), dimExpr(3), dimExpr(1), dimExpr(2)}},
		ir.Tensor([]int64{M, KH, KW, C}, wt.Elem))
	// Loops m, q (parallel), c, i, j (reduction).
	maps := []*ir.AffineMap{
		{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(3), dimExpr(4), dimExpr(2)}},
		{NumDims: 5, Results: []ir.AffineExpr{dimExpr(2), addExpr(dimExpr(1), addExpr(mulExpr(dimExpr(3), Wp), dimExpr(4)))}},
		{NumDims: 5, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}},
	}
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction, linalg.Reduction, linalg.Reduction}
	gt := ir.Tensor([]int64{M, N}, rt.Elem)
	prod := addRowBias(b, linalg.BuildGeneric(b, []*ir.Value{wT, x}, []*ir.Value{filled(b, gt, 0)}, maps, its, core.MulAdd).Result(0), bias)
	crop := &ir.AffineMap{NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), addExpr(mulExpr(dimExpr(1), Wp), dimExpr(2))}}
	return reshape(b, copyGeneric(b, prod, crop, ir.Tensor([]int64{M, OH, OW}, rt.Elem)), rt)
}
