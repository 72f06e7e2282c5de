package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// foldConstantCopies replaces a generic that only moves the elements of a
// constant — a transpose, a slice along constant indices or a
// permutation of a weight (a recurrent layer's R[d] transposed, a
// framework's Transpose of an initializer) — by a constant holding the
// result, so that the host program does not rebuild it at every call and
// later rewrites (packConstantGEMVs) see a constant. Only copies that
// hold at most as many elements as their source are folded (never a
// broadcast, which would grow the module).
func foldConstantCopies(m *ir.Module, fn *ir.Operation) {
	for _, op := range generics(fn) {
		foldConstantCopy(m, fn, op)
	}
}

func foldConstantCopy(m *ir.Module, fn, op *ir.Operation) {
	g, ok := linalg.AsGeneric(op)
	if !ok || len(op.Results) != 1 || len(g.Outputs()) != 1 {
		return
	}
	for _, it := range g.Iterators() {
		if it != linalg.Parallel {
			return
		}
	}
	body := g.Body()
	y := body.Terminator()
	if y == nil || len(body.Ops) != 1 || len(y.Operands) != 1 {
		return
	}
	a := y.Operands[0]
	if a.ArgBlock() != body || a.Index() >= g.NumInputs() {
		return
	}
	src := g.Inputs()[a.Index()]
	st, ok := src.Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || !ir.HasStaticShape(st) || !ir.HasStaticShape(rt) || st.Elem.String() != rt.Elem.String() {
		return
	}
	maps := g.Maps()
	if !maps[len(maps)-1].IsIdentity() {
		return
	}
	size, err := ir.ElementByteSize(st.Elem)
	if err != nil || !wholeBytes(st.Elem) {
		return
	}
	nIn, _ := ir.NumElements(st.Dims)
	nOut, _ := ir.NumElements(rt.Dims)
	if nOut > nIn {
		return
	}
	// Each source index is a loop index plus a constant, or a constant,
	// within the source.
	srcMap := maps[a.Index()]
	dims := make([]int, len(srcMap.Results))
	consts := make([]int64, len(srcMap.Results))
	for r, e := range srcMap.Results {
		d, c, ok := dimPlusConst(e)
		if !ok {
			return
		}
		dims[r], consts[r] = d, c
		hi := c
		if d >= 0 {
			hi += rt.Dims[d] - 1
		}
		if c < 0 || hi >= st.Dims[r] {
			return
		}
	}
	data := constantData(src, int64(size))
	if data == nil {
		return
	}
	sz := int64(size)
	out := make([]byte, nOut*sz)
	idx := make([]int64, len(rt.Dims))
	for o := int64(0); o < nOut; o++ {
		off := int64(0)
		for r, d := range dims {
			i := consts[r]
			if d >= 0 {
				i += idx[d]
			}
			off = off*st.Dims[r] + i
		}
		copy(out[o*sz:(o+1)*sz], data[off*sz:(off+1)*sz])
		for k := len(idx) - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < rt.Dims[k] {
				break
			}
			idx[k] = 0
		}
	}
	res := &ir.Resource{Dialect: "builtin", Key: uniqueKey(m, "__gree_folded_copy"), Blob: out, Alignment: 64, Defined: true}
	m.Resources = append(m.Resources, res)
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	ir.ReplaceAllUsesWith(fn, op.Results[0], b.Constant(&ir.DenseResourceAttr{Type: rt, Resource: res}))
	op.Erase()
}

// dimPlusConst splits e into loop d plus c (d = -1: the constant c).
func dimPlusConst(e ir.AffineExpr) (d int, c int64, ok bool) {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		return e.Pos, 0, true
	case *ir.AffineConstantExpr:
		return -1, e.Value, true
	case *ir.AffineBinaryExpr:
		if e.Kind != ir.AffineAdd {
			return 0, 0, false
		}
		l, ok1 := e.LHS.(*ir.AffineDimExpr)
		r, ok2 := e.RHS.(*ir.AffineConstantExpr)
		if ok1 && ok2 {
			return l.Pos, r.Value, true
		}
	}
	return 0, 0, false
}

// wholeBytes reports element types stored in whole bytes (not i1 or
// sub-byte types, whose constants may be packed).
func wholeBytes(t ir.Type) bool {
	switch e := t.(type) {
	case *ir.IntegerType:
		return e.Width%8 == 0
	case *ir.FloatType:
		return e.Kind.Width()%8 == 0
	}
	return false
}
