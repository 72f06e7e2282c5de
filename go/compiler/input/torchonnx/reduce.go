package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX reductions, normalizations and softmax, built on one reduction
// generic (reduced dimensions dropped from the result, then reshaped to
// the op's static result type).

func init() {
	onnxReg(onnxReduce, "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")
	onnxReg(onnxArgMinMax, "ArgMax", "ArgMin")
	onnxReg(onnxSoftmax, "Softmax", "LogSoftmax")
	onnxReg(onnxLayerNorm, "LayerNormalization")
	onnxReg(onnxInstanceNorm, "InstanceNormalization")
	onnxReg(onnxGlobalPool, "GlobalAveragePool", "GlobalMaxPool")
}

// reduceDims reduces x over the dimensions in red: pre maps each element,
// combine folds it into the accumulator (initially init). The result has
// the reduced dimensions removed.
func reduceDims(b *ir.Builder, x *ir.Value, red map[int]bool, elem ir.Type, init float64,
	pre func(s sc, v *ir.Value) *ir.Value, combine func(s sc, acc, v *ir.Value) *ir.Value) *ir.Value {
	xt := tt(x)
	n := len(xt.Dims)
	om := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	var odims []int64
	for i := 0; i < n; i++ {
		if red[i] {
			its[i] = linalg.Reduction
		} else {
			om.Results = append(om.Results, dimExpr(i))
			odims = append(odims, xt.Dims[i])
		}
	}
	ot := ir.Tensor(odims, elem)
	out := filled(b, ot, init)
	g := linalg.BuildGeneric(b, []*ir.Value{x}, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n), om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		v := castScalar(bb, args[0], elem, false, false)
		if pre != nil {
			v = pre(s, v)
		}
		return []*ir.Value{combine(s, args[1], v)}
	})
	return g.Result(0)
}

// keptMap reads a tensor with dimensions red removed inside loops over the
// full rank n.
func keptMap(n int, red map[int]bool) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		if !red[i] {
			m.Results = append(m.Results, dimExpr(i))
		}
	}
	return m
}

// reduceAxes returns the reduced dimensions: from the axes attribute or
// input, all of them when none are given (unless noop_with_empty_axes).
func (o *onnxOp) reduceAxes(rank int, fromInput bool) (map[int]bool, bool, error) {
	var axes []int64
	var ok bool
	if fromInput {
		if o.in(1) != nil {
			if axes, ok = o.constInts(1); !ok {
				return o.inferAxes(rank)
			}
		}
	} else {
		axes, _ = o.attrInts("axes")
	}
	red := map[int]bool{}
	if len(axes) == 0 {
		if o.attrInt("noop_with_empty_axes", 0) != 0 {
			return red, true, nil
		}
		for i := 0; i < rank; i++ {
			red[i] = true
		}
		return red, false, nil
	}
	for _, a := range axes {
		d, err := o.normAxis(a, rank)
		if err != nil {
			return nil, false, err
		}
		red[d] = true
	}
	return red, false, nil
}

