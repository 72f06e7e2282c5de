package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/intfold"
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Data propagation beyond ONNX's own (FoldShapes, gree's pipeline): the
// element-wise ops that shape computations use besides Add/Sub/Mul/Div —
// comparisons, logic, Where, Max/Min/Mod, Neg/Abs and Cast to or from
// booleans — computed on small integer and boolean values, and Slice and
// Transpose of small N-D values (ONNX propagates only 1-D ones). torch's
// exporter builds `expand(n, -1, -1)`'s target shape as
// Where(Equal(shape, ConstantOfShape(..) * -1), ConstantOfShape(..), shape),
// which is static once these fold.

// propagateExtra fills the data of n's outputs that inferNode leaves
// unknown, for the ops above. It only adds data; types are unchanged.
func propagateExtra(n *onnxpb.NodeProto, in []*info, out []*info) {
	if normalizeDomain(n.GetDomain()) != "" || len(out) != 1 || out[0] == nil || out[0].t == nil || out[0].data != nil {
		return
	}
	o := out[0]
	if !o.t.static() || o.t.numElements() > maxDataElems || !dataElem(o.t.elem) {
		return
	}
	op := n.GetOpType()
	var data []int64
	switch op {
	case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
		"Max", "Min", "Mod", "Add", "Sub", "Mul", "Div":
		if len(in) != 2 {
			return
		}
		data = mapData(in, o.t.numElements(), func(v []int64) (int64, bool) {
			return intfold.Binary(op, v[0], v[1], attrInt(n, "fmod", 0) != 0)
		})
	case "Where":
		if len(in) != 3 {
			return
		}
		data = mapData(in, o.t.numElements(), func(v []int64) (int64, bool) {
			if v[0] != 0 {
				return v[1], true
			}
			return v[2], true
		})
	case "Neg", "Abs", "Not", "Identity":
		if len(in) != 1 {
			return
		}
		data = mapData(in, o.t.numElements(), func(v []int64) (int64, bool) {
			return intfold.Unary(op, v[0]), true
		})
	case "Transpose":
		data = transposeData(n, in, o.t.dims)
	case "Slice":
		data = sliceData(in, o.t.dims)
	case "Cast":
		if len(in) != 1 {
			return
		}
		to := o.t.elem
		data = mapData(in, o.t.numElements(), func(v []int64) (int64, bool) {
			if to == dtBool {
				return b2i(v[0] != 0), true
			}
			return v[0], true
		})
	}
	if data != nil {
		o.data = data
	}
}

// transposeData permutes the elements of a small N-D integer value (the
// pads torch's F.pad builds as a [n, 2] tensor and transposes).
func transposeData(n *onnxpb.NodeProto, in []*info, outDims []int64) []int64 {
	x := ranked(in, 0)
	vals, ok := valuesOf(in[0])
	if x == nil || !ok || !x.static() || int64(len(vals)) != x.numElements() || len(outDims) != len(x.dims) {
		return nil
	}
	r := len(x.dims)
	perm, ok := attrInts(n, "perm")
	if !ok {
		for i := r - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != r {
		return nil
	}
	inStrides := rowMajorStrides(x.dims)
	res := make([]int64, len(vals))
	idx := make([]int64, r)
	for k := range res {
		// idx is the output index of element k; its input offset follows
		// the permutation.
		off := int64(0)
		for i := 0; i < r; i++ {
			off += idx[i] * inStrides[perm[i]]
		}
		res[k] = vals[off]
		for i := r - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < outDims[i] {
				break
			}
			idx[i] = 0
		}
	}
	return res
}

