package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// A tensor.extract in a generic's body reads an element at indices the
// body computes. When every index moves linearly with the vectorized loop
// (a row read at a run-time offset: xw[t, b, j + c] along j, a recurrent
// step's slice of its input projection; or an index the lanes share: a
// row number read from another tensor along the embedding dimension), the
// w lanes read elements a constant stride apart, so the extract is one
// load — contiguous, broadcast or strided — at lane 0's indices, and the
// kernel stays vectorized instead of running one point at a time.

// extractsLinear reports whether every tensor.extract of the body is
// linear in loop k (see indexCoef).
func (l *genericLowering) extractsLinear(extracts []*ir.Operation, k int) bool {
	memo := map[*ir.Value]coefOf{}
	for _, op := range extracts {
		for _, v := range op.Operands[1:] {
			if _, ok := l.indexCoef(v, k, memo); !ok {
				return false
			}
		}
	}
	return true
}

// coefOf is a memoized indexCoef.
type coefOf struct {
	c  int64
	ok bool
}

// indexCoef returns how much index value v of the body changes from one
// iteration of loop k to the next, when that is a constant: v is built
// from linalg.index, constants, values defined outside the body, inputs
// whose maps do not use loop k, and additions, subtractions, products
// by constants and casts of those (any other operation only of values
// that do not change along loop k).
func (l *genericLowering) indexCoef(v *ir.Value, k int, memo map[*ir.Value]coefOf) (int64, bool) {
	if r, ok := memo[v]; ok {
		return r.c, r.ok
	}
	c, ok := l.indexCoefOf(v, k, memo)
	memo[v] = coefOf{c, ok}
	return c, ok
}

func (l *genericLowering) indexCoefOf(v *ir.Value, k int, memo map[*ir.Value]coefOf) (int64, bool) {
	body := l.op.Body()
	if v.IsBlockArgument() {
		if v.ArgBlock() != body {
			return 0, true // a value of an enclosing block: the same in every lane
		}
		for _, e := range l.maps[v.Index()].Results {
			if c, ok := linearCoef(e, k); !ok || c != 0 {
				return 0, false
			}
		}
		return 0, true
	}
	op := v.Owner()
	if op == nil || op.Block() != body {
		return 0, true // defined outside the body
	}
	switch op.Name {
	case "linalg.index":
		dim, _ := op.Attr("dim").(*ir.IntegerAttr)
		if dim == nil {
			return 0, false
		}
		if int(dim.Value) == k {
			return 1, true
		}
		return 0, true
	case "arith.constant":
		return 0, true
	case "arith.addi", "arith.subi":
		a, aok := l.indexCoef(op.Operands[0], k, memo)
		b, bok := l.indexCoef(op.Operands[1], k, memo)
		if !aok || !bok {
			return 0, false
		}
		if op.Name == "arith.subi" {
			return a - b, true
		}
		return a + b, true
	case "arith.muli":
		a, aok := l.indexCoef(op.Operands[0], k, memo)
		b, bok := l.indexCoef(op.Operands[1], k, memo)
		if !aok || !bok {
			return 0, false
		}
		if a == 0 && b == 0 {
			return 0, true
		}
		if x, ok := ir.IntConstant(op.Operands[1]); ok && b == 0 {
			return a * x, true
		}
		if x, ok := ir.IntConstant(op.Operands[0]); ok && a == 0 {
			return b * x, true
		}
		return 0, false
	case "arith.index_cast", "arith.index_castui", "arith.extsi":
		return l.indexCoef(op.Operands[0], k, memo)
	}
	for _, x := range op.Operands {
		if c, ok := l.indexCoef(x, k, memo); !ok || c != 0 {
			return 0, false
		}
	}
	return 0, len(op.Regions) == 0
}

// extractVector loads the w lanes of a tensor.extract linear in the
// vectorized loop (see extractsLinear): one load at lane 0's indices,
// each lane's element coef·stride apart.
func (l *genericLowering) extractVector(b *kir.Builder, op *ir.Operation, bi int, idx []kir.Value, w int) kir.Value {
	g := l.g
	t := op.Operands[0]
	strides := g.strides[t]
	memo := map[*ir.Value]coefOf{}
	var off kir.Value = -1
	coefs := make([]int64, len(idx))
	for r, x := range idx {
		if b.K.Type(x).IsVector() {
			x = b.EmitImm(kir.Extract, kir.S(b.K.Type(x).Elem), 0, x)
		}
		term := b.Bin(kir.Mul, x, strides[r])
		if off < 0 {
			off = term
		} else {
			off = b.Bin(kir.Add, off, term)
		}
		coefs[r], _ = l.indexCoef(op.Operands[1+r], l.vecDim, memo)
	}
	if off < 0 {
		off = g.idx(0)
	}
	return l.loadRaw(b, l.laneAccess(b, access{binding: bi, off: off}, coefs, strides), w)
}
