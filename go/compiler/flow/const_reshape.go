package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// foldConstantReshapes replaces a static tensor.reshape, collapse_shape or
// expand_shape of a tensor constant by a constant of the new shape that
// shares the data (a convolution's weight [O, I, 1, 1] read as [O, I]):
// the host program then holds the weight in its final shape instead of
// reshaping it at every call. The old constant is left for dead-code
// removal when nothing else reads it.
func foldConstantReshapes(fn *ir.Operation) {
	var reshapes []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if linalg.IsReshape(op) {
			reshapes = append(reshapes, op)
		}
		return true
	})
	for _, op := range reshapes {
		if len(op.Operands) == 0 || len(op.Results) != 1 {
			continue
		}
		src := op.Operands[0].Owner()
		if src == nil || src.Name != "arith.constant" {
			continue
		}
		rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
		old, ok2 := src.Results[0].Type.(*ir.RankedTensorType)
		if !ok || !ok2 || !ir.HasStaticShape(rt) || !ir.HasStaticShape(old) || !sameCount(rt, old) {
			continue
		}
		var value ir.TypedAttr
		switch a := src.Attr("value").(type) {
		case *ir.DenseResourceAttr:
			value = &ir.DenseResourceAttr{Type: rt, Resource: a.Resource}
		case *ir.DenseElementsAttr:
			c := *a
			c.Type = rt
			value = &c
		default:
			continue
		}
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		ir.ReplaceAllUsesWith(fn, op.Results[0], b.Constant(value))
		op.Erase()
	}
}

// sameCount reports whether a and b hold as many elements of one type.
func sameCount(a, b *ir.RankedTensorType) bool {
	na, _ := ir.NumElements(a.Dims)
	nb, _ := ir.NumElements(b.Dims)
	return na == nb && a.Elem.String() == b.Elem.String()
}
