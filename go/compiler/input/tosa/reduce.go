package tosa

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaReduce converts reduce_{sum,max,min,product,all,any} and argmax;
// done is false for other ops.
func (r *rewriter) tosaReduce(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	switch name {
	case "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_product", "reduce_all", "reduce_any":
	case "argmax":
		return true, r.tosaArgmax(b, op, rt)
	default:
		return false, nil
	}
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	n := len(it.Dims)
	axis, err := tosaAxis(op, n)
	if err != nil {
		return true, err
	}
	for i, d := range it.Dims {
		if len(rt.Dims) != n || (i == axis && rt.Dims[i] != 1) || (i != axis && rt.Dims[i] != d) || !ir.TypesEqual(rt.Elem, it.Elem) {
			return true, ir.OpErrorf(op, "needs a %s result with size 1 along axis %d (found %s)", it.Elem, axis, rt)
		}
	}
	elem := it.Elem
	isF := ir.IsFloat(elem)
	ignore := tosaString(op, "nan_mode") == "IGNORE"
	var scalar string
	var init ir.TypedAttr
	lo, hi := int64(0), int64(0)
	if !isF {
		lo, hi = intRange(elem, isUnsignedType(elem))
	}
	switch name {
	case "reduce_sum":
		scalar = map[bool]string{true: "arith.addf", false: "arith.addi"}[isF]
		init = core.ScalarAttr(elem, 0)
	case "reduce_prod", "reduce_product":
		scalar = map[bool]string{true: "arith.mulf", false: "arith.muli"}[isF]
		init = core.ScalarAttr(elem, 1)
	case "reduce_max":
		scalar, init = "arith.maxsi", ir.IntAttr(lo, elem)
		if isF {
			scalar, init = "arith.maximumf", ir.FloatAttrOf(math.Inf(-1), elem.(*ir.FloatType))
			if ignore {
				scalar = "arith.maxnumf"
			}
		}
	case "reduce_min":
		scalar, init = "arith.minsi", ir.IntAttr(hi, elem)
		if isF {
			scalar, init = "arith.minimumf", ir.FloatAttrOf(math.Inf(1), elem.(*ir.FloatType))
			if ignore {
				scalar = "arith.minnumf"
			}
		}
	case "reduce_all":
		scalar, init = "arith.andi", ir.IntAttr(1, elem)
	case "reduce_any":
		scalar, init = "arith.ori", ir.IntAttr(0, elem)
	}
	if (name == "reduce_all" || name == "reduce_any") && !core.IsBool(elem) {
		return true, ir.OpErrorf(op, "is defined for i1 elements only (found %s)", elem)
	}
	if isUnsignedType(elem) && (name == "reduce_max" || name == "reduce_min") {
		scalar = map[string]string{"reduce_max": "arith.maxui", "reduce_min": "arith.minui"}[name]
	}
	var dims []int64
	var kept []int
	om := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	for i := 0; i < n; i++ {
		if i == axis {
			its[i] = linalg.Reduction
			continue
		}
		dims = append(dims, it.Dims[i])
		kept = append(kept, i)
		om.Results = append(om.Results, &ir.AffineDimExpr{Pos: i})
	}
	redT := ir.Tensor(dims, elem)
	filled := core.FillLike(b, redT, b.Constant(init), func(j int) *ir.Value { return linalg.Dim(b, in, kept[j]) })
	g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{filled}, []*ir.AffineMap{linalg.Identity(n), om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{bb.Create(scalar, []*ir.Value{a[1], a[0]}, []ir.Type{elem}).Result(0)}
	})
	r.Replace(op, []*ir.Value{reshapeLike(b, g.Result(0), rt, func(i int) *ir.Value { return linalg.Dim(b, in, i) })})
	return true, nil
}

// fillTensor returns a static tensor of type t filled with scalar v.
func fillTensor(b *ir.Builder, t *ir.RankedTensorType, v *ir.Value) *ir.Value {
	k := len(t.Dims)
	e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, t)).Result(0)
}

