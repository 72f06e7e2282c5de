package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaStructural converts the data-movement ops (reshape, transpose,
// slice, tile, pad, concat, reverse, gather, scatter); done is false for
// other ops.
func (r *rewriter) tosaStructural(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	switch name {
	case "reshape", "transpose", "slice", "tile", "pad", "concat", "reverse", "gather", "scatter":
	default:
		return false, nil
	}
	in := op.Operands[0]
	it, ok := in.Type.(*ir.RankedTensorType)
	if !ok {
		return true, ir.OpErrorf(op, "needs a ranked tensor input")
	}
	n := len(rt.Dims)
	switch {
	case name == "reshape":
		return true, r.tosaReshape(b, op, in, it, rt)
	case (name == "transpose" || name == "slice" || name == "concat") && !ir.HasStaticShape(rt):
		// Dynamic sizes follow the permutation / the input (below).
	case !ir.HasStaticShape(rt):
		return true, ir.OpErrorf(op, "with a dynamic result shape is not supported by gree yet")
	}
	switch name {
	case "transpose", "slice", "tile", "pad", "reverse", "concat":
		if len(it.Dims) != n || !ir.TypesEqual(it.Elem, rt.Elem) {
			return true, ir.OpErrorf(op, "needs a result of its input's rank and element type (found %s from %s)", rt, it)
		}
	}
	out := func() *ir.Value { return b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0) }
	copyBody := func(bb *ir.Builder, args []*ir.Value) []*ir.Value { return args[:1] }
	mapped := func(m *ir.AffineMap) (bool, error) {
		g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{out()}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
		r.Replace(op, g.Results)
		return true, nil
	}
	switch name {
	case "transpose":
		perm, err := tosaList(op, "perms", 1)
		if err != nil {
			return true, err
		}
		if len(perm) != n || len(it.Dims) != n {
			return true, ir.OpErrorf(op, "needs %d permutation entries (found %d)", n, len(perm))
		}
		m := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, n)}
		for i, p := range perm {
			if p < 0 || int(p) >= n || m.Results[p] != nil || (it.Dims[p] >= 0 && rt.Dims[i] >= 0 && it.Dims[p] != rt.Dims[i]) {
				return true, ir.OpErrorf(op, "has an invalid permutation %v", perm)
			}
			m.Results[p] = &ir.AffineDimExpr{Pos: i}
		}
		o := core.EmptyFor(b, rt, func(i int) *ir.Value { return linalg.Dim(b, in, int(perm[i])) })
		g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{o}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
		r.Replace(op, g.Results)
		return true, nil
	case "slice":
		start, err := tosaList(op, "start", 1)
		if err != nil {
			return true, err
		}
		if len(start) != n {
			return true, ir.OpErrorf(op, "needs %d start indices (found %d)", n, len(start))
		}
		m := &ir.AffineMap{NumDims: n}
		for i := 0; i < n; i++ {
			if start[i] < 0 || (it.Dims[i] >= 0 && start[i]+max(rt.Dims[i], 0) > it.Dims[i]) {
				return true, ir.OpErrorf(op, "slices outside its input along dimension %d", i)
			}
			m.Results = append(m.Results, ir.AffineBinary(ir.AffineAdd, &ir.AffineDimExpr{Pos: i}, &ir.AffineConstantExpr{Value: start[i]}))
		}
		// A dynamic result size runs to the end of the input.
		o := core.EmptyFor(b, rt, func(i int) *ir.Value {
			return core.BinOp(b, "arith.subi", linalg.Dim(b, in, i), b.Constant(ir.IntAttr(start[i], ir.Index)))
		})
		g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{o}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
		r.Replace(op, g.Results)
		return true, nil
	case "reverse":
		axis, err := tosaAxis(op, n)
		if err != nil {
			return true, err
		}
		if !ir.TypesEqual(it, rt) {
			return true, ir.OpErrorf(op, "needs a result of its input's type")
		}
		m := linalg.Identity(n)
		m.Results[axis] = ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: axis}, &ir.AffineConstantExpr{Value: -1}), &ir.AffineConstantExpr{Value: rt.Dims[axis] - 1})
		return mapped(m)
	case "tile":
		if !ir.HasStaticShape(it) {
			return true, ir.OpErrorf(op, "with a dynamic input shape is not supported by gree yet")
		}
		for i := range rt.Dims {
			if it.Dims[i] == 0 || rt.Dims[i]%it.Dims[i] != 0 {
				return true, ir.OpErrorf(op, "has a result shape %v that is not a tiling of %v", rt.Dims, it.Dims)
			}
		}
		g := linalg.BuildGeneric(b, nil, []*ir.Value{out()}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			ix := []*ir.Value{in}
			for i := 0; i < n; i++ {
				ix = append(ix, core.BinOp(bb, "arith.remui", core.LoopIndex(bb, i), bb.Constant(ir.IntAttr(it.Dims[i], ir.Index))))
			}
			return []*ir.Value{bb.Create("tensor.extract", ix, []ir.Type{rt.Elem}).Result(0)}
		})
		r.Replace(op, g.Results)
		return true, nil
	case "concat":
		axis, err := tosaAxis(op, n)
		if err != nil {
			return true, err
		}
		sum, dynAxis := int64(0), rt.Dims[axis] < 0
		for _, v := range op.Operands {
			vt, ok := v.Type.(*ir.RankedTensorType)
			if !ok || len(vt.Dims) != n || !ir.TypesEqual(vt.Elem, rt.Elem) {
				return true, ir.OpErrorf(op, "needs inputs of the result's rank and element type")
			}
			for i, d := range vt.Dims {
				if i != axis && d != rt.Dims[i] {
					return true, ir.OpErrorf(op, "has inputs whose sizes differ off the axis")
				}
			}
			sum += vt.Dims[axis]
			dynAxis = dynAxis || vt.Dims[axis] < 0
		}
		if !dynAxis && sum != rt.Dims[axis] {
			return true, ir.OpErrorf(op, "has inputs summing to %d along axis %d, not %d", sum, axis, rt.Dims[axis])
		}
		c := b.Create("tensor.concat", op.Operands, []ir.Type{rt}, ir.Named("dim", ir.IntAttr(int64(axis), ir.I64)))
		r.Replace(op, c.Results)
		b.SetInsertionPointBefore(c)
		return true, r.Concat(b, c)
	case "pad":
		return true, r.tosaPad(b, op, rt)
	case "gather":
		return true, r.tosaGather(b, op, rt)
	case "scatter":
		return true, r.tosaScatter(b, op, rt)
	}
	return false, nil
}