func onnxReduce(o *onnxOp) ([]*ir.Value, error) {
	fromInput := o.c.opset >= 18 || o.kind == "ReduceSum" && o.c.opset >= 13
	if err := o.static(); err != nil {
		// A result shape the importer could not infer is fine when the
		// axes do not depend on it: the result type follows from them.
		if len(o.rts) == 0 || o.rts[0] == nil || !o.axesKnown(fromInput) || !staticIns(o) {
			return nil, err
		}
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	if fromInput && o.attrInt("keepdims", 1) == 0 && o.in(1) != nil {
		if _, ok := o.constInts(1); !ok {
			if cands := o.axesCandidates(len(xt.Dims)); len(cands) > 1 {
				return o.reduceChoice(x, cands)
			}
		}
	}
	red, noop, err := o.reduceAxes(len(xt.Dims), fromInput)
	if err != nil {
		return nil, err
	}
	// The result shape follows from the axes and keepdims (the importer's
	// shape inference cannot know run-time axes).
	var dims []int64
	keep := o.attrInt("keepdims", 1) != 0
	for i, d := range xt.Dims {
		switch {
		case !red[i]:
			dims = append(dims, d)
		case keep:
			dims = append(dims, 1)
		}
	}
	if !noop {
		rt = ir.Tensor(dims, rt.Elem)
		o.rts[0] = rt
	}
	elem := rt.Elem
	uns := o.isUnsigned(x) || core.IsBool(elem)
	if noop {
		return []*ir.Value{x}, nil
	}
	y, err := o.reduceValue(x, red, elem, uns)
	if err != nil {
		return nil, err
	}
	return []*ir.Value{reshape(o.b, y, rt)}, nil
}

// reduceValue reduces x over red as the op's kind says, with the reduced
// dimensions dropped from the result.
func (o *onnxOp) reduceValue(x *ir.Value, red map[int]bool, elem ir.Type, uns bool) (*ir.Value, error) {
	xt := tt(x)
	count := int64(1)
	for d := range red {
		count *= xt.Dims[d]
	}
	add := func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) }
	var init float64
	var pre func(s sc, v *ir.Value) *ir.Value
	combine := add
	switch o.kind {
	case "ReduceMax":
		init = math.Inf(-1)
		if uns {
			init = 0
		}
		combine = func(s sc, a, v *ir.Value) *ir.Value { return s.max(a, v, uns) }
	case "ReduceMin":
		init = math.Inf(1)
		if uns {
			init = -1 // all ones
		}
		combine = func(s sc, a, v *ir.Value) *ir.Value { return s.min(a, v, uns) }
	case "ReduceProd":
		init = 1
		combine = func(s sc, a, v *ir.Value) *ir.Value { return s.mul(a, v) }
	case "ReduceL1":
		pre = func(s sc, v *ir.Value) *ir.Value {
			if s.isF() {
				return s.op("math.absf", v)
			}
			return s.op("math.absi", v)
		}
	case "ReduceL2", "ReduceSumSquare":
		pre = func(s sc, v *ir.Value) *ir.Value { return s.mul(v, v) }
	case "ReduceLogSumExp":
		if !ir.IsFloat(elem) {
			return nil, o.errorf("on integers is not supported by gree")
		}
	}
	var y *ir.Value
	if o.kind == "ReduceLogSumExp" {
		// max + log(sum(exp(x - max))) for stability.
		mx := reduceDims(o.b, x, red, elem, math.Inf(-1), nil, func(s sc, a, v *ir.Value) *ir.Value { return s.max(a, v, false) })
		n := len(xt.Dims)
		e := mapGenericMaps(o.b, []*ir.Value{x, mx}, []*ir.AffineMap{linalg.Identity(n), keptMap(n, red)}, ir.Tensor(xt.Dims, elem), func(s sc, a []*ir.Value) *ir.Value {
			return s.op("math.exp", s.sub(a[0], a[1]))
		})
		sum := reduceDims(o.b, e, red, elem, 0, nil, add)
		y = mapGeneric(o.b, []*ir.Value{sum, mx}, tt(sum), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, elem}
			return s.add(s.op("math.log", a[0]), a[1])
		})
		if math.IsInf(init, 0) {
			init = 0
		}
	} else {
		y = reduceDims(o.b, x, red, elem, init, pre, combine)
		post := func(s sc, v *ir.Value) *ir.Value { return v }
		switch o.kind {
		case "ReduceMean":
			post = func(s sc, v *ir.Value) *ir.Value { return s.div(v, s.c(float64(count)), uns) }
		case "ReduceL2":
			post = func(s sc, v *ir.Value) *ir.Value {
				if !s.isF() {
					f := castScalar(s.b, v, ir.F64, uns, false)
					return castScalar(s.b, s.b.Create("math.sqrt", []*ir.Value{f}, []ir.Type{ir.F64}).Result(0), s.t, false, uns)
				}
				return s.op("math.sqrt", v)
			}
		case "ReduceLogSum":
			post = func(s sc, v *ir.Value) *ir.Value { return s.op("math.log", v) }
		default:
			post = nil
		}
		if post != nil {
			y = mapGeneric(o.b, []*ir.Value{y}, tt(y), func(bb *ir.Builder, a []*ir.Value) *ir.Value { return post(sc{bb, elem}, a[0]) })
		}
	}
	return y, nil
}

// mapGenericMaps is mapGeneric with explicit input maps.
func mapGenericMaps(b *ir.Builder, ins []*ir.Value, maps []*ir.AffineMap, rt *ir.RankedTensorType, body func(s sc, args []*ir.Value) *ir.Value) *ir.Value {
	n := len(rt.Dims)
	all := append(append([]*ir.AffineMap{}, maps...), linalg.Identity(n))
	g := linalg.BuildGeneric(b, ins, []*ir.Value{empty(b, rt)}, all, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{body(sc{bb, rt.Elem}, args[:len(ins)])}
	})
	return g.Result(0)
}