// reshapeLike reshapes v to t, whose dynamic sizes are given by size.
func reshapeLike(b *ir.Builder, v *ir.Value, t *ir.RankedTensorType, size func(i int) *ir.Value) *ir.Value {
	if ir.HasStaticShape(t) || ir.TypesEqual(v.Type, t) {
		return reshapeTo(b, v, t)
	}
	var elems []*ir.Value
	for i, d := range t.Dims {
		if d < 0 {
			elems = append(elems, b.Create("arith.index_cast", []*ir.Value{size(i)}, []ir.Type{ir.I64}).Result(0))
		} else {
			elems = append(elems, b.Constant(ir.IntAttr(d, ir.I64)))
		}
	}
	shape := b.Create("tensor.from_elements", elems, []ir.Type{ir.Tensor([]int64{int64(len(elems))}, ir.I64)}).Result(0)
	return b.Create("tensor.reshape", []*ir.Value{v, shape}, []ir.Type{t}).Result(0)
}

// reshapeTo reshapes a static tensor to the static type t.
func reshapeTo(b *ir.Builder, v *ir.Value, t *ir.RankedTensorType) *ir.Value {
	if ir.TypesEqual(v.Type, t) {
		return v
	}
	shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(t.Dims))}, ir.I64), Ints: t.Dims})
	return b.Create("tensor.reshape", []*ir.Value{v, shape}, []ir.Type{t}).Result(0)
}

// tosaArgmax: the index of the first largest element along axis (the
// first NaN when NaNs propagate; NaNs skipped with nan_mode = IGNORE).
func (r *rewriter) tosaArgmax(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	n := len(it.Dims)
	axis, err := tosaAxis(op, n)
	if err != nil {
		return err
	}
	if !ir.HasStaticShape(it) || len(rt.Dims) != n-1 || ir.IsFloat(rt.Elem) || core.IsBool(rt.Elem) {
		return ir.OpErrorf(op, "needs a static input and an integer result of rank %d", n-1)
	}
	elem := it.Elem
	isF := ir.IsFloat(elem)
	ignore := tosaString(op, "nan_mode") == "IGNORE"
	var initV ir.TypedAttr
	if isF {
		initV = ir.FloatAttrOf(math.NaN(), elem.(*ir.FloatType))
	} else {
		lo, _ := intRange(elem, isUnsignedType(elem))
		initV = ir.IntAttr(lo, elem)
	}
	valT := ir.Tensor(rt.Dims, elem)
	vals := fillTensor(b, valT, b.Constant(initV))
	idxs := fillTensor(b, rt, b.Constant(ir.IntAttr(-1, rt.Elem)))
	om := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	for i := 0; i < n; i++ {
		if i == axis {
			its[i] = linalg.Reduction
		} else {
			om.Results = append(om.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{vals, idxs}, []*ir.AffineMap{linalg.Identity(n), om, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		x, best, bi := a[0], a[1], a[2]
		first := core.Cmp(bb, "arith.cmpi", 2, bi, core.IntConst(bb, 0, rt.Elem)) // nothing taken yet
		var take *ir.Value
		if isF {
			gt := core.Cmp(bb, "arith.cmpf", 2, x, best) // ordered: false with a NaN
			bestNaN := core.Cmp(bb, "arith.cmpf", 14, best, best)
			xNaN := core.Cmp(bb, "arith.cmpf", 14, x, x)
			if ignore {
				// Take x when it is a number and beats best (or best is still NaN).
				take = core.BinOp(bb, "arith.andi", notI1(bb, xNaN), core.BinOp(bb, "arith.ori", gt, bestNaN))
				take = core.BinOp(bb, "arith.ori", take, first)
			} else {
				// Propagate: the first NaN wins and stays.
				take = core.BinOp(bb, "arith.andi", core.BinOp(bb, "arith.ori", gt, xNaN), notI1(bb, bestNaN))
				take = core.BinOp(bb, "arith.ori", take, first)
			}
		} else {
			pred := int64(4)
			if isUnsignedType(elem) {
				pred = 8
			}
			take = core.BinOp(bb, "arith.ori", core.Cmp(bb, "arith.cmpi", pred, x, best), first)
		}
		k := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, axis)}, []ir.Type{rt.Elem}).Result(0)
		return []*ir.Value{sel(bb, take, x, best), sel(bb, take, k, bi)}
	})
	r.Replace(op, g.Results[1:2])
	return nil
}

func notI1(bb *ir.Builder, v *ir.Value) *ir.Value {
	return core.BinOp(bb, "arith.xori", v, core.IntConst(bb, 1, ir.I1))
}
