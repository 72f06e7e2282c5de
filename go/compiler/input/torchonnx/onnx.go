package torchonnx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// ONNX input: the torch-onnx dialect that IREE's ONNX importer writes
// (torch.operator "onnx.X" on !torch.vtensor values). Each function whose
// signature or body uses torch types is converted as a whole: the
// signature and block arguments become builtin ranked tensors (signless
// integers; unsigned element types are remembered per value for the ops
// whose semantics depend on it), and each operator becomes core tensor ops
// (linalg.generic, tensor.*, arith constants, scf.if) built from the
// static result types the importer recorded.

// IsTorchFunc reports a function that uses torch types or ops.
func IsTorchFunc(fn *ir.Operation) bool {
	found := false
	if ta, ok := fn.Attr("function_type").(*ir.TypeAttr); ok && strings.Contains(ta.Type.String(), "!torch.") {
		return true
	}
	fn.Walk(func(op *ir.Operation) bool {
		if op.Dialect() == "torch" || op.Dialect() == "torch_c" {
			found = true
		}
		return !found
	})
	return found
}

// onnxConv holds the state of converting one torch-onnx function.
type onnxConv struct {
	r        *core.Rewriter
	opset    int64
	unsigned map[*ir.Value]bool
	loops    map[*ir.Block]loopInfo // Loop and Scan bodies (now in scf.while)
	inlined  map[*ir.Operation]bool // subgraph ops a handler converted already
}

// ConvertFunc converts a torch-onnx function to core tensor ops.
func ConvertFunc(fn *ir.Operation, lower core.Lowering) error {
	c := &onnxConv{r: core.NewRewriter(fn, lower), opset: 17, unsigned: map[*ir.Value]bool{}, loops: map[*ir.Block]loopInfo{}, inlined: map[*ir.Operation]bool{}}
	if a, ok := fn.Attr("torch.onnx_meta.opset_version").(*ir.IntegerAttr); ok {
		c.opset = a.Value
	}
	if err := c.signature(fn); err != nil {
		return err
	}
	var ops []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op != fn {
			ops = append(ops, op)
		}
		return op == fn || !core.IsStructured(op)
	})
	refineFromUses(ops)
	for _, op := range ops {
		if c.inlined[op] {
			continue
		}
		var err error
		if op.Dialect() == "torch" || op.Dialect() == "torch_c" {
			err = c.convert(op)
		} else {
			// Other ops (func.call of the importer's helper functions)
			// keep their meaning with builtin result types.
			for _, res := range op.Results {
				t, u, terr := builtinType(res.Type)
				if terr != nil {
					return ir.OpErrorf(op, "%v", terr)
				}
				res.Type = t
				c.unsigned[res] = u
			}
			err = c.r.Convert(op)
		}
		if err != nil {
			return err
		}
	}
	// Constants of torch scalar types (optional-operand placeholders) are
	// dead now; anything else left is an error.
	var left *ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if left == nil && (op.Dialect() == "torch" || op.Dialect() == "torch_c") && !strings.HasPrefix(op.Name, "torch.constant.") {
			left = op
		}
		return left == nil
	})
	if left != nil {
		return ir.OpErrorf(left, "was not converted")
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if strings.HasPrefix(ops[i].Name, "torch.constant.") {
			ops[i].Erase()
		}
	}
	staticResults(fn)
	return nil
}

// staticResults gives the function the result types its return computes
// where folding made a dynamic result static.
func staticResults(fn *ir.Operation) {
	ta, ok := fn.Attr("function_type").(*ir.TypeAttr)
	if !ok || len(fn.Regions) == 0 {
		return
	}
	ft, ok := ta.Type.(*ir.FunctionType)
	if !ok {
		return
	}
	res := append([]ir.Type{}, ft.Results...)
	changed := false
	for _, blk := range fn.Regions[0].Blocks {
		t := blk.Terminator()
		if t == nil || t.Name != "func.return" || len(t.Operands) != len(res) {
			continue
		}
		for i, v := range t.Operands {
			if !ir.TypesEqual(v.Type, res[i]) {
				res[i] = v.Type
				changed = true
			}
		}
	}
	if changed {
		fn.SetAttr("function_type", ir.TypeAttrOf(ir.Function(ft.Inputs, res)))
	}
}

