package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Result shapes the importer could not infer (written as '?'), computed
// from static inputs and folded constants.

// refine fills in dynamic result dimensions that follow from static
// inputs: broadcasting element-wise ops, and shape-valued constant inputs
// of Reshape, Expand and ConstantOfShape.
func (o *onnxOp) refine() {
	if len(o.rts) == 0 || o.rts[0] == nil {
		return
	}
	if ir.HasStaticShape(o.rts[0]) && !elementwiseKinds[o.kind] {
		return
	}
	rt := o.rts[0]
	var dims []int64
	switch o.kind {
	case "Reshape":
		if x := tt(o.in(0)); x != nil && ir.HasStaticShape(x) {
			if s := cvalOfIndex(o, 1); s != nil {
				dims, _ = o.foldShape(&cval{dims: x.Dims})
			}
		}
	case "ConstantOfShape":
		if s := cvalOfIndex(o, 0); s != nil {
			for k := int64(0); k < s.n(); k++ {
				dims = append(dims, s.atI(k))
			}
		}
	case "Expand":
		if x := tt(o.in(0)); x != nil && ir.HasStaticShape(x) {
			if s := cvalOfIndex(o, 1); s != nil {
				var sd []int64
				for k := int64(0); k < s.n(); k++ {
					sd = append(sd, s.atI(k))
				}
				dims = bcastDims(x.Dims, sd)
			}
		}
	case "Slice", "Concat", "Transpose", "Unsqueeze", "Squeeze", "Gather", "Flatten", "MatMul", "Tile", "Pad":
		dims = o.inferShape()
	case "Gemm":
		a, b := tt(o.in(0)), tt(o.in(1))
		if a != nil && b != nil && ir.HasStaticShape(a) && ir.HasStaticShape(b) && len(a.Dims) == 2 && len(b.Dims) == 2 {
			m, n := a.Dims[0], b.Dims[1]
			if o.attrInt("transA", 0) != 0 {
				m = a.Dims[1]
			}
			if o.attrInt("transB", 0) != 0 {
				n = b.Dims[0]
			}
			dims = []int64{m, n}
		}
	case "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool":
		if x := tt(o.in(0)); x != nil && ir.HasStaticShape(x) && len(x.Dims) >= 2 {
			dims = append([]int64{}, x.Dims...)
			for i := 2; i < len(dims); i++ {
				dims[i] = 1
			}
		}
	case "Softmax", "LogSoftmax", "Hardmax", "LayerNormalization", "InstanceNormalization", "BatchNormalization",
		"LpNormalization", "MeanVarianceNormalization", "RMSNormalization", "CumSum", "Trilu", "Dropout", "Clip",
		"Shrink", "Celu", "Swish", "ScatterND", "ScatterElements", "Scatter":
		// The first result has the first input's shape (downstream of a
		// shape the importer could not infer, IREE's importer writes '?').
		if x := tt(o.in(0)); x != nil && ir.HasStaticShape(x) {
			dims = append([]int64{}, x.Dims...)
			if o.kind == "Dropout" && len(o.rts) > 1 && o.rts[1] != nil && len(o.rts[1].Dims) == len(dims) {
				o.rts[1] = ir.Tensor(dims, o.rts[1].Elem) // the mask
			}
		}
	default:
		h := onnxHandlers[o.kind]
		if h == nil {
			return
		}
		var shapes [][]int64
		for _, x := range o.ins {
			if x == nil {
				continue
			}
			t := tt(x)
			if t == nil || !ir.HasStaticShape(t) {
				return
			}
			shapes = append(shapes, t.Dims)
		}
		if !elementwiseKinds[o.kind] || len(shapes) == 0 {
			return
		}
		dims = bcastDims(shapes...)
	}
	if dims == nil {
		return
	}
	if elementwiseKinds[o.kind] {
		// The broadcast of the inputs is the result shape, whatever the
		// importer's shape inference said.
		o.rts[0] = ir.Tensor(dims, rt.Elem)
		return
	}
	if len(dims) != len(rt.Dims) {
		return
	}
	for i, d := range rt.Dims {
		if d >= 0 && d != dims[i] {
			return
		}
	}
	o.rts[0] = ir.Tensor(dims, rt.Elem)
}

// elementwiseKinds are the ops whose result shape is the broadcast of
// their inputs' shapes.
var elementwiseKinds = map[string]bool{}

func init() {
	for _, k := range []string{"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round",
		"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf",
		"LeakyRelu", "Elu", "Celu", "Selu", "ThresholdedRelu", "Gelu", "HardSigmoid", "HardSwish", "Softplus",
		"Softsign", "Mish", "Neg", "Abs", "Sign", "Not", "IsNaN", "IsInf", "BitwiseNot",
		"Add", "Sub", "Mul", "Div", "Pow", "Mod", "PRelu", "And", "Or", "Xor",
		"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
		"Max", "Min", "Sum", "Mean", "Where", "Cast", "Identity"} {
		elementwiseKinds[k] = true
	}
}

