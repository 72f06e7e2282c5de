package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// StableHLO's dynamic-shape ops. Shape operands are 1-D integer tensors
// read on the host; a result dimension known in the result type wins over
// the operand (the verifier makes them agree). Padding amounts of
// dynamic_pad must be constants.

// hostElem reads element i of a 1-D integer tensor on the host as an index.
func hostElem(b *ir.Builder, t *ir.Value, i int64) *ir.Value {
	x := b.Create("tensor.extract", []*ir.Value{t, b.Constant(ir.IntAttr(i, ir.Index))}, []ir.Type{ir.ElementTypeOf(t.Type)}).Result(0)
	return b.Create("arith.index_cast", []*ir.Value{x}, []ir.Type{ir.Index}).Result(0)
}

// isShape reports whether v is a 1-D integer tensor of n elements.
func isShape(v *ir.Value, n int) bool {
	t, ok := v.Type.(*ir.RankedTensorType)
	return ok && len(t.Dims) == 1 && t.Dims[0] == int64(n) && !ir.IsFloat(t.Elem)
}

// dynEmpty creates tensor.empty of rt with its dynamic dimensions from
// size(i).
func dynEmpty(b *ir.Builder, rt *ir.RankedTensorType, size func(i int) *ir.Value) *ir.Value {
	var dyn []*ir.Value
	for i, d := range rt.Dims {
		if d < 0 {
			dyn = append(dyn, size(i))
		}
	}
	return b.Create("tensor.empty", dyn, []ir.Type{rt}).Result(0)
}

// stablehloDynamic converts the dynamic-shape ops; done is false for
// others.
func (r *rewriter) stablehloDynamic(b *ir.Builder, op *ir.Operation, name string) (bool, error) {
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok {
		return false, nil
	}
	n := len(rt.Dims)
	shapeArgs := map[string][]int{"dynamic_iota": {0}, "dynamic_broadcast_in_dim": {1}, "dynamic_reshape": {1}, "real_dynamic_slice": {1, 2, 3}}
	for _, i := range shapeArgs[name] {
		if i >= len(op.Operands) || !isShape(op.Operands[i], n) {
			return true, ir.OpErrorf(op, "needs a 1-D integer shape operand with one entry per result dimension")
		}
	}
	switch name {
	case "get_dimension_size":
		d, ok := op.Attr("dimension").(*ir.IntegerAttr)
		xt, ok2 := op.Operands[0].Type.(*ir.RankedTensorType)
		if !ok || !ok2 || d.Value < 0 || int(d.Value) >= len(xt.Dims) {
			return true, ir.OpErrorf(op, "needs a dimension within its operand's rank")
		}
		var v *ir.Value
		if sz := xt.Dims[d.Value]; sz >= 0 {
			v = b.Constant(ir.IntAttr(sz, rt.Elem))
		} else {
			v = b.Create("arith.index_cast", []*ir.Value{linalg.Dim(b, op.Operands[0], int(d.Value))}, []ir.Type{rt.Elem}).Result(0)
		}
		res := b.Create("tensor.from_elements", []*ir.Value{v}, []ir.Type{rt})
		r.Replace(op, res.Results)
		return true, nil
	case "dynamic_iota":
		d, ok := op.Attr("iota_dimension").(*ir.IntegerAttr)
		if !ok || d.Value < 0 || int(d.Value) >= n {
			return true, ir.OpErrorf(op, "needs an iota_dimension within the result rank")
		}
		out := dynEmpty(b, rt, func(i int) *ir.Value { return hostElem(b, op.Operands[0], int64(i)) })
		g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, int(d.Value))}, []ir.Type{ir.I64}).Result(0)
			if ir.IsFloat(rt.Elem) {
				return []*ir.Value{bb.Create("arith.sitofp", []*ir.Value{i}, []ir.Type{rt.Elem}).Result(0)}
			}
			return []*ir.Value{core.Cast(bb, i, rt.Elem)}
		})
		r.Replace(op, g.Results)
		return true, nil
	case "dynamic_broadcast_in_dim":
		dims := core.IntsOf(op, "broadcast_dimensions")
		in := op.Operands[0].Type.(*ir.RankedTensorType)
		expanding := map[int64]bool{}
		for _, d := range core.IntsOf(op, "known_expanding_dimensions") {
			expanding[d] = true
		}
		if len(dims) != len(in.Dims) {
			return true, ir.OpErrorf(op, "needs one broadcast dimension per operand dimension")
		}
		out := dynEmpty(b, rt, func(i int) *ir.Value { return hostElem(b, op.Operands[1], int64(i)) })
		m := &ir.AffineMap{NumDims: n}
		for i, d := range dims {
			if (in.Dims[i] == 1 && rt.Dims[d] != 1) || expanding[int64(i)] {
				m.Results = append(m.Results, &ir.AffineConstantExpr{Value: 0})
			} else {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: int(d)})
			}
		}
		g := linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, rt))
		r.Replace(op, g.Results)
		return true, nil
	case "dynamic_reshape":
		shape := op.Operands[1]
		if ir.HasStaticShape(rt) {
			shape = b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(n)}, ir.I64), Ints: rt.Dims})
		}
		res := b.Create("tensor.reshape", []*ir.Value{op.Operands[0], shape}, []ir.Type{rt})
		r.Replace(op, res.Results)
		return true, nil
	case "dynamic_pad":
		low, ok1 := hloConstInts(op.Operands[2])
		high, ok2 := hloConstInts(op.Operands[3])
		interior, ok3 := hloConstInts(op.Operands[4])
		if !ok1 || !ok2 || !ok3 || !ir.HasStaticShape(rt) {
			return true, ir.OpErrorf(op, "with padding amounts that are not constants is not supported by gree yet")
		}
		return true, r.hloPadGeneral(b, op, rt, low, high, interior)
	case "real_dynamic_slice":
		src := op.Operands[0]
		st := src.Type.(*ir.RankedTensorType)
		starts, limits, strides := make([]*ir.Value, n), make([]*ir.Value, n), make([]*ir.Value, n)
		for i := 0; i < n; i++ {
			starts[i] = hostElem(b, op.Operands[1], int64(i))
			strides[i] = hostElem(b, op.Operands[3], int64(i))
		}
		out := dynEmpty(b, rt, func(i int) *ir.Value {
			// ceil((limit - start) / stride)
			limits[i] = hostElem(b, op.Operands[2], int64(i))
			span := core.BinOp(b, "arith.subi", limits[i], starts[i])
			span = core.BinOp(b, "arith.addi", span, core.BinOp(b, "arith.subi", strides[i], b.Constant(ir.IntAttr(1, ir.Index))))
			return core.BinOp(b, "arith.divsi", span, strides[i])
		})
		g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for i := 0; i < n; i++ {
				ix = append(ix, core.BinOp(bb, "arith.addi", starts[i], core.BinOp(bb, "arith.muli", core.LoopIndex(bb, i), strides[i])))
			}
			return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{st.Elem}).Result(0)}
		})
		r.Replace(op, g.Results)
		return true, nil
	}
	return false, nil
}

