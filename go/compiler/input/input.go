package input

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/input/linalgext"
	"github.com/gree-ml/gree/go/compiler/input/stablehlo"
	"github.com/gree-ml/gree/go/compiler/input/torchonnx"
	"github.com/gree-ml/gree/go/compiler/input/tosa"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Run converts m in place to the core tensor program.
func Run(m *ir.Module) error {
	if err := prepareModule(m); err != nil {
		return err
	}
	stablehlo.StripShardingAnnotations(m)
	if err := tosa.Variables(m); err != nil {
		return err
	}
	var err error
	m.Op.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Name == "func.func" || op.Name == "util.func" {
			if torchonnx.IsTorchFunc(op) {
				err = torchonnx.ConvertFunc(op, lower)
			} else {
				err = core.ConvertFunc(op, lower)
			}
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	adoptResources(m)
	return verifyShapes(m)
}

// adoptResources adds to m's resources those the conversions made for
// constants of their own (a Winograd convolution's transformed filters),
// each under a key no other resource of m has.
func adoptResources(m *ir.Module) {
	have := map[*ir.Resource]bool{}
	keys := map[string]bool{}
	for _, r := range m.Resources {
		have[r] = true
		keys[r.Dialect+"\x00"+r.Key] = true
	}
	m.Op.Walk(func(op *ir.Operation) bool {
		for _, a := range op.Attrs {
			d, ok := a.Value.(*ir.DenseResourceAttr)
			if !ok || d.Resource == nil || have[d.Resource] {
				continue
			}
			r := d.Resource
			stem := r.Key
			for i := 1; keys[r.Dialect+"\x00"+r.Key]; i++ {
				r.Key = fmt.Sprintf("%s_%d", stem, i)
			}
			keys[r.Dialect+"\x00"+r.Key] = true
			have[r] = true
			m.Resources = append(m.Resources, r)
		}
		return true
	})
}

// lower is the core.Lowering of Run: it hands an op to the package of its
// input dialect, and any op on complex values to stablehlo's complex
// conversion first.
func lower(r *core.Rewriter, b *ir.Builder, op *ir.Operation) (bool, error) {
	if stablehlo.TouchesComplex(r, op) {
		return true, stablehlo.LowerComplex(r, b, op)
	}
	switch {
	case op.Dialect() == "tosa":
		return true, tosa.Lower(r, b, op)
	case op.Dialect() == "iree_linalg_ext" && op.Name != "iree_linalg_ext.yield":
		return true, linalgext.Lower(r, b, op)
	case op.Dialect() == "chlo":
		return true, stablehlo.LowerCHLO(r, b, op)
	case op.Dialect() == "stablehlo" && op.Name != "stablehlo.return":
		return true, stablehlo.Lower(r, b, op)
	}
	return false, nil
}

// ConvertBuiltin converts one function written in the builtin dialects
// (func, arith, tensor, scf, linalg) that the compiler adds after Run: the
// entry point of a dynamic-batch ONNX model.
func ConvertBuiltin(fn *ir.Operation) error { return core.ConvertFunc(fn, lower) }
