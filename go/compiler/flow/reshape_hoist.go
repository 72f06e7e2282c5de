package flow

import (
	"slices"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hoistReshapes moves element-wise generics above the reshape
// (tensor.reshape, expand_shape, collapse_shape, or a chain of them) that
// feeds them: g(reshape(x), y…, s…) becomes reshape(g(x, y'…, s…)) when
// g's output and x's reshape are indexed by identity maps, the reshape has
// no other use, and every other tensor y is read either like g's output
// (y' = reshape(y)) or, when each of g's loops is a run of x's dimensions
// merged (or a unit dimension added or dropped), through any projection
// of g's loops (a bias broadcast along rows: y' is y reshaped to x's
// dimensions, indexed by x's loops); scalars s stay. g then fuses with
// x's producer: a convolution's or a linear layer's bias add and its
// activation run in the matmul's epilogue instead of in a dispatch of
// their own, and so does a residual connection's add.
func hoistReshapes(fn *ir.Operation) (changed bool) {
	for {
		uses := users(fn)
		var done bool
		fn.Walk(func(op *ir.Operation) bool {
			if done {
				return false
			}
			if op.Name != linalg.GenericName {
				return true
			}
			if hoistReshape(fn, op, uses) {
				done = true
			}
			return false
		})
		if !done {
			return changed
		}
		changed = true
	}
}

// hoistReshape rewrites one generic op when it qualifies.
func hoistReshape(fn, op *ir.Operation, uses map[*ir.Value]int) bool {
	g, ok := linalg.AsGeneric(op)
	if !ok || len(op.Results) != 1 || !g.IsElementwise() {
		return false
	}
	maps := g.Maps()
	out := g.Outputs()[0]
	ot, ok := out.Type.(*ir.RankedTensorType)
	if !ok || !isIdentity(maps[g.NumInputs()]) || usedIn(g.Body().Args[g.NumInputs()], g.Body()) {
		return false
	}
	if e := out.Owner(); e == nil || e.Name != "tensor.empty" || len(e.Operands) != 0 {
		return false
	}
	for _, b := range g.Body().Ops {
		if b.Name == "linalg.index" {
			return false // its loops change
		}
	}
	// A generic that already reads its only-used producer directly stays
	// (this also keeps a hoisted generic from being hoisted back through
	// the reshapes added to its other tensors).
	for _, in := range g.Inputs() {
		if p := in.Owner(); p != nil && p.Name == linalg.GenericName && uses[in] == 1 {
			return false
		}
	}
	var reshapes []*ir.Operation // the chain g reads x through, g's operand first
	at := -1
	var others []int // the other tensors read
	for i, in := range g.Inputs() {
		t, isT := in.Type.(*ir.RankedTensorType)
		if !isT || len(maps[i].Results) == 0 {
			continue
		}
		r := in.Owner()
		if at < 0 && isIdentity(maps[i]) && sameShape(t, ot) && isReshapeIn(r, in, op, uses) {
			// A chain of reshapes is one reshape of its first source.
			chain := []*ir.Operation{r}
			for q := r.Operands[0].Owner(); isReshapeIn(q, r.Operands[0], op, uses); q = r.Operands[0].Owner() {
				chain, r = append(chain, q), q
			}
			p := r.Operands[0].Owner()
			if st, ok := r.Operands[0].Type.(*ir.RankedTensorType); ok && static(st) && len(st.Dims) > 0 && p != nil && p.Name == linalg.GenericName {
				reshapes, at = chain, i
				continue
			}
		}
		others = append(others, i)
	}
	if reshapes == nil || !static(ot) {
		return false
	}
	src := reshapes[len(reshapes)-1].Operands[0]
	st := src.Type.(*ir.RankedTensorType)
	n := len(st.Dims)
	id := &ir.AffineMap{NumDims: n}
	for d := 0; d < n; d++ {
		id.Results = append(id.Results, &ir.AffineDimExpr{Pos: d})
	}
	// groups[d] are x's dimensions that g's loop d spans.
	groups := dimGroups(st.Dims, ot.Dims)
	newMaps := make([]*ir.AffineMap, len(g.Inputs()), len(g.Inputs())+1)
	var shapes [][]int64 // the shape each other tensor is reshaped to
	for i := range g.Inputs() {
		newMaps[i] = &ir.AffineMap{NumDims: n}
	}
	newMaps[at] = id
	for _, i := range others {
		t := g.Inputs()[i].Type.(*ir.RankedTensorType)
		if isIdentity(maps[i]) && sameShape(t, ot) {
			newMaps[i] = id
			shapes = append(shapes, st.Dims)
			continue
		}
		m, dims, ok := throughGroups(maps[i], t, ot, groups, st.Dims, n)
		if !ok {
			return false
		}
		newMaps[i] = m
		shapes = append(shapes, dims)
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	ins := append([]*ir.Value(nil), g.Inputs()...)
	ins[at] = src
	for k, i := range others {
		t := ins[i].Type.(*ir.RankedTensorType)
		if slices.Equal(t.Dims, shapes[k]) {
			continue
		}
		shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(shapes[k]))}, ir.I64), Ints: shapes[k]})
		ins[i] = b.Create("tensor.reshape", []*ir.Value{ins[i], shape}, []ir.Type{&ir.RankedTensorType{Dims: shapes[k], Elem: t.Elem}}).Result(0)
	}
	newMaps = append(newMaps, id)
	its := make([]linalg.Iterator, n)
	for i := range its {
		its[i] = linalg.Parallel
	}
	empty := b.Create("tensor.empty", nil, []ir.Type{&ir.RankedTensorType{Dims: st.Dims, Elem: ot.Elem}}).Result(0)
	ng := linalg.BuildGeneric(b, ins, []*ir.Value{empty}, newMaps, its, linalg.CloneBody(g.Body()))
	var outShape *ir.Value
	if r := reshapes[0]; r.Name == "tensor.reshape" {
		outShape = r.Operands[1]
	} else {
		outShape = b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(ot.Dims))}, ir.I64), Ints: ot.Dims})
	}
	nr := b.Create("tensor.reshape", []*ir.Value{ng.Results[0], outShape}, []ir.Type{op.Results[0].Type}).Result(0)
	ir.ReplaceAllUsesWith(fn, op.Results[0], nr)
	op.Erase()
	for _, r := range reshapes {
		r.Erase()
	}
	return true
}

