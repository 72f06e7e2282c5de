package compiler

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/onnx"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// wrapBatch turns the converted one-item function of a dynamic-batch ONNX
// model (onnx.BatchPlan) into a private function and gives the entry
// point its name: a function of the run-time batch size that calls it for
// each item (scf.for over the batch, extract_slice in, insert_slice out).
func wrapBatch(m *ir.Module, plan *onnx.BatchPlan) error {
	item := m.Lookup(plan.Func)
	if item == nil {
		return fmt.Errorf("the one-item function @%s of the dynamic-batch model is missing", plan.Func)
	}
	ta, _ := item.Attr("function_type").(*ir.TypeAttr)
	ft, _ := ta.Type.(*ir.FunctionType)
	if ft == nil || len(ft.Inputs) != len(plan.Inputs) || len(ft.Results) != len(plan.Outputs) {
		return fmt.Errorf("the one-item function @%s does not have the model's inputs and outputs", plan.Func)
	}
	itemName := plan.Func + "$item"
	item.SetAttr("sym_name", &ir.StringAttr{Value: itemName})
	item.SetAttr("sym_visibility", &ir.StringAttr{Value: "private"})
	// The batched types: the batch axis dynamic.
	batched := func(t ir.Type, axis int) (*ir.RankedTensorType, *ir.RankedTensorType, error) {
		rt, ok := t.(*ir.RankedTensorType)
		if !ok {
			return nil, nil, fmt.Errorf("the one-item function @%s has a %s argument or result", plan.Func, t)
		}
		if axis < 0 {
			return rt, rt, nil
		}
		dims := append([]int64{}, rt.Dims...)
		dims[axis] = ir.DynamicSize
		return rt, ir.Tensor(dims, rt.Elem), nil
	}
	var b strings.Builder
	var args, argTypes, resTypes, itemArgs, itemArgTypes, itemResTypes []string
	var itemIn, itemOut []*ir.RankedTensorType
	first := -1
	for i, t := range ft.Inputs {
		it, bt, err := batched(t, plan.Inputs[i])
		if err != nil {
			return err
		}
		args = append(args, fmt.Sprintf("%%in%d: %s", i, bt))
		argTypes = append(argTypes, bt.String())
		itemArgTypes = append(itemArgTypes, it.String())
		itemIn = append(itemIn, it)
		if plan.Inputs[i] >= 0 && first < 0 {
			first = i
		}
	}
	if first < 0 {
		return fmt.Errorf("the dynamic-batch model @%s has no input with a batch axis", plan.Func)
	}
	for i, t := range ft.Results {
		it, bt, err := batched(t, plan.Outputs[i])
		if err != nil {
			return err
		}
		resTypes = append(resTypes, bt.String())
		itemResTypes = append(itemResTypes, it.String())
		itemOut = append(itemOut, it)
	}
	fmt.Fprintf(&b, "func.func @\"%s\"(%s) -> (%s) {\n", plan.Func, strings.Join(args, ", "), strings.Join(resTypes, ", "))
	b.WriteString("  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n")
	fmt.Fprintf(&b, "  %%ax = arith.constant %d : index\n", plan.Inputs[first])
	fmt.Fprintf(&b, "  %%n = tensor.dim %%in%d, %%ax : %s\n", first, argTypes[first])
	for i, a := range plan.Inputs {
		if a < 0 || i == first {
			continue
		}
		fmt.Fprintf(&b, "  %%ax%d = arith.constant %d : index\n  %%n%d = tensor.dim %%in%d, %%ax%d : %s\n", i, a, i, i, i, argTypes[i])
		fmt.Fprintf(&b, "  %%same%d = arith.cmpi eq, %%n, %%n%d : index\n", i, i)
		fmt.Fprintf(&b, "  cf.assert %%same%d, \"the batch dimension '%s' of input %d differs from input %d's\"\n", i, plan.Symbol, i, first)
	}
	var inits, iters []string
	for i := range ft.Results {
		fmt.Fprintf(&b, "  %%init%d = tensor.empty(%%n) : %s\n", i, resTypes[i])
		inits = append(inits, fmt.Sprintf("%%acc%d = %%init%d", i, i))
		iters = append(iters, fmt.Sprintf("%%acc%d", i))
	}
	// slice is the static offsets/sizes/strides of one item along axis.
	slice := func(idx string, t *ir.RankedTensorType, axis int) string {
		var offs, sizes, strides []string
		for k, d := range t.Dims {
			if k == axis {
				offs = append(offs, idx)
				sizes = append(sizes, "1")
			} else {
				offs = append(offs, "0")
				sizes = append(sizes, fmt.Sprint(d))
			}
			strides = append(strides, "1")
		}
		return fmt.Sprintf("[%s] [%s] [%s]", strings.Join(offs, ", "), strings.Join(sizes, ", "), strings.Join(strides, ", "))
	}
	fmt.Fprintf(&b, "  %%r:%d = scf.for %%i = %%c0 to %%n step %%c1 iter_args(%s) -> (%s) {\n", len(ft.Results), strings.Join(inits, ", "), strings.Join(resTypes, ", "))
	for i, a := range plan.Inputs {
		if a < 0 {
			itemArgs = append(itemArgs, fmt.Sprintf("%%in%d", i))
			continue
		}
		fmt.Fprintf(&b, "    %%x%d = tensor.extract_slice %%in%d%s : %s to %s\n", i, i, slice("%i", itemIn[i], a), argTypes[i], itemArgTypes[i])
		itemArgs = append(itemArgs, fmt.Sprintf("%%x%d", i))
	}
	fmt.Fprintf(&b, "    %%y:%d = func.call @\"%s\"(%s) : (%s) -> (%s)\n", len(ft.Results), itemName, strings.Join(itemArgs, ", "), strings.Join(itemArgTypes, ", "), strings.Join(itemResTypes, ", "))
	var yields []string
	for i, a := range plan.Outputs {
		fmt.Fprintf(&b, "    %%a%d = tensor.insert_slice %%y#%d into %%acc%d%s : %s into %s\n", i, i, i, slice("%i", itemOut[i], a), itemResTypes[i], resTypes[i])
		yields = append(yields, fmt.Sprintf("%%a%d", i))
	}
	fmt.Fprintf(&b, "    scf.yield %s : %s\n  }\n", strings.Join(yields, ", "), strings.Join(resTypes, ", "))
	var rets []string
	for i := range ft.Results {
		rets = append(rets, fmt.Sprintf("%%r#%d", i))
	}
	fmt.Fprintf(&b, "  return %s : %s\n}\n", strings.Join(rets, ", "), strings.Join(resTypes, ", "))
	wm, err := parser.Parse("<dynamic batch of "+plan.Func+">", []byte(b.String()))
	if err != nil {
		return fmt.Errorf("building the dynamic-batch entry point: %v\n%s", err, b.String())
	}
	body := m.Body()
	for _, op := range append([]*ir.Operation{}, wm.Body().Ops...) {
		wm.Body().Remove(op)
		body.Insert(body.IndexOf(item)+1, op)
		if err := input.ConvertBuiltin(op); err != nil {
			return err
		}
	}
	return nil
}
