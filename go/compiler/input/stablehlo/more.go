package stablehlo

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// scalarOf extracts the element of a rank-0 tensor as an index value.
func scalarIndex(bb *ir.Builder, v *ir.Value) *ir.Value {
	x := bb.Create("tensor.extract", []*ir.Value{v}, []ir.Type{ir.ElementTypeOf(v.Type)}).Result(0)
	return bb.Create("arith.index_cast", []*ir.Value{x}, []ir.Type{ir.Index}).Result(0)
}

// stablehloMore converts pad, broadcast, dynamic_slice,
// dynamic_update_slice and CHLO's broadcasting binary ops; ok is false
// for other ops.
func (r *rewriter) stablehloMore(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	n := len(rt.Dims)
	switch name {
	case "pad":
		low, high, interior := core.IntsOf(op, "edge_padding_low"), core.IntsOf(op, "edge_padding_high"), core.IntsOf(op, "interior_padding")
		for i := range low {
			if low[i] < 0 || high[i] < 0 || (i < len(interior) && interior[i] != 0) {
				return true, r.hloPadGeneral(b, op, rt, low, high, interior)
			}
		}
		src, padv := op.Operands[0], op.Operands[1]
		st := src.Type.(*ir.RankedTensorType)
		offs, sizes := make([]core.Mixed, n), make([]core.Mixed, n)
		for i := range offs {
			offs[i], sizes[i] = core.Mixed{Static: low[i]}, core.Mixed{Static: st.Dims[i]}
		}
		out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
		g := core.PlaceInto(b, out, src, nil, offs, core.Ones(n), sizes, func(bb *ir.Builder, _ []*ir.Value, _ []*ir.Value) *ir.Value {
			return bb.Create("tensor.extract", []*ir.Value{padv}, []ir.Type{rt.Elem}).Result(0)
		})
		r.Replace(op, g.Results)
		return true, nil
	case "batch_norm_inference":
		// (x - mean) / sqrt(var + epsilon) * scale + offset along the
		// feature dimension.
		fi, ok := op.Attr("feature_index").(*ir.IntegerAttr)
		eps, ok2 := op.Attr("epsilon").(*ir.FloatAttr)
		ft, ok3 := rt.Elem.(*ir.FloatType)
		if !ok || !ok2 || !ok3 || len(op.Operands) != 5 {
			return true, ir.OpErrorf(op, "needs float elements, feature_index and epsilon")
		}
		f := linalg.DimMap(n, int(fi.Value))
		maps := []*ir.AffineMap{linalg.Identity(n), f, f, f, f, linalg.Identity(n)}
		out := linalg.EmptyLike(b, op.Operands[0], rt.Elem)
		// Operands: x, scale, offset, mean, variance.
		g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			t := []ir.Type{ft}
			e := bb.Constant(ir.FloatAttrOf(eps.Value, ft))
			d := bb.Create("arith.subf", []*ir.Value{a[0], a[3]}, t).Result(0)
			v := bb.Create("math.sqrt", []*ir.Value{bb.Create("arith.addf", []*ir.Value{a[4], e}, t).Result(0)}, t).Result(0)
			y := bb.Create("arith.mulf", []*ir.Value{bb.Create("arith.divf", []*ir.Value{d, v}, t).Result(0), a[1]}, t).Result(0)
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{y, a[2]}, t).Result(0)}
		})
		r.Replace(op, g.Results)
		return true, nil
	case "torch_index_select":
		// result[pre…, idx…, post…] = input[pre…, indices[idx…], post…]
		da, ok := op.Attr("dim").(*ir.IntegerAttr)
		ba, ok2 := op.Attr("batch_dims").(*ir.IntegerAttr)
		if !ok || !ok2 || ba.Value != 0 {
			return true, ir.OpErrorf(op, "with batch_dims other than 0 is not supported by gree yet")
		}
		src, idx := op.Operands[0], op.Operands[1]
		st, it := src.Type.(*ir.RankedTensorType), idx.Type.(*ir.RankedTensorType)
		dim, ni := int(da.Value), len(it.Dims)
		out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
		g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ii []*ir.Value
			for j := 0; j < ni; j++ {
				ii = append(ii, core.LoopIndex(bb, dim+j))
			}
			k := bb.Create("tensor.extract", append([]*ir.Value{idx}, ii...), []ir.Type{it.Elem}).Result(0)
			k = bb.Create("arith.index_cast", []*ir.Value{k}, []ir.Type{ir.Index}).Result(0)
			var sx []*ir.Value
			for d := 0; d < len(st.Dims); d++ {
				switch {
				case d < dim:
					sx = append(sx, core.LoopIndex(bb, d))
				case d == dim:
					sx = append(sx, k)
				default:
					sx = append(sx, core.LoopIndex(bb, d-1+ni))
				}
			}
			return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{src}, sx...), []ir.Type{rt.Elem}).Result(0)}
		})
		r.Replace(op, g.Results)
		return true, nil
	case "broadcast":
		in := op.Operands[0].Type.(*ir.RankedTensorType)
		m := linalg.DimMap(n)
		for i := range in.Dims {
			m.Results = append(m.Results, &ir.AffineDimExpr{Pos: n - len(in.Dims) + i})
		}
		out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
		g := linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n),
			func(bb *ir.Builder, a []*ir.Value) []*ir.Value { return a[:1] })
		r.Replace(op, g.Results)
		return true, nil
	case "dynamic_slice":
		src := op.Operands[0]
		st := src.Type.(*ir.RankedTensorType)
		out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
		var starts []*ir.Value
		for i, s := range op.Operands[1:] {
			starts = append(starts, core.ClampStart(b, scalarIndex(b, s), st.Dims[i], rt.Dims[i]))
		}
		g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for i := 0; i < n; i++ {
				ix = append(ix, core.BinOp(bb, "arith.addi", starts[i], core.LoopIndex(bb, i)))
			}
			return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{rt.Elem}).Result(0)}
		})
		r.Replace(op, g.Results)
		return true, nil
	case "dynamic_update_slice":
		target, update := op.Operands[0], op.Operands[1]
		ut := update.Type.(*ir.RankedTensorType)
		offs, sizes := make([]core.Mixed, n), make([]core.Mixed, n)
		for i, s := range op.Operands[2:] {
			offs[i] = core.Mixed{Dyn: core.ClampStart(b, scalarIndex(b, s), rt.Dims[i], ut.Dims[i])}
			sizes[i] = core.Mixed{Static: ut.Dims[i]}
		}
		out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
		g := core.PlaceInto(b, out, update, []*ir.Value{target}, offs, core.Ones(n), sizes,
			func(bb *ir.Builder, args []*ir.Value, _ []*ir.Value) *ir.Value { return args[0] })
		r.Replace(op, g.Results)
		return true, nil
	}
	return false, nil
}

