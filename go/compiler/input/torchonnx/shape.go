package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX data-movement operators. Result shapes come from the static types
// the importer recorded, so shape-valued inputs (Reshape's shape,
// Unsqueeze's axes, Expand's shape) need not be constants.

func init() {
	onnxReg(onnxConstant, "Constant")
	onnxReg(onnxReshape, "Reshape", "Flatten", "Squeeze", "Unsqueeze")
	onnxReg(onnxTranspose, "Transpose")
	onnxReg(onnxConcat, "Concat")
	onnxReg(onnxSplit, "Split")
	onnxReg(onnxSlice, "Slice")
	onnxReg(onnxGather, "Gather")
	onnxReg(onnxGatherElements, "GatherElements")
	onnxReg(onnxExpand, "Expand")
	onnxReg(onnxTile, "Tile")
	onnxReg(onnxPad, "Pad")
	onnxReg(onnxShape, "Shape", "Size")
	onnxReg(onnxConstantOfShape, "ConstantOfShape")
	onnxReg(onnxRange, "Range")
	onnxReg(onnxTrilu, "Trilu")
}

func onnxConstant(o *onnxOp) ([]*ir.Value, error) {
	rt := o.rts[0]
	if rt == nil || !ir.HasStaticShape(rt) {
		return nil, o.errorf("needs a static tensor result")
	}
	if a, ok := o.attr("value").(ir.TypedAttr); ok {
		v, err := o.c.constant(o.b, o.op, a, rt)
		return []*ir.Value{v}, err
	}
	if f, ok := o.attr("value_float").(*ir.FloatAttr); ok {
		return []*ir.Value{denseOf(o.b, rt, []float64{f.Value}, nil)}, nil
	}
	if fs, ok := o.attrFloats("value_floats"); ok {
		return []*ir.Value{denseOf(o.b, rt, fs, nil)}, nil
	}
	if i, ok := o.attr("value_int").(*ir.IntegerAttr); ok {
		return []*ir.Value{denseOf(o.b, rt, nil, []int64{i.Value})}, nil
	}
	if is, ok := o.attrInts("value_ints"); ok {
		return []*ir.Value{denseOf(o.b, rt, nil, is)}, nil
	}
	return nil, o.errorf("has no value attribute gree supports (value, value_float(s), value_int(s))")
}

func onnxReshape(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	return []*ir.Value{reshape(o.b, o.in(0), o.rts[0])}, nil
}

func onnxTranspose(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	n := len(tt(x).Dims)
	perm, ok := o.attrInts("perm")
	if !ok {
		for i := n - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != n {
		return nil, o.errorf("has a perm of length %d for rank %d", len(perm), n)
	}
	m := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, n)}
	for i, p := range perm {
		if p < 0 || int(p) >= n || m.Results[p] != nil {
			return nil, o.errorf("has an invalid perm %v", perm)
		}
		m.Results[p] = dimExpr(i)
	}
	return []*ir.Value{copyGeneric(o.b, x, m, o.rts[0])}, nil
}

// concatAlong places the inputs one after another along axis d: a
// tensor.concat when the pieces are contiguous ranges of the result (the
// host copies them into place), else a generic per piece.
func concatAlong(b *ir.Builder, ins []*ir.Value, d int, rt *ir.RankedTensorType) *ir.Value {
	var pieces []*ir.Value
	for _, v := range ins {
		if tt(v).Dims[d] != 0 {
			pieces = append(pieces, v)
		}
	}
	if c := linalg.ContiguousConcatOf(b, pieces, d, rt); c != nil {
		return c
	}
	acc := empty(b, rt)
	off := int64(0)
	for _, v := range pieces {
		t := tt(v)
		offs := make([]core.Mixed, len(rt.Dims))
		sizes := make([]core.Mixed, len(rt.Dims))
		for i := range offs {
			sizes[i] = core.Mixed{Static: t.Dims[i]}
		}
		offs[d] = core.Mixed{Static: off}
		g := core.PlaceInto(b, empty(b, rt), v, []*ir.Value{acc}, offs, core.Ones(len(offs)), sizes,
			func(bb *ir.Builder, args []*ir.Value, _ []*ir.Value) *ir.Value { return args[0] })
		acc = g.Result(0)
		off += t.Dims[d]
	}
	return acc
}

