package linalgext

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// mapIndexRegion inlines the transformation region of a map_load or
// map_store at bb with its block arguments bound to ivs, expanding
// affine.linearize_index and affine.delinearize_index to arith; it
// returns the yielded values.
func mapIndexRegion(bb *ir.Builder, op *ir.Operation, ivs []*ir.Value) ([]*ir.Value, error) {
	blk := linalg.ExtBody(op)
	if blk == nil || len(blk.Args) != len(ivs) {
		return nil, ir.OpErrorf(op, "needs a region with one index argument per dimension")
	}
	m := ir.Mapping{}
	for i, a := range blk.Args {
		m[a] = ivs[i]
	}
	for _, o := range blk.Ops {
		vals := make([]*ir.Value, len(o.Operands))
		for i, v := range o.Operands {
			vals[i] = m.Lookup(v)
		}
		switch o.Name {
		case linalg.ExtYieldName:
			return vals, nil
		case "affine.linearize_index", "affine.delinearize_index":
			rs, err := expandIndexOp(bb, o, vals)
			if err != nil {
				return nil, err
			}
			for i, r := range rs {
				m[o.Results[i]] = r
			}
		default:
			if len(o.Regions) > 0 {
				return nil, ir.OpErrorf(o, "in a map_load/map_store region is not supported by gree")
			}
			bb.Clone(o, m)
		}
	}
	return nil, ir.OpErrorf(op, "has a region without %s", linalg.ExtYieldName)
}

// expandIndexOp rewrites affine.linearize_index (Σ i_k · Π_{j>k} b_j) and
// affine.delinearize_index (the mixed-radix digits, the first one not
// reduced modulo its bound) to index arithmetic.
func expandIndexOp(bb *ir.Builder, o *ir.Operation, vals []*ir.Value) ([]*ir.Value, error) {
	sb, ok := o.Attr("static_basis").(*ir.DenseArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(o, "needs a static_basis")
	}
	nIdx := len(vals)
	if a, ok := o.Attr("operandSegmentSizes").(*ir.DenseArrayAttr); ok && len(a.Ints) == 2 {
		nIdx = int(a.Ints[0])
	} else if o.Name == "affine.delinearize_index" {
		nIdx = 1
	}
	dyn := vals[nIdx:]
	var basis []*ir.Value
	for _, s := range sb.Ints {
		if s == minInt64 {
			if len(dyn) == 0 {
				return nil, ir.OpErrorf(o, "has fewer basis values than dynamic basis entries")
			}
			basis, dyn = append(basis, dyn[0]), dyn[1:]
		} else {
			basis = append(basis, bb.Constant(ir.IntAttr(s, ir.Index)))
		}
	}
	if o.Name == "affine.linearize_index" {
		idx := vals[:nIdx]
		if len(basis) != len(idx) && len(basis) != len(idx)-1 {
			return nil, ir.OpErrorf(o, "has %d indices for a basis of %d", len(idx), len(basis))
		}
		inner := basis[len(basis)-(len(idx)-1):] // the bounds of all but the first index
		acc := idx[0]
		for k := 1; k < len(idx); k++ {
			acc = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", acc, inner[k-1]), idx[k])
		}
		return []*ir.Value{acc}, nil
	}
	n := len(o.Results)
	if len(basis) != n && len(basis) != n-1 {
		return nil, ir.OpErrorf(o, "has %d results for a basis of %d", n, len(basis))
	}
	inner := basis[len(basis)-(n-1):]
	out := make([]*ir.Value, n)
	x := vals[0]
	for k := n - 1; k >= 1; k-- {
		out[k] = core.BinOp(bb, "arith.remui", x, inner[k-1])
		x = core.BinOp(bb, "arith.divui", x, inner[k-1])
	}
	out[0] = x
	return out, nil
}

const minInt64 = -1 << 63

