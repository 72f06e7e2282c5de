package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hoistReshapes moves element-wise generics above the tensor.reshape that
// feeds them: g(reshape(x), y…, s…) becomes reshape(g(x, reshape(y)…,
// s…)) when g reads its tensors through identity maps, x's reshape has no
// other use and the other tensors y have g's shape (scalars s stay), so
// that g fuses with x's producer: a convolution's bias add and its
// activation then run in the matmul's epilogue instead of in a dispatch of
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
	// A generic that already reads its only-used producer directly stays
	// (this also keeps a hoisted generic from being hoisted back through
	// the reshapes added to its other tensors).
	for _, in := range g.Inputs() {
		if p := in.Owner(); p != nil && p.Name == linalg.GenericName && uses[in] == 1 {
			return false
		}
	}
	var reshape *ir.Operation
	at := -1
	var others []int // the other tensors read, reshaped along
	for i, in := range g.Inputs() {
		t, isT := in.Type.(*ir.RankedTensorType)
		if !isT || len(maps[i].Results) == 0 {
			continue
		}
		if !isIdentity(maps[i]) || !sameShape(t, ot) {
			return false
		}
		r := in.Owner()
		if at < 0 && r != nil && r.Name == "tensor.reshape" && uses[in] == 1 && r.Block() == op.Block() {
			p := r.Operands[0].Owner()
			if st, ok := r.Operands[0].Type.(*ir.RankedTensorType); ok && static(st) && len(st.Dims) > 0 && p != nil && p.Name == linalg.GenericName {
				reshape, at = r, i
				continue
			}
		}
		others = append(others, i)
	}
	if reshape == nil {
		return false
	}
	src := reshape.Operands[0]
	st := src.Type.(*ir.RankedTensorType)
	if !static(ot) {
		return false
	}
	n := len(st.Dims)
	id := &ir.AffineMap{NumDims: n}
	for d := 0; d < n; d++ {
		id.Results = append(id.Results, &ir.AffineDimExpr{Pos: d})
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	ins := append([]*ir.Value(nil), g.Inputs()...)
	ins[at] = src
	if len(others) > 0 {
		shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(n)}, ir.I64), Ints: st.Dims})
		for _, i := range others {
			t := ins[i].Type.(*ir.RankedTensorType)
			ins[i] = b.Create("tensor.reshape", []*ir.Value{ins[i], shape}, []ir.Type{&ir.RankedTensorType{Dims: st.Dims, Elem: t.Elem}}).Result(0)
		}
	}
	var newMaps []*ir.AffineMap
	for i := range ins {
		if t, isT := ins[i].Type.(*ir.RankedTensorType); isT && len(t.Dims) == n && len(maps[i].Results) > 0 {
			newMaps = append(newMaps, id)
		} else {
			newMaps = append(newMaps, &ir.AffineMap{NumDims: n})
		}
	}
	newMaps = append(newMaps, id)
	its := make([]linalg.Iterator, n)
	for i := range its {
		its[i] = linalg.Parallel
	}
	empty := b.Create("tensor.empty", nil, []ir.Type{&ir.RankedTensorType{Dims: st.Dims, Elem: ot.Elem}}).Result(0)
	ng := linalg.BuildGeneric(b, ins, []*ir.Value{empty}, newMaps, its, linalg.CloneBody(g.Body()))
	nr := b.Create("tensor.reshape", []*ir.Value{ng.Results[0], reshape.Operands[1]}, []ir.Type{op.Results[0].Type}).Result(0)
	ir.ReplaceAllUsesWith(fn, op.Results[0], nr)
	op.Erase()
	reshape.Erase()
	return true
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

func sameShape(a, b *ir.RankedTensorType) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

func static(t *ir.RankedTensorType) bool {
	for _, d := range t.Dims {
		if d < 0 {
			return false
		}
	}
	return true
}