// padValue returns the pad constant of tosa.pad: the pad_const operand
// (a constant), an older pad_const_int/pad_const_fp attribute, or the
// input zero point; 0 otherwise.
func padValue(b *ir.Builder, op *ir.Operation, elem ir.Type) (*ir.Value, error) {
	if len(op.Operands) > 2 {
		d := constOf(op.Operands[2])
		if d == nil {
			return nil, ir.OpErrorf(op, "needs a constant pad value (gree does not support a run-time one)")
		}
		if ft, ok := elem.(*ir.FloatType); ok {
			return b.Constant(ir.FloatAttrOf(d.FloatAt(0), ft)), nil
		}
		return b.Constant(ir.IntAttr(d.IntAt(0), elem)), nil
	}
	if ft, ok := elem.(*ir.FloatType); ok {
		v := 0.0
		if a, ok := op.Attr("pad_const_fp").(*ir.FloatAttr); ok {
			v = a.Value
		}
		return b.Constant(ir.FloatAttrOf(v, ft)), nil
	}
	v, ok, err := tosaIntParam(op, -1, "pad_const_int", "input_zp")
	if err != nil {
		return nil, err
	}
	if !ok {
		v = 0
	}
	return b.Constant(ir.IntAttr(v, elem)), nil
}

// padded returns in padded by lo/hi elements per dimension with value.
func padded(b *ir.Builder, in *ir.Value, lo, hi []int64, value *ir.Value) *ir.Value {
	it := in.Type.(*ir.RankedTensorType)
	dims := make([]int64, len(it.Dims))
	offs := make([]core.Mixed, len(dims))
	sizes := make([]core.Mixed, len(dims))
	any := false
	for i, d := range it.Dims {
		dims[i] = d + lo[i] + hi[i]
		offs[i] = core.Mixed{Static: lo[i]}
		sizes[i] = core.Mixed{Static: d}
		if d < 0 { // a dynamic (batch) size, never padded
			dims[i], sizes[i] = d, core.Mixed{Dyn: linalg.Dim(b, in, i)}
		}
		any = any || lo[i] != 0 || hi[i] != 0
	}
	if !any {
		return in
	}
	out := core.EmptyFor(b, ir.Tensor(dims, it.Elem), func(i int) *ir.Value { return linalg.Dim(b, in, i) })
	return core.PlaceInto(b, out, in, nil, offs, core.Ones(len(dims)), sizes, func(*ir.Builder, []*ir.Value, []*ir.Value) *ir.Value { return value }).Result(0)
}