func onnxConcat(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	d, err := o.normAxis(o.attrInt("axis", 0), len(rt.Dims))
	if err != nil {
		return nil, err
	}
	var ins []*ir.Value
	for _, v := range o.ins {
		if v != nil {
			ins = append(ins, v)
		}
	}
	if len(ins) == 1 {
		return ins, nil
	}
	return []*ir.Value{concatAlong(o.b, ins, d, rt)}, nil
}

// sliceCopy reads x[start + i*step] along each dimension into rt.
func sliceCopy(b *ir.Builder, x *ir.Value, start, step []int64, rt *ir.RankedTensorType) *ir.Value {
	n := len(rt.Dims)
	m := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, addExpr(mulExpr(dimExpr(i), step[i]), cstExpr(start[i])))
	}
	return copyGeneric(b, x, m, rt)
}

func onnxSplit(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	d, err := o.normAxis(o.attrInt("axis", 0), len(xt.Dims))
	if err != nil {
		return nil, err
	}
	var outs []*ir.Value
	off := int64(0)
	for _, rt := range o.rts {
		if rt == nil || len(rt.Dims) != len(xt.Dims) {
			return nil, o.errorf("has a result whose rank differs from its input's")
		}
		start := make([]int64, len(xt.Dims))
		step := make([]int64, len(xt.Dims))
		for i := range step {
			step[i] = 1
		}
		start[d] = off
		outs = append(outs, sliceCopy(o.b, x, start, step, rt))
		off += rt.Dims[d]
	}
	if off != xt.Dims[d] {
		return nil, o.errorf("result sizes %d do not add up to the input dimension %d", off, xt.Dims[d])
	}
	return outs, nil
}

func clampI(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func onnxSlice(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	n := len(xt.Dims)
	var starts, axes, steps []int64
	var ok1, ok2 bool
	ok3, ok4 := true, true
	if o.c.opset < 10 {
		starts, ok1 = o.attrInts("starts")
		_, ok2 = o.attrInts("ends")
		axes, _ = o.attrInts("axes")
	} else {
		starts, ok1 = o.constInts(1)
		_, ok2 = o.constInts(2)
		if o.in(3) != nil {
			axes, ok3 = o.constInts(3)
		}
		if o.in(4) != nil {
			steps, ok4 = o.constInts(4)
		}
	}
	if !(ok1 && ok2 && ok3 && ok4) {
		return o.sliceDynamic()
	}
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	start := make([]int64, n)
	step := make([]int64, n)
	for i := range step {
		step[i] = 1
	}
	for k, a := range axes {
		d, err := o.normAxis(a, n)
		if err != nil {
			return nil, err
		}
		s := int64(1)
		if k < len(steps) {
			s = steps[k]
		}
		if s == 0 {
			return nil, o.errorf("has a zero step")
		}
		dim := xt.Dims[d]
		st := starts[k]
		if st < 0 {
			st += dim
		}
		if s > 0 {
			st = clampI(st, 0, dim)
		} else {
			st = clampI(st, 0, dim-1)
		}
		start[d], step[d] = st, s
	}
	return []*ir.Value{sliceCopy(o.b, x, start, step, o.rts[0])}, nil
}

// extractIndex reads element k of a 1-D integer tensor as an index
// (inside a generic body).
func extractIndex(bb *ir.Builder, t *ir.Value, k int64) *ir.Value {
	var ix []*ir.Value
	if len(tt(t).Dims) > 0 {
		ix = append(ix, bb.Constant(ir.IntAttr(k, ir.Index)))
	}
	v := bb.Create("tensor.extract", append([]*ir.Value{t}, ix...), []ir.Type{tt(t).Elem}).Result(0)
	return bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.Index}).Result(0)
}

