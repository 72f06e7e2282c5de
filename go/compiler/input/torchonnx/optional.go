package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX optionals whose presence is known when compiling (a tensor, or an
// absent input), and ai.onnx.ml's ArrayFeatureExtractor. Optional values
// that flow as optional-typed graph inputs are not run by gree (their
// element type is reported as unsupported).

func init() {
	onnxReg(onnxOptionalHasElement, "OptionalHasElement")
	onnxReg(onnxOptionalGetElement, "OptionalGetElement")
	onnxReg(onnxArrayFeatureExtractor, "ArrayFeatureExtractor")
}

// onnxOptionalHasElement is true for a tensor input, false for an absent
// one (no input, or an empty name).
func onnxOptionalHasElement(o *onnxOp) ([]*ir.Value, error) {
	if len(o.rts) != 1 || o.rts[0] == nil || len(o.rts[0].Dims) != 0 {
		return nil, o.errorf("needs a rank-0 boolean result")
	}
	x := o.in(0)
	has := int64(0)
	if x != nil {
		if tt(x) == nil {
			return nil, o.errorf("on a %s input is not supported by gree (tensors or absent inputs only)", x.Type)
		}
		has = 1
	}
	return []*ir.Value{filledInt(o.b, o.rts[0], has)}, nil
}

// onnxOptionalGetElement of a tensor is the tensor.
func onnxOptionalGetElement(o *onnxOp) ([]*ir.Value, error) {
	x := o.in(0)
	if x == nil || tt(x) == nil {
		return nil, o.errorf("needs a tensor input (optional and sequence values are not supported by gree)")
	}
	if len(o.rts) != 1 || !ir.TypesEqual(o.rts[0], tt(x)) {
		return nil, o.errorf("has a result type that differs from its input's")
	}
	return []*ir.Value{x}, nil
}

// onnxArrayFeatureExtractor: y[…, j] = x[…, indices[j]] along x's last
// dimension (a rank-1 x gives a [1, k] result).
func onnxArrayFeatureExtractor(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, rt := o.in(0), o.in(1), o.rts[0]
	xt, it := tt(x), tt(ind)
	if it == nil || len(it.Dims) != 1 || !ir.IsInteger(it.Elem) {
		return nil, o.errorf("needs rank-1 integer indices")
	}
	r, n := len(xt.Dims), len(rt.Dims)
	want := append(append([]int64{}, xt.Dims[:r-1]...), it.Dims[0])
	if r == 1 {
		want = []int64{1, it.Dims[0]}
	}
	if !ir.TypesEqual(ir.Tensor(want, xt.Elem), rt) {
		return nil, o.errorf("has result type %s, want %s", rt, ir.Tensor(want, xt.Elem))
	}
	last := xt.Dims[r-1]
	g := linalg.BuildGeneric(o.b, []*ir.Value{ind}, []*ir.Value{empty(o.b, rt)},
		[]*ir.AffineMap{{NumDims: n, Results: []ir.AffineExpr{dimExpr(n - 1)}}, linalg.Identity(n)}, core.Parallel(n),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for d := n - r; d < n-1; d++ {
				ix = append(ix, core.LoopIndex(bb, d))
			}
			ix = append(ix, normIndex(bb, args[0], last))
			return []*ir.Value{extractAt(bb, x, ix)}
		})
	return []*ir.Value{g.Result(0)}, nil
}