// signature converts the function type and entry block arguments.
func (c *onnxConv) signature(fn *ir.Operation) error {
	ta, ok := fn.Attr("function_type").(*ir.TypeAttr)
	if !ok {
		return nil
	}
	ft, ok := ta.Type.(*ir.FunctionType)
	if !ok {
		return nil
	}
	conv := func(ts []ir.Type) ([]ir.Type, []bool, error) {
		out := make([]ir.Type, len(ts))
		uns := make([]bool, len(ts))
		for i, t := range ts {
			bt, u, err := builtinType(t)
			if err != nil {
				return nil, nil, ir.OpErrorf(fn, "%v", err)
			}
			out[i], uns[i] = bt, u
		}
		return out, uns, nil
	}
	ins, uns, err := conv(ft.Inputs)
	if err != nil {
		return err
	}
	res, _, err := conv(ft.Results)
	if err != nil {
		return err
	}
	fn.SetAttr("function_type", ir.TypeAttrOf(ir.Function(ins, res)))
	if len(fn.Regions) > 0 && len(fn.Regions[0].Blocks) > 0 {
		for i, a := range fn.Regions[0].Blocks[0].Args {
			if i < len(ins) {
				a.Type = ins[i]
				c.unsigned[a] = uns[i]
			}
		}
	}
	return nil
}

// builtinType maps a torch type to a builtin one: !torch.vtensor<[2,?],si64>
// → tensor<2x?xi64> (unsigned reports ui element types); other types are
// kept.
func builtinType(t ir.Type) (ir.Type, bool, error) {
	ot, ok := t.(*ir.OpaqueType)
	if !ok || !strings.HasPrefix(ot.Text, "!torch.vtensor") && !strings.HasPrefix(ot.Text, "!torch.tensor") {
		return t, false, nil
	}
	body := ot.Text[strings.Index(ot.Text, "tensor")+len("tensor"):]
	if !strings.HasPrefix(body, "<[") || !strings.HasSuffix(body, ">") {
		return nil, false, fmt.Errorf("unranked or malformed tensor type %s is not supported by gree", ot.Text)
	}
	body = body[2 : len(body)-1]
	close := strings.Index(body, "]")
	if close < 0 || !strings.HasPrefix(body[close:], "],") {
		return nil, false, fmt.Errorf("malformed tensor type %s", ot.Text)
	}
	var dims []int64
	if s := strings.TrimSpace(body[:close]); s != "" {
		for _, f := range strings.Split(s, ",") {
			f = strings.TrimSpace(f)
			if f == "?" {
				dims = append(dims, ir.DynamicSize)
				continue
			}
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil || n < 0 {
				return nil, false, fmt.Errorf("malformed dimension '%s' in %s", f, ot.Text)
			}
			dims = append(dims, n)
		}
	}
	elem, uns, err := torchElemType(strings.TrimSpace(body[close+2:]))
	if err != nil {
		return nil, false, fmt.Errorf("%v in %s", err, ot.Text)
	}
	return ir.Tensor(dims, elem), uns, nil
}

// torchElemType maps a torch dtype name to a signless builtin type.
func torchElemType(s string) (ir.Type, bool, error) {
	switch s {
	case "f16":
		return ir.F16, false, nil
	case "bf16":
		return ir.BF16, false, nil
	case "f32":
		return ir.F32, false, nil
	case "f64":
		return ir.F64, false, nil
	case "i1":
		return ir.I1, false, nil
	}
	for _, p := range []string{"si", "ui", "i"} {
		if strings.HasPrefix(s, p) {
			w, err := strconv.Atoi(s[len(p):])
			if err == nil && w > 0 && w <= 64 {
				return ir.Int(w), p == "ui", nil
			}
		}
	}
	for _, k := range []ir.FloatKind{ir.KindF8E4M3FN, ir.KindF8E5M2, ir.KindF8E4M3FNUZ, ir.KindF8E5M2FNUZ, ir.KindF4E2M1FN, ir.KindF8E8M0FNU} {
		if k.String() == s {
			return ir.Float(k), false, nil
		}
	}
	return nil, false, fmt.Errorf("element type '%s' is not supported by gree", s)
}
