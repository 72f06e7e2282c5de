package flow

import (
	"slices"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// collapseContracts rewrites multiply-add generics that are matmuls once
// loops always used together are merged: a transformer's feed-forward
// (1×128×256 by 256×1024: two row loops that only A and C use), a
// multi-head attention's batched products (batch and head loops that all
// three operands use), an LSTM's input projection. Codegen recognizes a
// contraction by one loop per role (batch, M, N, K); such generics ran as
// plain loop nests, one workgroup per row, at a tenth of the GEMM's speed.
//
// Loops i and j merge when they have the same iterator type and every
// operand that indexes either indexes both, j right after i, so that the
// operands' static tensors reshape to the merged form without moving data
// (tensor.reshape, a view on the host). The accumulator's fill is rebuilt
// at the merged shape, so codegen still sees a zero-initialized matmul.
func collapseContracts(fn *ir.Operation) { rewriteGenerics(fn, collapseContract) }

// rewriteGenerics applies rewrite to each generic of fn (not to those in
// another generic's body) and then erases the fills the rewrites left
// unused.
func rewriteGenerics(fn *ir.Operation, rewrite func(fn, op *ir.Operation) bool) {
	var todo []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == linalg.GenericName {
			todo = append(todo, op)
			return false
		}
		return true
	})
	changed := false
	for _, op := range todo {
		changed = rewrite(fn, op) || changed
	}
	if changed {
		eraseDeadInits(fn)
	}
}

// eraseDeadInits erases the fills (and their tensor.empty) that the
// merged contractions no longer use.
func eraseDeadInits(fn *ir.Operation) {
	for {
		uses := users(fn)
		var dead []*ir.Operation
		fn.Walk(func(op *ir.Operation) bool {
			if (op.Name == linalg.GenericName || op.Name == "tensor.empty") && len(op.Results) == 1 && uses[op.Results[0]] == 0 {
				if g, ok := linalg.AsGeneric(op); !ok || isFill(g) {
					dead = append(dead, op)
				}
			}
			return op.Name != linalg.GenericName
		})
		if len(dead) == 0 {
			return
		}
		for _, op := range dead {
			op.Erase()
		}
	}
}

// isFill reports whether g broadcasts scalars into a tensor.empty.
func isFill(g linalg.Generic) bool {
	maps := g.Maps()
	for i := range g.Inputs() {
		if len(maps[i].Results) != 0 {
			return false
		}
	}
	empty := g.Outputs()[0].Owner()
	return len(g.Op.Results) == 1 && empty != nil && empty.Name == "tensor.empty" && len(empty.Operands) == 0 && isIdentity(maps[len(maps)-1])
}

// collapseContract rewrites op when merging its loops makes it a matmul.
func collapseContract(fn, op *ir.Operation) bool {
	g, ok := linalg.AsGeneric(op)
	if !ok || g.NumInputs() != 2 || len(op.Results) != 1 || !linalg.IsMulAddBody(g) {
		return false
	}
	maps, its := g.Maps(), g.Iterators()
	if _, ok := linalg.MatchContractMaps(maps, its); ok {
		return false
	}
	operands := op.Operands
	// Unit dimensions an operand indexes with the constant 0 (an LSTM's
	// one direction) are dropped along the way.
	dims := make([][]int64, len(maps))
	dropped := false
	for i, v := range operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || !static(t) {
			return false
		}
		var keep []ir.AffineExpr
		for r, e := range maps[i].Results {
			if c, isConst := e.(*ir.AffineConstantExpr); isConst && c.Value == 0 && t.Dims[r] == 1 {
				dropped = true
				continue
			}
			keep = append(keep, e)
			dims[i] = append(dims[i], t.Dims[r])
		}
		maps[i] = &ir.AffineMap{NumDims: maps[i].NumDims, Results: keep}
		if !dimsOnly(maps[i]) {
			return false
		}
	}
	groups := mergeableLoops(maps, len(its), its)
	if len(groups) == len(its) && !dropped {
		return false
	}
	newLoop := make([]int, len(its)) // old loop → new loop (group index)
	newIts := make([]linalg.Iterator, len(groups))
	for gi, grp := range groups {
		for _, l := range grp {
			newLoop[l] = gi
		}
		newIts[gi] = its[grp[0]]
	}
	newMaps := make([]*ir.AffineMap, len(maps))
	shapes := make([][]int64, len(maps))
	for i, m := range maps {
		nm := &ir.AffineMap{NumDims: len(groups)}
		for r := 0; r < len(m.Results); r++ {
			l := m.Results[r].(*ir.AffineDimExpr).Pos
			size := dims[i][r]
			for range groups[newLoop[l]][1:] {
				r++
				size *= dims[i][r]
			}
			nm.Results = append(nm.Results, &ir.AffineDimExpr{Pos: newLoop[l]})
			shapes[i] = append(shapes[i], size)
		}
		newMaps[i] = nm
	}
	if _, ok := linalg.MatchContractMaps(newMaps, newIts); !ok {
		return false
	}
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	ins := make([]*ir.Value, 2)
	for i := range ins {
		ins[i] = reshapeTo(b, operands[i], shapes[i])
	}
	out := collapsedInit(b, operands[2], shapes[2])
	ng := linalg.BuildGeneric(b, ins, []*ir.Value{out}, newMaps, newIts, linalg.CloneBody(g.Body()))
	res := reshapeTo(b, ng.Results[0], op.Results[0].Type.(*ir.RankedTensorType).Dims)
	ir.ReplaceAllUsesWith(fn, op.Results[0], res)
	op.Erase()
	return true
}

