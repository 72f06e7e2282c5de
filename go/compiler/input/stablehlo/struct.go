package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// stablehloStructural converts StableHLO's data-movement, contraction and
// reduction ops.
func (r *rewriter) stablehloStructural(b *ir.Builder, op *ir.Operation, name string) error {
	rt, _ := op.Results[0].Type.(*ir.RankedTensorType)
	// Contractions and reductions size dynamic results from their operands.
	dynOK := name == "dot" || name == "dot_general" || name == "reduce"
	if rt == nil || (!ir.HasStaticShape(rt) && !dynOK) {
		return ir.OpErrorf(op, "with dynamic or unranked results is not supported by gree yet")
	}
	n := len(rt.Dims)
	if err := verifyHLOShape(op, name, rt); err != nil {
		return err
	}
	if done, err := r.stablehloMore(b, op, name, rt); done || err != nil {
		return err
	}
	out := func() *ir.Value { return b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0) }
	copyBody := func(bb *ir.Builder, args []*ir.Value) []*ir.Value { return args[:1] }
	var g *ir.Operation
	switch name {
	case "broadcast_in_dim":
		dims := core.IntsOf(op, "broadcast_dimensions")
		in := op.Operands[0].Type.(*ir.RankedTensorType)
		m := &ir.AffineMap{NumDims: n}
		for i, d := range dims {
			if in.Dims[i] == 1 && rt.Dims[d] != 1 {
				m.Results = append(m.Results, &ir.AffineConstantExpr{Value: 0})
			} else {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: int(d)})
			}
		}
		g = linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out()}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
	case "transpose":
		perm := core.IntsOf(op, "permutation")
		m := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, n)}
		for i, p := range perm {
			m.Results[p] = &ir.AffineDimExpr{Pos: i}
		}
		g = linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out()}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
	case "reverse":
		rev := map[int]bool{}
		for _, d := range core.IntsOf(op, "dimensions") {
			rev[int(d)] = true
		}
		m := &ir.AffineMap{NumDims: n}
		for i := 0; i < n; i++ {
			var e ir.AffineExpr = &ir.AffineDimExpr{Pos: i}
			if rev[i] {
				e = ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, e, &ir.AffineConstantExpr{Value: -1}), &ir.AffineConstantExpr{Value: rt.Dims[i] - 1})
			}
			m.Results = append(m.Results, e)
		}
		g = linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out()}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
	case "slice":
		start, limit, strides := core.IntsOf(op, "start_indices"), core.IntsOf(op, "limit_indices"), core.IntsOf(op, "strides")
		_ = limit
		m := &ir.AffineMap{NumDims: n}
		for i := 0; i < n; i++ {
			e := ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: i}, &ir.AffineConstantExpr{Value: strides[i]}), &ir.AffineConstantExpr{Value: start[i]})
			m.Results = append(m.Results, e)
		}
		g = linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out()}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), copyBody)
	case "iota":
		a, ok := op.Attr("iota_dimension").(*ir.IntegerAttr)
		if !ok || a.Value < 0 || int(a.Value) >= n {
			return ir.OpErrorf(op, "needs an iota_dimension within the result rank")
		}
		d := int(a.Value)
		g = linalg.BuildGeneric(b, nil, []*ir.Value{out()}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)
			if ir.IsFloat(rt.Elem) {
				return []*ir.Value{bb.Create("arith.sitofp", []*ir.Value{i}, []ir.Type{rt.Elem}).Result(0)}
			}
			return []*ir.Value{core.Cast(bb, i, rt.Elem)}
		})
	case "reshape":
		shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(n)}, ir.I64), Ints: rt.Dims})
		res := b.Create("tensor.reshape", []*ir.Value{op.Operands[0], shape}, []ir.Type{rt})
		r.Replace(op, res.Results)
		return nil
	case "concatenate":
		d := int64(0)
		if a, ok := op.Attr("dimension").(*ir.IntegerAttr); ok {
			d = a.Value
		}
		// Operands with no elements (lax.associative_scan slices [0:0])
		// add nothing; a kernel must not read them.
		var ins []*ir.Value
		for _, v := range op.Operands {
			if t, ok := v.Type.(*ir.RankedTensorType); !ok || !ir.HasStaticShape(t) || numElements(t) > 0 {
				ins = append(ins, v)
			}
		}
		if len(ins) == 1 && ir.TypesEqual(ins[0].Type, rt) {
			r.Replace(op, ins)
			return nil
		}
		if len(ins) == 0 {
			ins = op.Operands[:1]
		}
		c := b.Create("tensor.concat", ins, []ir.Type{rt}, ir.Named("dim", ir.IntAttr(d, ir.I64)))
		r.Replace(op, c.Results)
		b.SetInsertionPointBefore(c)
		return r.Concat(b, c)
	case "dot", "dot_general":
		return r.hloDot(b, op, rt)
	case "reduce":
		return r.hloReduce(b, op, rt)
	case "convolution":
		return r.hloConvolution(b, op, rt)
	case "reduce_window":
		return r.hloReduceWindow(b, op, rt)

	default:
		return ir.OpErrorf(op, "is not supported by gree yet")
	}
	r.Replace(op, g.Results)
	return nil
}

