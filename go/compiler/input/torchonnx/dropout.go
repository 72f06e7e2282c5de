package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// dropoutIsIdentity checks that a Dropout drops nothing, so that it is the
// identity (with an all-true mask). It does in inference mode and with
// ratio 0; random dropping is not supported. When the training_mode or
// ratio input is only known at run time, a run-time check (cf.assert) fails
// the call if training_mode is true and the ratio is not 0, rather than
// returning undropped values.
func dropoutIsIdentity(o *onnxOp) error {
	const unsupported = "in training mode (random dropping) is not supported by gree"
	if o.c.opset < 12 {
		// Attributes: is_test (before opset 7) and ratio (default 0.5).
		if o.attrInt("is_test", 1) == 0 && o.c.opset < 7 && o.attrFloat("ratio", 0.5) != 0 {
			return o.errorf(unsupported)
		}
		return nil
	}
	if o.in(2) == nil {
		return nil // training_mode defaults to false
	}
	train, trainConst := o.constInts(2)
	if trainConst && len(train) == 1 && train[0] == 0 {
		return nil
	}
	ratio, ratioConst := []float64{0.5}, true // the default ratio
	if o.in(1) != nil {
		ratio, ratioConst = o.constFloats(1)
	}
	if ratioConst && len(ratio) == 1 && ratio[0] == 0 {
		return nil
	}
	if trainConst && ratioConst {
		return o.errorf(unsupported)
	}
	// Run-time check: !(training_mode && ratio != 0).
	b := o.b
	dropping := b.Constant(ir.IntAttr(1, ir.I1))
	if !trainConst {
		dropping = scalarOf(b, o.in(2))
	}
	if !ratioConst {
		r := scalarOf(b, o.in(1))
		nz := core.Cmp(b, "arith.cmpf", 13, r, scalarConst(b, 0, r.Type)) // une
		dropping = core.BinOp(b, "arith.andi", dropping, nz)
	}
	ok := core.Cmp(b, "arith.cmpi", 0, dropping, b.Constant(ir.IntAttr(0, ir.I1)))
	msg := o.errorf("ran with training_mode true and a ratio other than 0: random dropping is not supported by gree (pass training_mode false or ratio 0)").Error()
	b.Create("cf.assert", []*ir.Value{ok}, nil, ir.Named("msg", ir.Str(msg)))
	return nil
}
