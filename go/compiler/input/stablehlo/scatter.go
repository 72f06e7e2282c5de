package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloScatter lowers stablehlo.scatter to gree's core scatter
// (iree_linalg_ext.scatter with batch_rank): the updates are rearranged
// to [update scatter dims…, one window dimension per operand dimension]
// (size 1 for inserted and batching dimensions) and the indices to
// [scatter dims…, index depth], where the depth lists the
// scatter_dims_to_operand_dims entries and then the batch coordinates of
// input_batching_dims.
func (r *rewriter) hloScatter(b *ir.Builder, op *ir.Operation) error {
	n := len(op.Results)
	blk := core.RegionBlock(op)
	if n == 0 || len(op.Operands) != 2*n+1 || blk == nil || len(blk.Args) != 2*n {
		return ir.OpErrorf(op, "needs N inputs, indices, N updates and an update computation of 2N arguments")
	}
	// Several inputs scatter one by one: each result's computation must
	// use only its own (input, update) pair.
	results := make([]*ir.Value, n)
	for k := 0; k < n; k++ {
		body := func(bb *ir.Builder, o, u *ir.Value) (*ir.Value, error) {
			args := make([]*ir.Value, 2*n)
			args[k], args[n+k] = o, u
			return hloScalarResult(bb, blk, args, k)
		}
		v, err := r.hloScatterOne(b, op, op.Operands[k], op.Operands[n], op.Operands[n+1+k], body)
		if err != nil {
			return err
		}
		results[k] = v
	}
	r.Replace(op, results)
	return nil
}

// hloScatterOne builds the core scatter of one input of op.
func (r *rewriter) hloScatterOne(b *ir.Builder, op *ir.Operation, operand, indices, updates *ir.Value,
	body func(bb *ir.Builder, o, u *ir.Value) (*ir.Value, error)) (*ir.Value, error) {
	ot, ok1 := operand.Type.(*ir.RankedTensorType)
	it, ok2 := indices.Type.(*ir.RankedTensorType)
	ut, ok3 := updates.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 {
		return nil, ir.OpErrorf(op, "needs ranked tensor operands")
	}
	if !ir.IsIntOrIndex(it.Elem) {
		return nil, ir.OpErrorf(op, "needs integer scatter indices")
	}
	dn := dimNumbers(attrText(op, "scatter_dimension_numbers"))
	uwd, iwd := dn["update_window_dims"], dn["inserted_window_dims"]
	ibd, sibd, sdod := dn["input_batching_dims"], dn["scatter_indices_batching_dims"], dn["scatter_dims_to_operand_dims"]
	ivd := 0 // the default when the attribute omits it
	if v, ok := dn["index_vector_dim"]; ok && len(v) == 1 {
		ivd = v[0]
	}
	ro, ru := len(ot.Dims), len(ut.Dims)
	var usd, windowed []int // update scatter dims; operand dims of the window
	for d := 0; d < ru; d++ {
		if !idxContains(uwd, d) {
			usd = append(usd, d)
		}
	}
	for d := 0; d < ro; d++ {
		if !idxContains(iwd, d) && !idxContains(ibd, d) {
			windowed = append(windowed, d)
		}
	}
	var isd []int // indices dims other than index_vector_dim
	for d := 0; d < len(it.Dims); d++ {
		if d != ivd {
			isd = append(isd, d)
		}
	}
	nsd := len(sdod)
	if len(windowed) != len(uwd) || len(usd) != len(isd) || len(ibd) != len(sibd) || ivd > len(it.Dims) ||
		(ivd == len(it.Dims) && nsd > 1) {
		return nil, ir.OpErrorf(op, "has scatter_dimension_numbers that do not match its operand ranks")
	}
	for _, d := range append(append(append([]int{}, sdod...), ibd...), iwd...) {
		if d < 0 || d >= ro {
			return nil, ir.OpErrorf(op, "has scatter_dimension_numbers outside the operand's rank")
		}
	}
	for _, d := range uwd {
		if d < 0 || d >= ru {
			return nil, ir.OpErrorf(op, "has update_window_dims outside the updates' rank")
		}
	}
	for _, d := range sibd {
		if d < 0 || d >= len(it.Dims) || d == ivd {
			return nil, ir.OpErrorf(op, "has scatter_indices_batching_dims outside the indices' batch dimensions")
		}
	}
	unique := false
	if a, ok := op.Attr("unique_indices").(*ir.BoolAttr); ok {
		unique = a.Value
	}
	updates = r.scatterUpdates(b, updates, usd, uwd, windowed, ro)
	indices = r.scatterIndices(b, indices, isd, ivd, nsd, sibd)
	var dimMap []int64
	for _, d := range append(append([]int{}, sdod...), ibd...) {
		dimMap = append(dimMap, int64(d))
	}
	var err error
	s := linalg.BuildScatter(b, updates, indices, operand, dimMap, len(usd), unique, func(bb *ir.Builder, u, o *ir.Value) *ir.Value {
		y, e := body(bb, o, u)
		if e != nil {
			err = e
			return o
		}
		return y
	})
	if err != nil {
		return nil, err
	}
	return s.Result(0), nil
}