// hloPadGeneral is stablehlo.pad with any edge padding (negative edges
// crop) and interior padding: result[i] = x[(i - low) / (interior+1)]
// where that divides evenly and lands inside x, the padding value
// elsewhere.
func (r *rewriter) hloPadGeneral(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, low, high, interior []int64) error {
	src, padv := op.Operands[0], op.Operands[1]
	st := src.Type.(*ir.RankedTensorType)
	n := len(rt.Dims)
	if len(low) != n || len(high) != n || (len(interior) != n && len(interior) != 0) || !ir.HasStaticShape(st) {
		return ir.OpErrorf(op, "needs static shapes and one padding amount per dimension")
	}
	if len(interior) == 0 {
		interior = make([]int64, n)
	}
	for i := range interior {
		if interior[i] < 0 {
			return ir.OpErrorf(op, "has negative interior padding")
		}
		if want := low[i] + high[i] + st.Dims[i] + max(st.Dims[i]-1, 0)*interior[i]; want != rt.Dims[i] {
			return ir.OpErrorf(op, "has a result dimension %d of %d where the padding gives %d", i, rt.Dims[i], want)
		}
	}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		var inside *ir.Value
		ix := make([]*ir.Value, n)
		for i := 0; i < n; i++ {
			j := core.BinOp(bb, "arith.subi", core.LoopIndex(bb, i), c(low[i]))
			step := interior[i] + 1
			q := core.BinOp(bb, "arith.divsi", j, c(step))
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, j, c(0)), core.CmpI(bb, core.PredSLT, q, c(st.Dims[i])))
			if step > 1 {
				ok = core.BinOp(bb, "arith.andi", ok, core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remsi", j, c(step)), c(0)))
			}
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			q = bb.Create("arith.maxsi", []*ir.Value{q, c(0)}, []ir.Type{ir.Index}).Result(0)
			ix[i] = bb.Create("arith.minsi", []*ir.Value{q, c(st.Dims[i] - 1)}, []ir.Type{ir.Index}).Result(0)
		}
		pv := bb.Create("tensor.extract", []*ir.Value{padv}, []ir.Type{rt.Elem}).Result(0)
		if inside == nil { // rank 0
			return []*ir.Value{bb.Create("tensor.extract", []*ir.Value{src}, []ir.Type{rt.Elem}).Result(0)}
		}
		x := bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{rt.Elem}).Result(0)
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{inside, x, pv}, []ir.Type{rt.Elem}).Result(0)}
	})
	r.Replace(op, g.Results)
	return nil
}