// hloDot lowers dot and dot_general to a contraction generic: loops are
// batch, lhs free, rhs free, then contracting dimensions.
func (r *rewriter) hloDot(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	lt := op.Operands[0].Type.(*ir.RankedTensorType)
	rtt := op.Operands[1].Type.(*ir.RankedTensorType)
	dn := map[string][]int{}
	if op.Name == "stablehlo.dot" {
		dn["lhs_contracting"] = []int{len(lt.Dims) - 1}
		dn["rhs_contracting"] = []int{0}
	} else {
		dn = dotDimensionNumbers(attrText(op, "dot_dimension_numbers"))
	}
	lb, lc, rb, rc := dn["lhs_batching"], dn["lhs_contracting"], dn["rhs_batching"], dn["rhs_contracting"]
	in := func(x int, s []int) bool {
		for _, y := range s {
			if x == y {
				return true
			}
		}
		return false
	}
	var lfree, rfree []int
	for i := range lt.Dims {
		if !in(i, lb) && !in(i, lc) {
			lfree = append(lfree, i)
		}
	}
	for i := range rtt.Dims {
		if !in(i, rb) && !in(i, rc) {
			rfree = append(rfree, i)
		}
	}
	nb, nl, nr, nc := len(lb), len(lfree), len(rfree), len(lc)
	n := nb + nl + nr + nc
	if nb+nl+nr != len(rt.Dims) || len(rc) != nc || len(rb) != nb {
		return ir.OpErrorf(op, "has dimension numbers that do not match its operand and result ranks")
	}
	lm := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, len(lt.Dims))}
	rm := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, len(rtt.Dims))}
	om := linalg.Identity(n)
	om.Results = om.Results[:nb+nl+nr]
	its := make([]linalg.Iterator, n)
	for i := 0; i < nb; i++ {
		lm.Results[lb[i]] = &ir.AffineDimExpr{Pos: i}
		rm.Results[rb[i]] = &ir.AffineDimExpr{Pos: i}
	}
	for i, d := range lfree {
		lm.Results[d] = &ir.AffineDimExpr{Pos: nb + i}
	}
	for i, d := range rfree {
		rm.Results[d] = &ir.AffineDimExpr{Pos: nb + nl + i}
	}
	for i := 0; i < nc; i++ {
		lm.Results[lc[i]] = &ir.AffineDimExpr{Pos: nb + nl + nr + i}
		rm.Results[rc[i]] = &ir.AffineDimExpr{Pos: nb + nl + nr + i}
		its[nb+nl+nr+i] = linalg.Reduction
	}
	// Products of 16- and 8-bit floats are summed in f32 and rounded once
	// at the end, as XLA does (summing in bf16 loses most of the digits).
	acc := ir.Tensor(rt.Dims, rt.Elem)
	if ft, ok := rt.Elem.(*ir.FloatType); ok && ft.Kind.Width() < 32 {
		acc = ir.Tensor(rt.Dims, ir.F32)
	}
	var zero *ir.Value
	if ft, ok := acc.Elem.(*ir.FloatType); ok {
		zero = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		zero = b.Constant(ir.IntAttr(0, rt.Elem))
	}
	// Result dimensions: batch, lhs free, rhs free (a dynamic one is the
	// size of the operand dimension it comes from).
	srcs := make([][2]int, 0, len(rt.Dims))
	for _, d := range lb {
		srcs = append(srcs, [2]int{0, d})
	}
	for _, d := range lfree {
		srcs = append(srcs, [2]int{0, d})
	}
	for _, d := range rfree {
		srcs = append(srcs, [2]int{1, d})
	}
	size := func(i int) *ir.Value { return linalg.Dim(b, op.Operands[srcs[i][0]], srcs[i][1]) }
	e := emptyFrom(b, acc, size)
	k := len(rt.Dims)
	fill := linalg.BuildGeneric(b, []*ir.Value{zero}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, acc))
	g := linalg.BuildGeneric(b, op.Operands[:2], fill.Results, []*ir.AffineMap{lm, rm, om}, its, core.MulAdd)
	if !ir.TypesEqual(acc.Elem, rt.Elem) {
		id := linalg.Identity(k)
		g = linalg.BuildGeneric(b, g.Results, []*ir.Value{linalg.EmptyLike(b, g.Result(0), rt.Elem)}, []*ir.AffineMap{id, id}, core.Parallel(k),
			func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
				return []*ir.Value{core.Cast(bb, args[0], rt.Elem)}
			})
	}
	r.Replace(op, g.Results)
	return nil
}