func onnxArgMinMax(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", 0), n)
	if err != nil {
		return nil, err
	}
	last := o.attrInt("select_last_index", 0) != 0
	red := map[int]bool{ax: true}
	om := keptMap(n, red)
	var odims []int64
	for i := 0; i < n; i++ {
		if i != ax {
			odims = append(odims, xt.Dims[i])
		}
	}
	init := math.Inf(-1)
	kind := "gt"
	if o.kind == "ArgMin" {
		init, kind = math.Inf(1), "lt"
	}
	if last {
		kind = map[string]string{"gt": "ge", "lt": "le"}[kind]
	}
	uns := o.isUnsigned(x)
	if uns && init < 0 {
		init = 0
	} else if uns {
		init = -1
	}
	vals := filled(o.b, ir.Tensor(odims, xt.Elem), init)
	if !ir.IsFloat(xt.Elem) {
		v := int64(init)
		if math.IsInf(init, -1) {
			v = minInt(xt.Elem)
		} else if math.IsInf(init, 1) {
			v = maxInt(xt.Elem)
		}
		vals = filledInt(o.b, ir.Tensor(odims, xt.Elem), v)
	}
	idxs := filledInt(o.b, ir.Tensor(odims, ir.I64), 0)
	its := make([]linalg.Iterator, n)
	its[ax] = linalg.Reduction
	g := linalg.BuildGeneric(o.b, []*ir.Value{x}, []*ir.Value{vals, idxs}, []*ir.AffineMap{linalg.Identity(n), om, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, xt.Elem}
		i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, ax)}, []ir.Type{ir.I64}).Result(0)
		better := s.cmp(kind, args[0], args[1], uns)
		if ir.IsFloat(xt.Elem) {
			// The first element always wins over the initial value.
			first := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, ax), bb.Constant(ir.IntAttr(0, ir.Index)))
			better = core.BinOp(bb, "arith.ori", better, first)
		}
		v := s.sel(better, args[0], args[1])
		k := bb.Create("arith.select", []*ir.Value{better, i, args[2]}, []ir.Type{ir.I64}).Result(0)
		return []*ir.Value{v, k}
	})
	return []*ir.Value{reshape(o.b, g.Result(1), rt)}, nil
}

func onnxGlobalPool(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	count := int64(1)
	for i := 2; i < len(xt.Dims); i++ {
		count *= xt.Dims[i]
	}
	// The spatial dimensions are contiguous: one reduction over their
	// product vectorizes (7×7 would be two loops of 7, each too short).
	if len(xt.Dims) > 3 {
		x = reshape(o.b, x, ir.Tensor([]int64{xt.Dims[0], xt.Dims[1], count}, xt.Elem))
		xt = tt(x)
	}
	red := map[int]bool{}
	for i := 2; i < len(xt.Dims); i++ {
		red[i] = true
	}
	var y *ir.Value
	if o.kind == "GlobalMaxPool" {
		y = reduceDims(o.b, x, red, xt.Elem, math.Inf(-1), nil, func(s sc, a, v *ir.Value) *ir.Value { return s.max(a, v, false) })
	} else {
		y = reduceDims(o.b, x, red, xt.Elem, 0, nil, func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) })
		y = mapGeneric(o.b, []*ir.Value{y}, tt(y), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, xt.Elem}
			return s.op("arith.divf", a[0], s.c(float64(count)))
		})
	}
	return []*ir.Value{reshape(o.b, y, rt)}, nil
}

// inferAxes finds the reduced dimensions of a reduction whose axes input
// is not a constant from the static input and result shapes: with
// keepdims they are the dimensions that became 1 (reducing a size-1
// dimension changes nothing); without, the one way to drop dimensions
// that matches, else an error.
func (o *onnxOp) inferAxes(rank int) (map[int]bool, bool, error) {
	xt, rt, at := tt(o.in(0)), o.rts[0], tt(o.in(1))
	if at != nil && len(at.Dims) == 1 && at.Dims[0] == 0 {
		if o.attrInt("noop_with_empty_axes", 0) != 0 {
			return map[int]bool{}, true, nil
		}
		red := map[int]bool{}
		for i := 0; i < rank; i++ {
			red[i] = true
		}
		return red, false, nil
	}
	red := map[int]bool{}
	k := int64(-1) // the number of axes, when the axes tensor's length is static
	if at != nil && len(at.Dims) == 1 && at.Dims[0] >= 0 {
		k = at.Dims[0]
	}
	if o.attrInt("keepdims", 1) != 0 {
		if len(rt.Dims) != rank {
			return nil, false, o.errorf("with non-constant axes has a result rank that does not match keepdims")
		}
		changed := int64(0)
		for i := 0; i < rank; i++ {
			if rt.Dims[i] == 1 {
				red[i] = true
			}
			if rt.Dims[i] != xt.Dims[i] {
				changed++
				if rt.Dims[i] != 1 {
					return nil, false, o.errorf("with non-constant axes has a result shape that no reduction gives")
				}
			}
		}
		if k >= 0 && changed > k {
			return nil, false, o.errorf("with non-constant axes has a result shape that %d axes cannot give", k)
		}
		return red, false, nil
	}
	if k < 0 || int64(rank-len(rt.Dims)) != k {
		return nil, false, o.errorf("with non-constant axes whose dimensions the shapes do not determine is not supported by gree")
	}
	if found := reducedDimChoices(xt.Dims[:rank], rt.Dims, 1); len(found) == 1 {
		return found[0], false, nil
	}
	return nil, false, o.errorf("with non-constant axes whose dimensions the shapes do not determine is not supported by gree")
}
