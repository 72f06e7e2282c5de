package torchonnx

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Result shapes the importer's shape inference left dynamic, recovered
// from their uses: an element-wise op whose result shape is static tells
// the shape of an operand that only it can have given (ONNX's expanded
// function bodies reduce over run-time axes, or build a window from a
// run-time size, and end in a graph output of known shape).

// refineFromUses walks ops backwards and gives dynamic operands of
// element-wise ops the dimensions their static results imply. ops is in
// program order.
func refineFromUses(ops []*ir.Operation) {
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		if op.Name != "torch.operator" || len(op.Results) == 0 {
			continue
		}
		name, _ := op.Attr("name").(*ir.StringAttr)
		if name == nil {
			continue
		}
		kind := strings.TrimPrefix(name.Value, "onnx.")
		operands := op.Operands
		switch {
		case kind == "CastLike":
			operands = operands[:1] // the second only gives the type
		case !elementwiseKinds[kind]:
			continue
		}
		rt, _, err := builtinType(op.Results[0].Type)
		res, ok := rt.(*ir.RankedTensorType)
		if err != nil || !ok || !ir.HasStaticShape(res) {
			continue
		}
		var others [][]int64 // the static operand shapes
		for _, v := range operands {
			if t := torchTensor(v); t != nil && ir.HasStaticShape(t) {
				others = append(others, t.Dims)
			}
		}
		for _, v := range operands {
			t := torchTensor(v)
			if v.Owner() == nil || v.Owner().Name != "torch.operator" || t == nil || ir.HasStaticShape(t) || len(t.Dims) != len(res.Dims) {
				continue
			}
			if dims, ok := impliedDims(t.Dims, res.Dims, others); ok {
				v.Type = torchWithDims(v.Type, dims)
			}
		}
	}
}

// impliedDims fills the dynamic dimensions of an operand of a
// broadcasting op from its result's static dimensions: a result
// dimension of 1 needs 1; a larger one that no static operand has (after
// right alignment) must come from this operand. ok is false when a
// dimension stays unknown or a static one contradicts the result.
func impliedDims(dims, res []int64, others [][]int64) ([]int64, bool) {
	out := make([]int64, len(dims))
	for i, d := range dims {
		r := res[i]
		switch {
		case d >= 0:
			if d != r && d != 1 {
				return nil, false
			}
			out[i] = d
		case r == 1:
			out[i] = 1
		default:
			for _, o := range others {
				k := i - (len(res) - len(o))
				if k >= 0 && o[k] == r {
					return nil, false // this operand may be the one that broadcasts
				}
			}
			out[i] = r
		}
	}
	return out, true
}

// torchTensor is the builtin ranked tensor type of a torch tensor value
// (nil for other types).
func torchTensor(v *ir.Value) *ir.RankedTensorType {
	if _, ok := v.Type.(*ir.OpaqueType); !ok {
		return nil
	}
	t, _, err := builtinType(v.Type)
	if err != nil {
		return nil
	}
	rt, _ := t.(*ir.RankedTensorType)
	return rt
}

// torchWithDims rewrites a !torch.vtensor<[...],elem> type with new
// dimensions.
func torchWithDims(t ir.Type, dims []int64) ir.Type {
	ot := t.(*ir.OpaqueType)
	open := strings.Index(ot.Text, "<[")
	close := strings.Index(ot.Text, "],")
	fs := make([]string, len(dims))
	for i, d := range dims {
		fs[i] = strconv.FormatInt(d, 10)
	}
	return &ir.OpaqueType{Text: ot.Text[:open+2] + strings.Join(fs, ",") + ot.Text[close:]}
}
