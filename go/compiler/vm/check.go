package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// checkImports are the functions of the runtime's check module.
var checkImports = map[string][]module.Kind{
	"expect_true":      {module.KindI32},
	"expect_false":     {module.KindI32},
	"expect_all_true":  {module.KindRef},
	"expect_eq":        {module.KindRef, module.KindRef},
	"expect_almost_eq": {module.KindRef, module.KindRef, module.KindF32, module.KindF32},
}

func (e *emitter) checkImport(name string) int32 {
	key := "check." + name
	if i, ok := e.imports[key]; ok {
		return int32(i)
	}
	e.imports[key] = len(e.mod.Imports)
	e.mod.Imports = append(e.mod.Imports, module.Import{Module: "check", Name: name, Args: checkImports[name], Optional: true})
	return int32(e.imports[key])
}

// check lowers the check dialect to calls into the check module.
func (fe *fnEmitter) check(op *ir.Operation) error {
	name := op.Name[len("check."):]
	var src []int32
	switch name {
	case "expect_true", "expect_false":
		r, err := fe.scalar(op.Operands[len(op.Operands)-1])
		if err != nil {
			return err
		}
		src = []int32{r}
	case "expect_all_true":
		r, err := fe.ref(op.Operands[len(op.Operands)-1])
		if err != nil {
			return err
		}
		src = []int32{r}
	case "expect_eq", "expect_almost_eq", "expect_eq_const", "expect_almost_eq_const":
		vals := op.Operands
		if len(vals) > 0 && !isTensor(vals[0]) {
			vals = vals[1:] // an optional device operand
		}
		for _, v := range vals {
			r, err := fe.ref(v)
			if err != nil {
				return err
			}
			src = append(src, r)
		}
		if name == "expect_eq_const" || name == "expect_almost_eq_const" {
			t, ok := op.Attr("value").(ir.TypedAttr)
			rt, ok2 := t.AttrType().(*ir.RankedTensorType)
			if !ok || !ok2 {
				return ir.OpErrorf(op, "needs a dense tensor value")
			}
			c, err := fe.e.constant(op, t, rt)
			if err != nil {
				return err
			}
			r := fe.newReg(module.KindRef)
			fe.emit(module.Instr{Op: module.OpConstant, Dst: []int32{r}, Index: int32(c)})
			src = append(src, r)
			name = name[:len(name)-len("_const")]
		}
		if len(src) != 2 {
			return ir.OpErrorf(op, "expects two tensors")
		}
		if name == "expect_almost_eq" {
			atol, rtol := 1e-4, 0.0
			if a, ok := op.Attr("atol").(*ir.FloatAttr); ok {
				atol = a.Value
			}
			if a, ok := op.Attr("rtol").(*ir.FloatAttr); ok {
				rtol = a.Value
			}
			for _, x := range []float64{atol, rtol} {
				r := fe.newReg(module.KindF32)
				fe.emit(module.Instr{Op: module.OpConstF, Type: module.TypeF32, Dst: []int32{r}, F: x})
				src = append(src, r)
			}
		}
	default:
		return ir.OpErrorf(op, "is not a check op gree knows")
	}
	fe.emit(module.Instr{Op: module.OpCallImport, Index: fe.e.checkImport(name), Src: src})
	return nil
}

func isTensor(v *ir.Value) bool {
	_, ok := v.Type.(*ir.RankedTensorType)
	return ok
}
