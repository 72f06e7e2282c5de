package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX MaxUnpool: a zero tensor of the (static) result shape with
// y.flat[I[q]] = X[q], I being MaxPool's indices (flat over the whole
// unpooled tensor). Each result element searches the input elements of its
// own (n, c) plane, the last match winning; an index that points outside
// its plane is not written.

func init() {
	onnxReg(onnxMaxUnpool, "MaxUnpool")
}

func onnxMaxUnpool(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, ind, rt := o.in(0), o.in(1), o.rts[0]
	xt, it := tt(x), tt(ind)
	r := len(xt.Dims)
	if r < 3 || it == nil || !ir.TypesEqual(ir.Tensor(it.Dims, xt.Elem), xt) || len(rt.Dims) != r ||
		rt.Dims[0] != xt.Dims[0] || rt.Dims[1] != xt.Dims[1] || !ir.IsInteger(it.Elem) {
		return nil, o.errorf("needs X of rank >= 3, integer indices of X's shape and a result with X's N and C")
	}
	ns := r - 2
	// Indices are flat over the shape the attributes give; a larger
	// output_shape holds that block at its origin (as ONNX's reference).
	ks, _ := o.attrInts("kernel_shape")
	if len(ks) != ns {
		return nil, o.errorf("needs kernel_shape of %d values", ns)
	}
	strides, pads := o.ints1("strides", ns), make([]int64, 2*ns)
	if p, ok := o.attrInts("pads"); ok && len(p) == 2*ns {
		pads = p
	}
	inf := append([]int64{}, rt.Dims...)
	for d := 0; d < ns; d++ {
		inf[2+d] = (xt.Dims[2+d]-1)*strides[d] - pads[d] - pads[ns+d] + ks[d]
		if inf[2+d] > rt.Dims[2+d] {
			return nil, o.errorf("has a result dimension %d smaller than the unpooled size %d", rt.Dims[2+d], inf[2+d])
		}
	}
	// Loops: the result's dims, then X's spatial dims (reduction).
	nl := r + ns
	in := &ir.AffineMap{NumDims: nl, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}
	for d := 0; d < ns; d++ {
		in.Results = append(in.Results, dimExpr(r+d))
	}
	om := &ir.AffineMap{NumDims: nl}
	for d := 0; d < r; d++ {
		om.Results = append(om.Results, dimExpr(d))
	}
	its := core.Parallel(nl)
	for d := r; d < nl; d++ {
		its[d] = linalg.Reduction
	}
	g := linalg.BuildGeneric(o.b, []*ir.Value{x, ind}, []*ir.Value{filled(o.b, rt, 0)}, []*ir.AffineMap{in, in, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		// The flat index of this result element.
		flat := bb.Constant(ir.IntAttr(0, ir.I64))
		var inside *ir.Value
		for d := 0; d < r; d++ {
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I64}).Result(0)
			flat = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", flat, bb.Constant(ir.IntAttr(inf[d], ir.I64))), i)
			if inf[d] < rt.Dims[d] {
				inside = andAll(bb, inside, core.CmpI(bb, core.PredSLT, i, bb.Constant(ir.IntAttr(inf[d], ir.I64))))
			}
		}
		k := castScalar(bb, args[1], ir.I64, o.isUnsigned(ind), false)
		hit := core.CmpI(bb, core.PredEQ, k, flat)
		if inside != nil {
			hit = core.BinOp(bb, "arith.andi", hit, inside)
		}
		return []*ir.Value{sc{bb, rt.Elem}.sel(hit, args[0], args[2])}
	})
	return []*ir.Value{g.Result(0)}, nil
}