// extMapLoad lowers iree_linalg_ext.map_load to a generic over the
// output: each element reads the source at the indices the region
// computes from its own, or takes the region's padding value when they
// fall outside the source.
func (r *rewriter) extMapLoad(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "needs a source, an output and one result")
	}
	src, out := op.Operands[0], op.Operands[1]
	st, ok1 := src.Type.(*ir.RankedTensorType)
	ot, ok2 := out.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 {
		return ir.OpErrorf(op, "needs ranked tensors")
	}
	n, rs := len(ot.Dims), len(st.Dims)
	dims := make([]*ir.Value, rs)
	for d := range dims {
		if st.Dims[d] >= 0 {
			dims[d] = b.Constant(ir.IntAttr(st.Dims[d], ir.Index))
		} else {
			dims[d] = linalg.Dim(b, src, d)
		}
	}
	var err error
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		ivs := make([]*ir.Value, n)
		for d := range ivs {
			ivs[d] = core.LoopIndex(bb, d)
		}
		ys, e := mapIndexRegion(bb, op, ivs)
		if e == nil && len(ys) != rs+1 {
			e = ir.OpErrorf(op, "must yield %d source indices and a padding value", rs)
		}
		if e != nil {
			err = e
			return args
		}
		zero := bb.Constant(ir.IntAttr(0, ir.Index))
		var inside *ir.Value
		ix := make([]*ir.Value, rs)
		for d := 0; d < rs; d++ {
			ok := core.CmpI(bb, 6, ys[d], dims[d]) // ult: also rejects negatives
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			last := core.BinOp(bb, "arith.subi", dims[d], bb.Constant(ir.IntAttr(1, ir.Index)))
			ix[d] = core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.maxsi", ys[d], zero), last)
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{ot.Elem}).Result(0)
		if inside != nil {
			v = bb.Create("arith.select", []*ir.Value{inside, v, ys[rs]}, []ir.Type{ot.Elem}).Result(0)
		}
		return []*ir.Value{v}
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}

// extMapStore lowers iree_linalg_ext.map_store to a core scatter: a
// generic computes each input element's output indices from the region
// (-1 where its mask is false, so the scatter skips it), and the scatter
// writes the input there.
func (r *rewriter) extMapStore(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "needs an input, an output and one result")
	}
	in, out := op.Operands[0], op.Operands[1]
	it, ok1 := in.Type.(*ir.RankedTensorType)
	ot, ok2 := out.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 {
		return ir.OpErrorf(op, "needs ranked tensors")
	}
	ri, ro := len(it.Dims), len(ot.Dims)
	idxDims := append(append([]int64{}, it.Dims...), int64(ro))
	var dyn []*ir.Value
	for d, sz := range it.Dims {
		if sz < 0 {
			dyn = append(dyn, linalg.Dim(b, in, d))
		}
	}
	e := b.Create("tensor.empty", dyn, []ir.Type{ir.Tensor(idxDims, ir.Index)}).Result(0)
	var err error
	g := linalg.BuildGeneric(b, nil, []*ir.Value{e}, []*ir.AffineMap{linalg.Identity(ri + 1)}, core.Parallel(ri+1), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		ivs := make([]*ir.Value, ri)
		for d := range ivs {
			ivs[d] = core.LoopIndex(bb, d)
		}
		ys, e := mapIndexRegion(bb, op, ivs)
		if e == nil && (len(ys) != ro+1 || !core.IsBool(ys[ro].Type)) {
			e = ir.OpErrorf(op, "must yield %d output indices and an i1 mask", ro)
		}
		if e != nil {
			err = e
			return args
		}
		k := core.LoopIndex(bb, ri)
		v := ys[0]
		for d := 1; d < ro; d++ {
			is := core.CmpI(bb, 0, k, bb.Constant(ir.IntAttr(int64(d), ir.Index)))
			v = bb.Create("arith.select", []*ir.Value{is, ys[d], v}, []ir.Type{ir.Index}).Result(0)
		}
		skip := bb.Constant(ir.IntAttr(-1, ir.Index))
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{ys[ro], v, skip}, []ir.Type{ir.Index}).Result(0)}
	})
	if err != nil {
		return err
	}
	dimMap := make([]int64, ro)
	for d := range dimMap {
		dimMap[d] = int64(d)
	}
	s := linalg.BuildScatter(b, in, g.Result(0), out, dimMap, ri, true, func(bb *ir.Builder, u, o *ir.Value) *ir.Value { return u })
	r.Replace(op, s.Results)
	return nil
}