// sliceDynamic handles Slice whose starts, ends, axes or steps are not
// constants: every output element computes its source index from them.
func (o *onnxOp) sliceDynamic() ([]*ir.Value, error) {
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	starts, axes, steps := o.in(1), o.in(3), o.in(4)
	if starts == nil || tt(starts) == nil || !ir.HasStaticShape(tt(starts)) {
		return nil, o.errorf("needs starts of static length")
	}
	k := tt(starts).Dims[0]
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		var ix []*ir.Value
		for j := 0; j < n; j++ {
			dim := c(xt.Dims[j])
			st, sp := c(0), c(1)
			for q := int64(0); q < k; q++ {
				isAxis := core.CmpI(bb, core.PredEQ, c(int64(j)), c(q))
				if axes != nil {
					a := extractIndex(bb, axes, q)
					neg := core.CmpI(bb, core.PredSLT, a, c(0))
					a = bb.Create("arith.select", []*ir.Value{neg, core.BinOp(bb, "arith.addi", a, c(int64(n))), a}, []ir.Type{ir.Index}).Result(0)
					isAxis = core.CmpI(bb, core.PredEQ, a, c(int64(j)))
				}
				s := extractIndex(bb, starts, q)
				p := c(1)
				if steps != nil {
					p = extractIndex(bb, steps, q)
				}
				s = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, s, c(0)), core.BinOp(bb, "arith.addi", s, dim), s}, []ir.Type{ir.Index}).Result(0)
				pos := core.CmpI(bb, 4, p, c(0)) // sgt
				hi := bb.Create("arith.select", []*ir.Value{pos, dim, core.BinOp(bb, "arith.subi", dim, c(1))}, []ir.Type{ir.Index}).Result(0)
				s = bb.Create("arith.maxsi", []*ir.Value{s, c(0)}, []ir.Type{ir.Index}).Result(0)
				s = bb.Create("arith.minsi", []*ir.Value{s, hi}, []ir.Type{ir.Index}).Result(0)
				st = bb.Create("arith.select", []*ir.Value{isAxis, s, st}, []ir.Type{ir.Index}).Result(0)
				sp = bb.Create("arith.select", []*ir.Value{isAxis, p, sp}, []ir.Type{ir.Index}).Result(0)
			}
			i := core.BinOp(bb, "arith.addi", st, core.BinOp(bb, "arith.muli", core.LoopIndex(bb, j), sp))
			i = bb.Create("arith.maxsi", []*ir.Value{i, c(0)}, []ir.Type{ir.Index}).Result(0)
			i = bb.Create("arith.minsi", []*ir.Value{i, c(xt.Dims[j] - 1)}, []ir.Type{ir.Index}).Result(0)
			ix = append(ix, i)
		}
		return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// normIndex wraps a negative index by dim and clamps it into range.
func normIndex(bb *ir.Builder, v *ir.Value, dim int64) *ir.Value {
	c := func(x int64) *ir.Value { return bb.Constant(ir.IntAttr(x, ir.Index)) }
	i := bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.Index}).Result(0)
	i = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, i, c(0)), core.BinOp(bb, "arith.addi", i, c(dim)), i}, []ir.Type{ir.Index}).Result(0)
	i = bb.Create("arith.maxsi", []*ir.Value{i, c(0)}, []ir.Type{ir.Index}).Result(0)
	return bb.Create("arith.minsi", []*ir.Value{i, c(dim - 1)}, []ir.Type{ir.Index}).Result(0)
}

