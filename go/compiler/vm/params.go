package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// parameterConstant adds a constant whose bytes come from a parameter
// file when the module is loaded (a util.global initialized with
// #flow.parameter.named<"scope"::"key"> or IREE's #stream spelling): the
// module records only the element type, the shape and the reference, never
// the data.
func (e *emitter) parameterConstant(op *ir.Operation, a ir.Attribute, t *ir.RankedTensorType) (int, error) {
	ref, err := ir.ParseParameterAttr(a)
	if err != nil {
		return 0, ir.OpErrorf(op, "%v", err)
	}
	if !ir.HasStaticShape(t) {
		return 0, ir.OpErrorf(op, "parameter '%s' has dynamic shape %s; parameter globals need a static shape", ref.Key, t)
	}
	word, ok := ElementTypeWord(t.Elem)
	if !ok {
		return 0, ir.OpErrorf(op, "parameter '%s' has element type %s, which gree cannot hold", ref.Key, t.Elem)
	}
	c := module.Constant{ElementType: word, Shape: append([]int64(nil), t.Dims...), Parameter: &module.ParameterRef{Scope: ref.Scope, Key: ref.Key}}
	if c.ByteLength() < 0 {
		return 0, ir.OpErrorf(op, "parameter '%s' has type %s, whose size gree cannot compute", ref.Key, t)
	}
	e.mod.Constants = append(e.mod.Constants, c)
	return len(e.mod.Constants) - 1, nil
}