// scatterUpdates rearranges updates to [update scatter dims…, window]
// where the window has one dimension per operand dimension (size 1 where
// the operand dimension is not windowed); updates whose window already
// covers the operand's trailing dimensions are returned as they are.
func (r *rewriter) scatterUpdates(b *ir.Builder, updates *ir.Value, usd, uwd, windowed []int, ro int) *ir.Value {
	ut := updates.Type.(*ir.RankedTensorType)
	var dims []int64
	var dyn []*ir.Value
	src := make([]int, 0, len(usd)+ro) // updates dim of each new dim, -1 for a unit dim
	for _, d := range usd {
		src = append(src, d)
	}
	for d := 0; d < ro; d++ {
		if k := idxIndexOf(windowed, d); k >= 0 {
			src = append(src, uwd[k])
		} else {
			src = append(src, -1)
		}
	}
	// Updates whose scatter dimensions lead and whose window covers the
	// operand's trailing dimensions in order need no rearranging: the
	// core scatter's slice is its trailing dimensions.
	trailing := len(windowed) == 0 || windowed[0] == ro-len(windowed)
	for i, d := range usd {
		trailing = trailing && d == i
	}
	for i := 1; i < len(windowed); i++ {
		trailing = trailing && windowed[i] == windowed[i-1]+1 && uwd[i] > uwd[i-1]
	}
	if trailing {
		return updates
	}
	identity := len(src) == len(ut.Dims)
	for i, s := range src {
		identity = identity && s == i
		if s < 0 {
			dims = append(dims, 1)
			continue
		}
		dims = append(dims, ut.Dims[s])
		if ut.Dims[s] < 0 {
			dyn = append(dyn, linalg.Dim(b, updates, s))
		}
	}
	if identity {
		return updates
	}
	nt := ir.Tensor(dims, ut.Elem)
	out := b.Create("tensor.empty", dyn, []ir.Type{nt}).Result(0)
	n := len(dims)
	m := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, len(ut.Dims))}
	for i, s := range src {
		if s >= 0 {
			m.Results[s] = &ir.AffineDimExpr{Pos: i}
		}
	}
	g := linalg.BuildGeneric(b, []*ir.Value{updates}, []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value { return a[:1] })
	return g.Result(0)
}

// scatterIndices rearranges scatter indices to [scatter dims…, depth]:
// the index vector (along ivd; implicit when ivd is the rank) followed by
// the batch coordinates named by sibd. Indices already in that form are
// returned as they are.
func (r *rewriter) scatterIndices(b *ir.Builder, indices *ir.Value, isd []int, ivd, nsd int, sibd []int) *ir.Value {
	it := indices.Type.(*ir.RankedTensorType)
	if ivd == len(it.Dims)-1 && len(sibd) == 0 {
		return indices
	}
	depth := nsd + len(sibd)
	var dims []int64
	var dyn []*ir.Value
	for _, d := range isd {
		dims = append(dims, it.Dims[d])
		if it.Dims[d] < 0 {
			dyn = append(dyn, linalg.Dim(b, indices, d))
		}
	}
	dims = append(dims, int64(depth))
	nt := ir.Tensor(dims, it.Elem)
	out := b.Create("tensor.empty", dyn, []ir.Type{nt}).Result(0)
	n := len(dims)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		k := core.LoopIndex(bb, n-1)
		var v *ir.Value
		if nsd > 0 {
			kk := k
			if len(sibd) > 0 {
				kk = core.BinOp(bb, "arith.minsi", k, bb.Constant(ir.IntAttr(int64(nsd-1), ir.Index)))
			}
			var ix []*ir.Value
			j := 0
			for d := range it.Dims {
				if d == ivd {
					ix = append(ix, kk)
				} else {
					ix = append(ix, core.LoopIndex(bb, j))
					j++
				}
			}
			v = bb.Create("tensor.extract", append([]*ir.Value{indices}, ix...), []ir.Type{it.Elem}).Result(0)
		}
		for j, sd := range sibd {
			p := sd
			if p > ivd {
				p--
			}
			c := core.Cast(bb, core.LoopIndex(bb, p), it.Elem)
			if v == nil {
				v = c
				continue
			}
			is := core.CmpI(bb, 0, k, bb.Constant(ir.IntAttr(int64(nsd+j), ir.Index)))
			v = bb.Create("arith.select", []*ir.Value{is, c, v}, []ir.Type{it.Elem}).Result(0)
		}
		return []*ir.Value{v}
	})
	return g.Result(0)
}