// inferShape computes the result shape of common data-movement ops from
// static input shapes and constant shape-valued inputs (nil when it does
// not follow).
func (o *onnxOp) inferShape() []int64 {
	x := tt(o.in(0))
	if x == nil || !ir.HasStaticShape(x) {
		return nil
	}
	xd := x.Dims
	r := len(xd)
	ints := func(i int) []int64 {
		if v := cvalOfIndex(o, i); v != nil {
			out := make([]int64, v.n())
			for k := range out {
				out[k] = v.atI(int64(k))
			}
			return out
		}
		return nil
	}
	axesOf := func() []int64 {
		if o.c.opset >= 13 && o.in(1) != nil {
			return ints(1)
		}
		a, _ := o.attrInts("axes")
		return a
	}
	switch o.kind {
	case "Slice":
		if o.c.opset < 10 || o.in(1) == nil || o.in(2) == nil {
			return nil
		}
		st, en := ints(1), ints(2)
		if st == nil || en == nil || len(st) != len(en) {
			return nil
		}
		axes, steps := ints(3), ints(4)
		if o.in(3) != nil && axes == nil || o.in(4) != nil && steps == nil {
			return nil
		}
		dims := append([]int64{}, xd...)
		for k := range st {
			a := int64(k)
			if axes != nil {
				a = axes[k]
			}
			d, err := o.normAxis(a, r)
			if err != nil {
				return nil
			}
			step := int64(1)
			if steps != nil {
				step = steps[k]
			}
			dim, b, e := xd[d], st[k], en[k]
			if b < 0 {
				b += dim
			}
			if e < 0 {
				e += dim
			}
			switch {
			case step > 0:
				b, e = clampI(b, 0, dim), clampI(e, 0, dim)
				dims[d] = max64(0, (e-b+step-1)/step)
			case step < 0:
				b, e = clampI(b, -1, dim-1), clampI(e, -1, dim-1)
				dims[d] = max64(0, (b-e-step-1)/(-step))
			default:
				return nil
			}
		}
		return dims
	case "Concat":
		ax, err := o.normAxis(o.attrInt("axis", 0), r)
		if err != nil {
			return nil
		}
		dims := append([]int64{}, xd...)
		dims[ax] = 0
		for _, v := range o.ins {
			if v == nil {
				continue
			}
			t := tt(v)
			if t == nil || !ir.HasStaticShape(t) || len(t.Dims) != r {
				return nil
			}
			dims[ax] += t.Dims[ax]
		}
		return dims
	case "Transpose":
		perm, ok := o.attrInts("perm")
		if !ok {
			for i := r - 1; i >= 0; i-- {
				perm = append(perm, int64(i))
			}
		}
		if len(perm) != r {
			return nil
		}
		dims := make([]int64, r)
		for i, p := range perm {
			if p < 0 || int(p) >= r {
				return nil
			}
			dims[i] = xd[p]
		}
		return dims
	case "Unsqueeze":
		axes := axesOf()
		if axes == nil {
			return nil
		}
		n := r + len(axes)
		ins := map[int]bool{}
		for _, a := range axes {
			if a < 0 {
				a += int64(n)
			}
			ins[int(a)] = true
		}
		var dims []int64
		k := 0
		for i := 0; i < n; i++ {
			if ins[i] {
				dims = append(dims, 1)
			} else if k < r {
				dims = append(dims, xd[k])
				k++
			}
		}
		return dims
	case "Squeeze":
		axes := axesOf()
		drop := map[int]bool{}
		for _, a := range axes {
			d, err := o.normAxis(a, r)
			if err != nil {
				return nil
			}
			drop[d] = true
		}
		var dims []int64
		for i, d := range xd {
			if axes == nil && d == 1 || drop[i] {
				continue
			}
			dims = append(dims, d)
		}
		return dims
	case "Gather":
		it := tt(o.in(1))
		if it == nil || !ir.HasStaticShape(it) {
			return nil
		}
		ax, err := o.normAxis(o.attrInt("axis", 0), r)
		if err != nil {
			return nil
		}
		return append(append(append([]int64{}, xd[:ax]...), it.Dims...), xd[ax+1:]...)
	case "Flatten":
		ax := o.attrInt("axis", 1)
		if ax < 0 {
			ax += int64(r)
		}
		a, b := int64(1), int64(1)
		for i, d := range xd {
			if int64(i) < ax {
				a *= d
			} else {
				b *= d
			}
		}
		return []int64{a, b}
	case "MatMul":
		y := tt(o.in(1))
		if y == nil || !ir.HasStaticShape(y) || r < 1 || len(y.Dims) < 1 {
			return nil
		}
		a, b := xd, y.Dims
		var out []int64
		if len(a) >= 2 && len(b) >= 2 {
			batch := bcastDims(a[:len(a)-2], b[:len(b)-2])
			if batch == nil {
				return nil
			}
			out = append(append(batch, a[len(a)-2]), b[len(b)-1])
		} else if len(a) == 1 && len(b) >= 2 {
			out = append(append([]int64{}, b[:len(b)-2]...), b[len(b)-1])
		} else if len(b) == 1 && len(a) >= 2 {
			out = append([]int64{}, a[:len(a)-1]...)
		} else {
			out = []int64{}
		}
		return out
	case "Tile":
		rep := ints(1)
		if len(rep) != r {
			return nil
		}
		dims := make([]int64, r)
		for i := range dims {
			dims[i] = xd[i] * rep[i]
		}
		return dims
	case "Pad":
		if o.c.opset < 11 || o.in(3) != nil {
			return nil
		}
		pads := ints(1)
		if len(pads) != 2*r {
			return nil
		}
		dims := make([]int64, r)
		for i := range dims {
			dims[i] = xd[i] + pads[i] + pads[r+i]
		}
		return dims
	}
	return nil
}