// sliceData slices a small N-D integer value (opset 10 and newer: starts,
// ends, axes and steps are inputs), negative steps included.
func sliceData(in []*info, outDims []int64) []int64 {
	x := ranked(in, 0)
	vals, ok := valuesOf(in[0])
	if len(in) < 3 || x == nil || !ok || !x.static() || int64(len(vals)) != x.numElements() || len(outDims) != len(x.dims) {
		return nil
	}
	starts, ok1 := intData(in, 1)
	ends, ok2 := intData(in, 2)
	if !ok1 || !ok2 || len(starts) != len(ends) {
		return nil
	}
	r := len(x.dims)
	axes := make([]int64, len(starts))
	for i := range axes {
		axes[i] = int64(i)
	}
	steps := make([]int64, len(starts))
	for i := range steps {
		steps[i] = 1
	}
	if present(in, 3) {
		if axes, ok = intData(in, 3); !ok || len(axes) != len(starts) {
			return nil
		}
	}
	if present(in, 4) {
		if steps, ok = intData(in, 4); !ok || len(steps) != len(starts) {
			return nil
		}
	}
	first := make([]int64, r)
	step := make([]int64, r)
	for i := range step {
		step[i] = 1
	}
	for i, a := range axes {
		ax, ok := normAxis(a, r)
		if !ok || steps[i] == 0 {
			return nil
		}
		d, st, s := x.dims[ax], steps[i], starts[i]
		if s < 0 {
			s += d
		}
		if st > 0 {
			s = max(0, min(s, d))
		} else {
			s = max(-1, min(s, d-1))
		}
		first[ax], step[ax] = s, st
	}
	inStrides := rowMajorStrides(x.dims)
	total := prod(outDims)
	if total < 0 {
		return nil
	}
	res := make([]int64, total)
	idx := make([]int64, r)
	for k := range res {
		off := int64(0)
		for i := 0; i < r; i++ {
			p := first[i] + idx[i]*step[i]
			if p < 0 || p >= x.dims[i] {
				return nil
			}
			off += p * inStrides[i]
		}
		res[k] = vals[off]
		for i := r - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < outDims[i] {
				break
			}
			idx[i] = 0
		}
	}
	return res
}

func rowMajorStrides(dims []int64) []int64 {
	s := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}

// dataElem reports the element types whose values are propagated.
func dataElem(e int32) bool {
	return e == dtInt64 || e == dtInt32 || e == dtBool
}

// valuesOf returns a value's (partly) known elements: propagated data, or
// a boolean or narrow integer literal's elements.
func valuesOf(i *info) ([]int64, bool) {
	if i == nil {
		return nil, false
	}
	if i.data != nil {
		return i.data, true
	}
	t := i.val
	if t == nil || t.numElements() > maxDataElems {
		return nil, false
	}
	if vals, ok := t.int64s(); ok {
		return vals, true
	}
	n := int(t.numElements())
	if len(t.data) != n {
		return nil, false
	}
	out := make([]int64, n)
	switch t.elem {
	case dtBool, dtUint8:
		for k, b := range t.data {
			out[k] = int64(b)
		}
	case dtInt8:
		for k, b := range t.data {
			out[k] = int64(int8(b))
		}
	default:
		return nil, false
	}
	return out, true
}

// mapData applies f element by element to the inputs' values, each
// either one element (broadcast) or n elements; any unknown element gives
// an unknown result element. nil when an input's values are not known or
// f does not apply.
func mapData(in []*info, n int64, f func([]int64) (int64, bool)) []int64 {
	vals := make([][]int64, len(in))
	for i := range in {
		v, ok := valuesOf(in[i])
		if !ok || (int64(len(v)) != 1 && int64(len(v)) != n) {
			return nil
		}
		vals[i] = v
	}
	res := make([]int64, n)
	args := make([]int64, len(in))
	for k := int64(0); k < n; k++ {
		res[k] = 0
		known := true
		for i, v := range vals {
			args[i] = v[0]
			if int64(len(v)) == n {
				args[i] = v[k]
			}
			if args[i] == unk {
				known = false
			}
		}
		if !known {
			res[k] = unk
			continue
		}
		r, ok := f(args)
		if !ok {
			res[k] = unk
			continue
		}
		res[k] = r
	}
	return res
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