func (r *rewriter) tosaPad(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	n := len(it.Dims)
	p, err := tosaList(op, "padding", 1)
	if err != nil {
		return err
	}
	if len(p) != 2*n || !ir.HasStaticShape(it) {
		return ir.OpErrorf(op, "needs %d padding values and a static input (found %d)", 2*n, len(p))
	}
	lo, hi := make([]int64, n), make([]int64, n)
	for i := 0; i < n; i++ {
		lo[i], hi[i] = p[2*i], p[2*i+1]
		if lo[i] < 0 || hi[i] < 0 || it.Dims[i]+lo[i]+hi[i] != rt.Dims[i] {
			return ir.OpErrorf(op, "has padding %v that does not give the result shape", p)
		}
	}
	v, err := padValue(b, op, it.Elem)
	if err != nil {
		return err
	}
	r.Replace(op, []*ir.Value{padded(b, in, lo, hi, v)})
	return nil
}

// tosaGather: values [N,K,C], indices [N,W] → [N,W,C], output[n,w,c] =
// values[n, indices[n,w], c] (indices clamped into [0, K)).
func (r *rewriter) tosaGather(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	vals, ixs := op.Operands[0], op.Operands[1]
	vt := vals.Type.(*ir.RankedTensorType)
	if len(vt.Dims) != 3 || len(rt.Dims) != 3 || linalg.Rank(ixs.Type) != 2 || vt.Dims[1] < 0 {
		return ir.OpErrorf(op, "needs values [N,K,C], indices [N,W] and a [N,W,C] result")
	}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	maps := []*ir.AffineMap{linalg.DimMap(3, 0, 1), linalg.Identity(3)}
	g := linalg.BuildGeneric(b, []*ir.Value{ixs}, []*ir.Value{out}, maps, core.Parallel(3), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		k := bb.Create("arith.index_cast", []*ir.Value{a[0]}, []ir.Type{ir.Index}).Result(0)
		k = core.ClampStart(bb, k, vt.Dims[1], 1)
		x := bb.Create("tensor.extract", []*ir.Value{vals, core.LoopIndex(bb, 0), k, core.LoopIndex(bb, 2)}, []ir.Type{vt.Elem}).Result(0)
		return []*ir.Value{x}
	})
	r.Replace(op, g.Results)
	return nil
}

