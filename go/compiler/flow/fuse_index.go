package flow

import "github.com/gree-ml/gree/go/compiler/ir"

// indexable reports whether e, a consumer's expression for a producer's
// loop, can be computed from the consumer's linalg.index values by
// indexAt: a sum of constants and of dimensions times constants.
func indexable(e ir.AffineExpr) bool {
	switch e := e.(type) {
	case *ir.AffineDimExpr, *ir.AffineConstantExpr:
		return true
	case *ir.AffineBinaryExpr:
		switch e.Kind {
		case ir.AffineAdd:
			return indexable(e.LHS) && indexable(e.RHS)
		case ir.AffineMul:
			_, lc := e.LHS.(*ir.AffineConstantExpr)
			_, rc := e.RHS.(*ir.AffineConstantExpr)
			return (lc || rc) && indexable(e.LHS) && indexable(e.RHS)
		}
	}
	return false
}

// indexAt emits e (indexable) with arith ops on the consumer's
// linalg.index values, as the value a producer's linalg.index of the
// loop that e stands for takes inside the fused body.
func indexAt(bb *ir.Builder, e ir.AffineExpr) *ir.Value {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		return bb.Create("linalg.index", nil, []ir.Type{ir.Index}, ir.Named("dim", ir.IntAttr(int64(e.Pos), ir.I64))).Result(0)
	case *ir.AffineConstantExpr:
		return bb.Create("arith.constant", nil, []ir.Type{ir.Index}, ir.Named("value", ir.IntAttr(e.Value, ir.Index))).Result(0)
	case *ir.AffineBinaryExpr:
		if c, ok := e.RHS.(*ir.AffineConstantExpr); ok && (c.Value == 0 && e.Kind == ir.AffineAdd || c.Value == 1 && e.Kind == ir.AffineMul) {
			return indexAt(bb, e.LHS)
		}
		l, r := indexAt(bb, e.LHS), indexAt(bb, e.RHS)
		name := "arith.addi"
		if e.Kind == ir.AffineMul {
			name = "arith.muli"
		}
		return bb.Create(name, []*ir.Value{l, r}, []ir.Type{ir.Index}).Result(0)
	}
	panic("flow: indexAt of an expression indexable refuses")
}

// windowed reports a map with a result that is not a dimension or a
// constant (a convolution's window, a pad's wrapped read): the consumer
// reads an element at several points.
func windowed(m *ir.AffineMap) bool {
	for _, r := range m.Results {
		switch r.(type) {
		case *ir.AffineDimExpr, *ir.AffineConstantExpr:
		default:
			return true
		}
	}
	return false
}

// cheapOps are the ops of a body worth recomputing at every read of a
// window: index arithmetic, comparisons and selects (a zero pad).
var cheapOps = map[string]bool{
	"linalg.index": true, "linalg.yield": true, "arith.constant": true,
	"arith.cmpi": true, "arith.andi": true, "arith.ori": true, "arith.xori": true,
	"arith.select": true, "arith.addi": true, "arith.subi": true, "arith.muli": true,
}

// cheapBody reports a body of cheap ops only.
func cheapBody(blk *ir.Block) bool {
	for _, op := range blk.Ops {
		if !cheapOps[op.Name] {
			return false
		}
	}
	return true
}