// chlo converts CHLO's broadcasting binary ops (numpy-style broadcasting,
// or the given broadcast_dimensions) to element-wise generics.
func (r *rewriter) chlo(b *ir.Builder, op *ir.Operation) error {
	if op.Name == "chlo.top_k" {
		return r.chloTopK(b, op)
	}
	if done, err := r.chloExtra(b, op); done || err != nil {
		return err
	}
	name := strings.TrimPrefix(op.Name, "chlo.broadcast_")
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok || !ir.HasStaticShape(rt) || !strings.HasPrefix(op.Name, "chlo.broadcast_") || len(op.Operands) != 2 {
		return ir.OpErrorf(op, "is not supported by gree yet")
	}
	n := len(rt.Dims)
	bdims := core.IntsOf(op, "broadcast_dimensions")
	var maps []*ir.AffineMap
	for oi, v := range op.Operands {
		t := v.Type.(*ir.RankedTensorType)
		m := &ir.AffineMap{NumDims: n}
		for i, d := range t.Dims {
			pos := n - len(t.Dims) + i
			if len(bdims) == len(t.Dims) && oi == 0 && len(t.Dims) < n {
				pos = int(bdims[i])
			}
			if d == 1 && rt.Dims[pos] != 1 {
				m.Results = append(m.Results, &ir.AffineConstantExpr{Value: 0})
			} else {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: pos})
			}
		}
		maps = append(maps, m)
	}
	et := ir.ElementTypeOf(op.Operands[0].Type)
	var body func(bb *ir.Builder, a []*ir.Value) *ir.Value
	if name == "compare" {
		dir := strings.Fields(strings.Trim(strings.TrimPrefix(attrText(op, "comparison_direction"), "#chlo<comparison_direction"), "> "))
		if len(dir) != 1 {
			return ir.OpErrorf(op, "has no comparison_direction")
		}
		body = func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			if ir.IsFloat(et) {
				return core.Cmp(bb, "arith.cmpf", hloDirections[dir[0]][0], a[0], a[1])
			}
			return core.Cmp(bb, "arith.cmpi", hloDirections[dir[0]][1], a[0], a[1])
		}
	} else {
		ops, ok := hloElementwise[name]
		if !ok || ops[core.ElemKind(et)] == "" {
			return ir.OpErrorf(op, "is not supported by gree yet")
		}
		body = func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return bb.Create(ops[core.ElemKind(et)], a, []ir.Type{rt.Elem}).Result(0)
		}
	}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	maps = append(maps, linalg.Identity(n))
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{body(bb, a[:2])}
	})
	r.Replace(op, g.Results)
	return nil
}