// tosaScatter: values_in [N,K,C], indices [N,W], input [N,W,C]:
// values_out = values_in with values_out[n, indices[n,w], c] =
// input[n,w,c]. One generic over (n, k, c, w) keeps the element of the
// last w whose index is k (indices are unique by the spec).
func (r *rewriter) tosaScatter(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	if len(op.Operands) != 3 || len(rt.Dims) != 3 || linalg.Rank(op.Operands[1].Type) != 2 || linalg.Rank(op.Operands[2].Type) != 3 {
		return ir.OpErrorf(op, "needs values_in [N,K,C], indices [N,W], input [N,W,C]")
	}
	vin, ixs, upd := op.Operands[0], op.Operands[1], op.Operands[2]
	e := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	init := linalg.BuildGeneric(b, []*ir.Value{vin}, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(3), linalg.Identity(3)}, core.Parallel(3), core.YieldArg(0, rt))
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction}
	maps := []*ir.AffineMap{linalg.DimMap(4, 0, 3), linalg.DimMap(4, 0, 3, 2), linalg.DimMap(4, 0, 1, 2)}
	g := linalg.BuildGeneric(b, []*ir.Value{ixs, upd}, init.Results, maps, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		k := bb.Create("arith.index_cast", []*ir.Value{a[0]}, []ir.Type{ir.Index}).Result(0)
		hit := core.CmpI(bb, core.PredEQ, k, core.LoopIndex(bb, 1))
		return []*ir.Value{sel(bb, hit, a[1], a[2])}
	})
	r.Replace(op, g.Results)
	return nil
}

// tosaReshape reshapes in to rt; one dynamic result size is the element
// count divided by the static sizes.
func (r *rewriter) tosaReshape(b *ir.Builder, op *ir.Operation, in *ir.Value, it, rt *ir.RankedTensorType) error {
	if !ir.TypesEqual(it.Elem, rt.Elem) {
		return ir.OpErrorf(op, "changes the element type %s to %s", it.Elem, rt.Elem)
	}
	if ir.HasStaticShape(rt) {
		if ir.HasStaticShape(it) {
			ni, _ := ir.NumElements(it.Dims)
			nr, _ := ir.NumElements(rt.Dims)
			if ni != nr {
				return ir.OpErrorf(op, "reshapes %d elements into %d", ni, nr)
			}
		}
		r.Replace(op, []*ir.Value{reshapeTo(b, in, rt)})
		return nil
	}
	static := int64(1)
	dyn := -1
	for i, d := range rt.Dims {
		if d >= 0 {
			static *= d
		} else if dyn >= 0 {
			return ir.OpErrorf(op, "with more than one dynamic result size is not supported by gree yet")
		} else {
			dyn = i
		}
	}
	if static == 0 {
		return ir.OpErrorf(op, "with a dynamic size beside a zero size is ambiguous")
	}
	known := int64(1)
	var total *ir.Value
	for i, d := range it.Dims {
		if d >= 0 {
			known *= d
		} else if total == nil {
			total = linalg.Dim(b, in, i)
		} else {
			total = core.BinOp(b, "arith.muli", total, linalg.Dim(b, in, i))
		}
	}
	if total == nil {
		total = b.Constant(ir.IntAttr(known, ir.Index))
	} else if known != 1 {
		total = core.BinOp(b, "arith.muli", total, b.Constant(ir.IntAttr(known, ir.Index)))
	}
	var elems []*ir.Value
	for i, d := range rt.Dims {
		if i == dyn {
			v := core.BinOp(b, "arith.divui", total, b.Constant(ir.IntAttr(static, ir.Index)))
			elems = append(elems, b.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0))
		} else {
			elems = append(elems, b.Constant(ir.IntAttr(d, ir.I64)))
		}
	}
	shape := b.Create("tensor.from_elements", elems, []ir.Type{ir.Tensor([]int64{int64(len(elems))}, ir.I64)}).Result(0)
	res := b.Create("tensor.reshape", []*ir.Value{in, shape}, []ir.Type{rt})
	r.Replace(op, res.Results)
	return nil
}