// hloReduce lowers stablehlo.reduce (N inputs, N inits, N results) whose
// body combines rank-0 tensors with element-wise, compare and select ops.
// The body's first N arguments are the accumulators, the next N the
// input elements.
func (r *rewriter) hloReduce(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	nres := len(op.Results)
	blk := core.RegionBlock(op)
	if blk == nil || len(op.Operands) != 2*nres || len(blk.Args) != 2*nres {
		return ir.OpErrorf(op, "has a malformed body or operand list")
	}
	ins, inits := op.Operands[:nres], op.Operands[nres:]
	it := ins[0].Type.(*ir.RankedTensorType)
	n := len(it.Dims)
	red := map[int]bool{}
	for _, d := range core.IntsOf(op, "dimensions") {
		red[int(d)] = true
	}
	om := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	for i := 0; i < n; i++ {
		if red[i] {
			its[i] = linalg.Reduction
		} else {
			om.Results = append(om.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	var outs []*ir.Value
	var maps []*ir.AffineMap
	for range ins {
		maps = append(maps, linalg.Identity(n))
	}
	var kept []int // the input dimensions the results keep
	for i := 0; i < n; i++ {
		if !red[i] {
			kept = append(kept, i)
		}
	}
	for i, init := range inits {
		t := op.Results[i].Type.(*ir.RankedTensorType)
		k := len(t.Dims)
		if k != len(kept) {
			return ir.OpErrorf(op, "has result %d of rank %d, but its input keeps %d dimensions", i, k, len(kept))
		}
		e := emptyFrom(b, t, func(j int) *ir.Value { return linalg.Dim(b, ins[0], kept[j]) })
		filled := linalg.BuildGeneric(b, []*ir.Value{init}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, t))
		outs = append(outs, filled.Result(0))
		maps = append(maps, om)
	}
	var err error
	g := linalg.BuildGeneric(b, ins, outs, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		// Block arguments: the accumulators, then the input elements.
		vals, e := hloScalarBody(bb, blk, append(append([]*ir.Value{}, args[nres:]...), args[:nres]...))
		if e != nil {
			err = e
			return args[nres:]
		}
		return vals
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}

func trimHLO(name string) string {
	if len(name) > len("stablehlo.") && name[:len("stablehlo.")] == "stablehlo." {
		return name[len("stablehlo."):]
	}
	return name
}

// emptyFrom creates tensor.empty of type t, with dimension i of a dynamic
// size given by size(i).
func emptyFrom(b *ir.Builder, t *ir.RankedTensorType, size func(i int) *ir.Value) *ir.Value {
	var dyn []*ir.Value
	for i, d := range t.Dims {
		if d < 0 {
			dyn = append(dyn, size(i))
		}
	}
	return b.Create("tensor.empty", dyn, []ir.Type{t}).Result(0)
}

func numElements(t *ir.RankedTensorType) int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}