// mergeableLoops groups the loops (in order) into runs that every map
// indexes together: loop j joins i's group when they share an iterator
// type and each map either indexes neither or indexes j right after i.
func mergeableLoops(maps []*ir.AffineMap, n int, its []linalg.Iterator) [][]int {
	pos := make([][]int, len(maps)) // map → loop → result position or -1
	for i, m := range maps {
		pos[i] = make([]int, n)
		for l := range pos[i] {
			pos[i][l] = -1
		}
		for r, e := range m.Results {
			pos[i][e.(*ir.AffineDimExpr).Pos] = r
		}
	}
	// next[l]: the loop every map using l indexes right after it, or -1.
	next := make([]int, n)
	for l := range next {
		next[l] = -1
		cand, ok, used := -1, true, false
		for i, m := range maps {
			p := pos[i][l]
			if p < 0 {
				continue
			}
			used = true
			if p+1 >= len(m.Results) {
				ok = false
				break
			}
			j := m.Results[p+1].(*ir.AffineDimExpr).Pos
			if cand >= 0 && cand != j {
				ok = false
				break
			}
			cand = j
		}
		if !ok || !used || cand < 0 || its[cand] != its[l] {
			continue
		}
		// Every map using cand must use l right before it.
		for i := range maps {
			pc, pl := pos[i][cand], pos[i][l]
			if (pc < 0) != (pl < 0) || (pc >= 0 && pc != pl+1) {
				ok = false
				break
			}
		}
		if ok {
			next[l] = cand
		}
	}
	isNext := make([]bool, n)
	for _, j := range next {
		if j >= 0 {
			isNext[j] = true
		}
	}
	var groups [][]int
	for l := 0; l < n; l++ {
		if isNext[l] {
			continue
		}
		grp := []int{l}
		for j := next[l]; j >= 0; j = next[j] {
			grp = append(grp, j)
		}
		groups = append(groups, grp)
	}
	return groups
}

// reshapeTo returns v as a tensor of dims (v itself when it has them).
func reshapeTo(b *ir.Builder, v *ir.Value, dims []int64) *ir.Value {
	t := v.Type.(*ir.RankedTensorType)
	if slices.Equal(t.Dims, dims) {
		return v
	}
	shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(dims))}, ir.I64), Ints: dims})
	return b.Create("tensor.reshape", []*ir.Value{v, shape}, []ir.Type{&ir.RankedTensorType{Dims: dims, Elem: t.Elem}}).Result(0)
}

// copyTo builds out[i…] = in[m(i…)] as a generic over a new tensor of
// type rt (in a tensor or a scalar).
func copyTo(b *ir.Builder, in *ir.Value, m *ir.AffineMap, rt *ir.RankedTensorType) *ir.Value {
	e := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{e}, []*ir.AffineMap{m, linalg.Identity(len(rt.Dims))},
		make([]linalg.Iterator, len(rt.Dims)), func(_ *ir.Builder, args []*ir.Value) []*ir.Value { return args[:1] }).Result(0)
}

// collapsedInit returns the accumulator at the merged shape: a fill of a
// tensor.empty (a generic that broadcasts scalars, or linalg.fill) is
// made again at that shape, anything else is reshaped.
func collapsedInit(b *ir.Builder, init *ir.Value, dims []int64) *ir.Value {
	t := init.Type.(*ir.RankedTensorType)
	if slices.Equal(t.Dims, dims) {
		return init
	}
	fill := init.Owner()
	if fill != nil && fill.Name == linalg.GenericName {
		g, _ := linalg.AsGeneric(fill)
		if isFill(g) {
			maps := g.Maps()
			e := b.Create("tensor.empty", nil, []ir.Type{&ir.RankedTensorType{Dims: dims, Elem: t.Elem}}).Result(0)
			nmaps := make([]*ir.AffineMap, len(maps))
			for i := range g.Inputs() {
				nmaps[i] = &ir.AffineMap{NumDims: len(dims)}
			}
			nmaps[len(maps)-1] = linalg.Identity(len(dims))
			its := make([]linalg.Iterator, len(dims))
			for i := range its {
				its[i] = linalg.Parallel
			}
			return linalg.BuildGeneric(b, g.Inputs(), []*ir.Value{e}, nmaps, its, linalg.CloneBody(g.Body())).Results[0]
		}
	}
	return reshapeTo(b, init, dims)
}

// dimsOnly reports whether every result of m is a distinct loop.
func dimsOnly(m *ir.AffineMap) bool {
	seen := map[int]bool{}
	for _, e := range m.Results {
		d, ok := e.(*ir.AffineDimExpr)
		if !ok || seen[d.Pos] {
			return false
		}
		seen[d.Pos] = true
	}
	return m.NumSymbols == 0
}