// isReshapeIn reports whether r is a reshape (tensor.reshape,
// expand_shape or collapse_shape) in op's block whose result v has no use
// but one.
func isReshapeIn(r *ir.Operation, v *ir.Value, op *ir.Operation, uses map[*ir.Value]int) bool {
	return r != nil && linalg.IsReshape(r) && uses[v] == 1 && r.Block() == op.Block()
}

func isIdentity(m *ir.AffineMap) bool {
	if m.NumDims != len(m.Results) {
		return false
	}
	for i, r := range m.Results {
		d, ok := r.(*ir.AffineDimExpr)
		if !ok || d.Pos != i {
			return false
		}
	}
	return true
}

func sameShape(a, b *ir.RankedTensorType) bool { return slices.Equal(a.Dims, b.Dims) }

func static(t *ir.RankedTensorType) bool {
	for _, d := range t.Dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// dimGroups pairs the dimensions of out, a reshape of src that only
// merges runs of consecutive dimensions and adds or drops unit ones, with
// src's: the result holds, for each of out's dimensions, the consecutive
// src dimensions whose product it is (none for an added unit dimension);
// nil when no such grouping exists (a dimension of src split).
func dimGroups(src, out []int64) [][]int {
	groups := make([][]int, len(out))
	j := 0
	for i, d := range out {
		if d == 1 {
			if j < len(src) && src[j] == 1 {
				groups[i] = []int{j}
				j++
			}
			continue
		}
		prod := int64(1)
		for j < len(src) && prod < d {
			prod *= src[j]
			groups[i] = append(groups[i], j)
			j++
		}
		if prod != d {
			return nil
		}
	}
	for ; j < len(src); j++ {
		if src[j] != 1 {
			return nil
		}
	}
	return groups
}

// throughGroups re-expresses a tensor's map m (over the loops of g's
// output ot, t the tensor's type) over the n loops of the reshape's
// source through groups (see dimGroups): the map's results must be whole
// loops (the tensor as long as g's output along each); the tensor's
// dimension at a loop is split into the source dimensions of its group
// (dropped for a unit loop the source lacks). It returns the new map and
// the tensor's new shape.
func throughGroups(m *ir.AffineMap, t, ot *ir.RankedTensorType, groups [][]int, src []int64, n int) (*ir.AffineMap, []int64, bool) {
	if groups == nil || !static(t) || len(m.Results) != len(t.Dims) {
		return nil, nil, false
	}
	nm := &ir.AffineMap{NumDims: n}
	var dims []int64
	for k, r := range m.Results {
		d, ok := r.(*ir.AffineDimExpr)
		if !ok || d.Pos >= len(groups) || t.Dims[k] != ot.Dims[d.Pos] {
			return nil, nil, false
		}
		for _, j := range groups[d.Pos] {
			nm.Results = append(nm.Results, &ir.AffineDimExpr{Pos: j})
			dims = append(dims, src[j])
		}
	}
	return nm, dims, true
}