func onnxGather(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, rt := o.in(0), o.in(1), o.rts[0]
	xt, it := tt(x), tt(ind)
	ax, err := o.normAxis(o.attrInt("axis", 0), len(xt.Dims))
	if err != nil {
		return nil, err
	}
	n, r := len(rt.Dims), len(it.Dims)
	im := &ir.AffineMap{NumDims: n}
	for i := 0; i < r; i++ {
		im.Results = append(im.Results, dimExpr(ax+i))
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{ind}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{im, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		var ix []*ir.Value
		for j := 0; j < ax; j++ {
			ix = append(ix, core.LoopIndex(bb, j))
		}
		ix = append(ix, normIndex(bb, args[0], xt.Dims[ax]))
		for j := ax + 1; j < len(xt.Dims); j++ {
			ix = append(ix, core.LoopIndex(bb, j-1+r))
		}
		return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func onnxGatherElements(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, rt := o.in(0), o.in(1), o.rts[0]
	xt := tt(x)
	ax, err := o.normAxis(o.attrInt("axis", 0), len(xt.Dims))
	if err != nil {
		return nil, err
	}
	n := len(rt.Dims)
	g := linalg.BuildGeneric(o.b, []*ir.Value{ind}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		var ix []*ir.Value
		for j := 0; j < n; j++ {
			if j == ax {
				ix = append(ix, normIndex(bb, args[0], xt.Dims[ax]))
			} else {
				ix = append(ix, core.LoopIndex(bb, j))
			}
		}
		return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func onnxExpand(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	return []*ir.Value{copyGeneric(o.b, x, broadcastMap(tt(x).Dims, rt.Dims), rt)}, nil
}

func onnxTile(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(rt.Dims)
	m := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		e := dimExpr(i)
		if xt.Dims[i] != rt.Dims[i] {
			e = ir.AffineBinary(ir.AffineMod, e, cstExpr(xt.Dims[i]))
		}
		m.Results = append(m.Results, e)
	}
	return []*ir.Value{copyGeneric(o.b, x, m, rt)}, nil
}

func onnxPad(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	// The low pad of each dimension: from the attribute (before opset 11),
	// or read from the pads input (constant or not), through axes when
	// given.
	var attrPads []int64
	if o.c.opset < 11 {
		var ok bool
		if attrPads, ok = o.attrInts("pads"); !ok || len(attrPads) != 2*n {
			return nil, o.errorf("needs pads of length %d", 2*n)
		}
	}
	padsIn, axesIn := o.in(1), o.in(3)
	var axes []int64
	runAxes := false // axes known only at run time
	if axesIn != nil {
		var ok bool
		if axes, ok = o.constInts(3); !ok {
			at := tt(axesIn)
			if len(at.Dims) != 1 || at.Dims[0] < 0 {
				return nil, o.errorf("with non-constant axes of unknown length is not supported by gree yet")
			}
			runAxes = true
		}
		for k := range axes {
			d, err := o.normAxis(axes[k], n)
			if err != nil {
				return nil, err
			}
			axes[k] = int64(d)
		}
	}
	lowOf := func(bb *ir.Builder, j int) *ir.Value {
		if attrPads != nil {
			return bb.Constant(ir.IntAttr(attrPads[j], ir.Index))
		}
		if runAxes {
			// The sum over the axes that name dimension j (at most one
			// does) of their pads.
			c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
			low := c(0)
			for k := int64(0); k < tt(axesIn).Dims[0]; k++ {
				a := extractIndex(bb, axesIn, k)
				a = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, a, c(0)), core.BinOp(bb, "arith.addi", a, c(int64(n))), a}, []ir.Type{ir.Index}).Result(0)
				p := bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredEQ, a, c(int64(j))), extractIndex(bb, padsIn, k), c(0)}, []ir.Type{ir.Index}).Result(0)
				low = core.BinOp(bb, "arith.addi", low, p)
			}
			return low
		}
		if axes == nil {
			return extractIndex(bb, padsIn, int64(j))
		}
		for k, a := range axes {
			if int(a) == j {
				return extractIndex(bb, padsIn, int64(k))
			}
		}
		return bb.Constant(ir.IntAttr(0, ir.Index))
	}
	mode := o.attrStr("mode", "constant")
	cv := 0.0
	var cvt *ir.Value
	if o.c.opset < 11 {
		cv = o.attrFloat("value", 0)
	} else if o.in(2) != nil {
		if fs, ok := o.constFloats(2); ok && len(fs) > 0 {
			cv = fs[0]
		} else {
			cvt = o.in(2)
		}
	}
	switch mode {
	case "constant", "edge", "reflect", "wrap":
	default:
		return nil, o.errorf("mode '%s' is not supported by gree", mode)
	}
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		var ix []*ir.Value
		var inside *ir.Value
		for j := 0; j < n; j++ {
			dim := xt.Dims[j]
			i := core.BinOp(bb, "arith.subi", core.LoopIndex(bb, j), lowOf(bb, j))
			switch mode {
			case "constant":
				ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, i, c(0)), core.CmpI(bb, core.PredSLT, i, c(dim)))
				if inside == nil {
					inside = ok
				} else {
					inside = core.BinOp(bb, "arith.andi", inside, ok)
				}
				i = bb.Create("arith.maxsi", []*ir.Value{i, c(0)}, []ir.Type{ir.Index}).Result(0)
				i = bb.Create("arith.minsi", []*ir.Value{i, c(max64(dim-1, 0))}, []ir.Type{ir.Index}).Result(0)
			case "edge":
				i = bb.Create("arith.maxsi", []*ir.Value{i, c(0)}, []ir.Type{ir.Index}).Result(0)
				i = bb.Create("arith.minsi", []*ir.Value{i, c(dim - 1)}, []ir.Type{ir.Index}).Result(0)
			case "wrap":
				i = core.BinOp(bb, "arith.remsi", i, c(dim))
				i = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, i, c(0)), core.BinOp(bb, "arith.addi", i, c(dim)), i}, []ir.Type{ir.Index}).Result(0)
			case "reflect":
				// Fold into [0, 2(dim-1)) then mirror the upper half.
				if dim == 1 {
					i = c(0)
					break
				}
				period := 2 * (dim - 1)
				i = core.BinOp(bb, "arith.remsi", i, c(period))
				i = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, i, c(0)), core.BinOp(bb, "arith.addi", i, c(period)), i}, []ir.Type{ir.Index}).Result(0)
				mirror := core.BinOp(bb, "arith.subi", c(period), i)
				i = bb.Create("arith.select", []*ir.Value{core.CmpI(bb, core.PredSLT, i, c(dim)), i, mirror}, []ir.Type{ir.Index}).Result(0)
			}
			ix = append(ix, i)
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{xt.Elem}).Result(0)
		if inside == nil {
			return []*ir.Value{v}
		}
		var fill *ir.Value
		if cvt != nil {
			var cix []*ir.Value
			if len(tt(cvt).Dims) > 0 {
				cix = append(cix, c(0))
			}
			fill = bb.Create("tensor.extract", append([]*ir.Value{cvt}, cix...), []ir.Type{xt.Elem}).Result(0)
		} else {
			fill = scalarConst(bb, cv, xt.Elem)
		}
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{inside, v, fill}, []ir.Type{xt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func onnxShape(o *onnxOp) ([]*ir.Value, error) {
	xt := tt(o.in(0))
	if xt == nil || !ir.HasStaticShape(xt) {
		return nil, o.errorf("of a dynamic shape is not supported by gree yet")
	}
	rt := o.rts[0]
	if o.kind == "Size" {
		n, _ := ir.NumElements(xt.Dims)
		return []*ir.Value{denseOf(o.b, rt, nil, []int64{n})}, nil
	}
	r := int64(len(xt.Dims))
	start, end := o.attrInt("start", 0), o.attrInt("end", r)
	if start < 0 {
		start += r
	}
	if end < 0 {
		end += r
	}
	start, end = clampI(start, 0, r), clampI(end, 0, r)
	if end < start {
		end = start
	}
	return []*ir.Value{denseOf(o.b, rt, nil, append([]int64{}, xt.Dims[start:end]...))}, nil
}

func onnxConstantOfShape(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	v := o.valueAttr()
	if len(rt.Dims) == 0 {
		return []*ir.Value{denseOf(o.b, rt, []float64{v}, []int64{int64(v)})}, nil
	}
	if ir.IsFloat(rt.Elem) {
		return []*ir.Value{filled(o.b, rt, v)}, nil
	}
	return []*ir.Value{filledInt(o.b, rt, int64(v))}, nil
}

func onnxRange(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	start, delta := o.in(0), o.in(2)
	g := linalg.BuildGeneric(o.b, []*ir.Value{start, delta}, []*ir.Value{empty(o.b, rt)},
		[]*ir.AffineMap{{NumDims: 1}, {NumDims: 1}, linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			s := sc{bb, rt.Elem}
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 0)}, []ir.Type{ir.I64}).Result(0)
			fi := castScalar(bb, i, rt.Elem, false, false)
			return []*ir.Value{s.add(args[0], s.mul(fi, args[1]))}
		})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxTrilu keeps the upper (upper=1) or lower triangle of the last two
// dimensions, shifted by the diagonal offset k.
func onnxTrilu(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	kv := o.in(1)
	upper := o.attrInt("upper", 1) != 0
	n := len(rt.Dims)
	g := linalg.BuildGeneric(o.b, []*ir.Value{x}, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		i, j := core.LoopIndex(bb, n-2), core.LoopIndex(bb, n-1)
		d := core.BinOp(bb, "arith.subi", j, i) // keep upper where j - i >= k
		kc := bb.Constant(ir.IntAttr(0, ir.Index))
		if kv != nil {
			kc = extractIndex(bb, kv, 0)
		}
		var keep *ir.Value
		if upper {
			keep = core.CmpI(bb, core.PredSGE, d, kc)
		} else {
			keep = core.CmpI(bb, 3, d, kc) // sle
		}
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{keep, args[0], scalarConst(bb, 0, rt.Elem)}, []ir.Type{rt.Elem}).Result(0)}
	})
	return []*ir.Value{g.Result(0)}, nil
}
