package onnx

import (
	"encoding/binary"
	"math"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// arith propagates integer data through Add/Sub/Mul/Div of small tensors
// (same size or a scalar operand).
func arith(opType string, in []*info, out *vtype) []int64 {
	if len(in) != 2 || !out.static() || (out.elem != dtInt64 && out.elem != dtInt32) {
		return nil
	}
	a, aok := partialData(in, 0)
	b, bok := partialData(in, 1)
	n := out.numElements()
	if !aok || !bok || n > maxDataElems {
		return nil
	}
	at := func(d []int64, i int64) (int64, bool) {
		switch int64(len(d)) {
		case 1:
			return d[0], true
		case n:
			return d[i], true
		}
		return 0, false
	}
	res := make([]int64, n)
	for i := int64(0); i < n; i++ {
		x, ok1 := at(a, i)
		y, ok2 := at(b, i)
		if !ok1 || !ok2 {
			return nil
		}
		if x == unk || y == unk {
			res[i] = unk
			continue
		}
		switch opType {
		case "Add":
			res[i] = x + y
		case "Sub":
			res[i] = x - y
		case "Mul":
			res[i] = x * y
		case "Div":
			if y == 0 {
				res[i] = unk
			} else {
				res[i] = x / y
			}
		}
	}
	return res
}

func inferShape(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	t := ranked(in, 0)
	if t == nil {
		return []*info{{t: tensorType(dtInt64, []int64{unknownDim})}}
	}
	r := int64(len(t.dims))
	start, end := int64(0), r
	if opset >= 15 {
		start, end = attrInt(n, "start", 0), attrInt(n, "end", r)
		clampAxis := func(a int64) int64 {
			if a < 0 {
				a += r
			}
			return max(0, min(a, r))
		}
		start, end = clampAxis(start), clampAxis(end)
		if end < start {
			end = start
		}
	}
	data := make([]int64, 0, end-start)
	for _, d := range t.dims[start:end] {
		data = append(data, orUnk(d))
	}
	return []*info{dataInfo(dtInt64, []int64{int64(len(data))}, data)}
}

func inferReduce(n *onnxpb.NodeProto, in []*info, opset int64, extended bool) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	keep := attrInt(n, "keepdims", 1) == 1
	op := n.GetOpType()
	elem := x.elem
	var axes []int64
	if op == "ArgMax" || op == "ArgMin" {
		axes = []int64{attrInt(n, "axis", 0)}
		elem = dtInt64
	} else {
		from := int64(18)
		if op == "ReduceSum" {
			from = 13
		}
		a, given, known := axesOf(n, in, opset, from)
		if !known {
			// Unknown axes: ONNX knows the element type only. When folding
			// (gree's own pipeline) the rank is known from keepdims or the
			// number of axes, and the dimensions are dynamic.
			if extended {
				rank := len(x.dims)
				if !keep {
					if at := ranked(in, 1); at != nil && len(at.dims) == 1 && at.dims[0] >= 0 && at.dims[0] > 0 {
						rank -= int(at.dims[0])
					} else {
						rank = -1
					}
				}
				if rank >= 0 {
					dims := make([]int64, rank)
					for i := range dims {
						dims[i] = unknownDim
					}
					return []*info{{t: tensorType(elem, dims)}}
				}
			}
			return []*info{{t: &vtype{kind: kindTensor, elem: elem, dims: []int64{}}}}
		}
		if given {
			axes = a
		}
		if len(axes) == 0 && attrInt(n, "noop_with_empty_axes", 0) == 1 {
			return unaryLike(in)
		}
	}
	red := map[int]bool{}
	if len(axes) == 0 {
		for i := range x.dims {
			red[i] = true
		}
	}
	for _, a := range axes {
		ax, ok := normAxis(a, len(x.dims))
		if !ok {
			return nil
		}
		red[ax] = true
	}
	dims := []int64{}
	for i, d := range x.dims {
		if red[i] {
			if keep {
				dims = append(dims, 1)
			}
		} else {
			dims = append(dims, d)
		}
	}
	return []*info{{t: tensorType(elem, dims)}}
}

func inferConstant(n *onnxpb.NodeProto) []*info {
	for _, a := range n.GetAttribute() {
		switch a.GetName() {
		case "value":
			t, err := decodeTensor(a.GetT())
			if err != nil {
				return nil
			}
			return []*info{constInfo(t)}
		case "value_float":
			return []*info{{t: tensorType(dtFloat, []int64{})}}
		case "value_floats":
			return []*info{{t: tensorType(dtFloat, []int64{int64(len(a.GetFloats()))})}}
		case "value_int":
			return []*info{constInfo(int64Tensor([]int64{}, []int64{a.GetI()}))}
		case "value_ints":
			return []*info{constInfo(int64Tensor([]int64{int64(len(a.GetInts()))}, a.GetInts()))}
		case "value_string":
			return []*info{{t: tensorType(dtString, []int64{})}}
		case "value_strings":
			return []*info{{t: tensorType(dtString, []int64{int64(len(a.GetStrings()))})}}
		}
	}
	return nil
}

// scalarFloat reads a known scalar of any numeric type as float64.
func scalarFloat(i *info) (float64, bool) {
	if i == nil {
		return 0, false
	}
	if i.known() && len(i.data) == 1 {
		return float64(i.data[0]), true
	}
	if i.val != nil && i.val.numElements() == 1 {
		if f, ok := floatsOf(i.val); ok {
			return f[0], true
		}
	}
	return 0, false
}

// floatsOf decodes a float or double literal.
func floatsOf(t *tensor) ([]float64, bool) {
	n := int(t.numElements())
	out := make([]float64, n)
	switch t.elem {
	case dtFloat:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:])))
		}
	case dtDouble:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.data[8*i:]))
		}
	default:
		return nil, false
	}
	return out, true
}

func inferRange(in []*info, extended bool) []*info {
	elem := elemOf(in, 0)
	if len(in) != 3 || elem == 0 {
		return nil
	}
	// As ONNX's Range inference, only literal inputs (not propagated
	// values) give the length.
	for _, i := range in {
		if i == nil || (i.val == nil && !extended) {
			return []*info{{t: tensorType(elem, []int64{unknownDim})}}
		}
	}
	start, ok1 := scalarFloat(in[0])
	limit, ok2 := scalarFloat(in[1])
	delta, ok3 := scalarFloat(in[2])
	if !ok1 || !ok2 || !ok3 || delta == 0 {
		return []*info{{t: tensorType(elem, []int64{unknownDim})}}
	}
	count := int64(math.Max(math.Ceil((limit-start)/delta), 0))
	o := &info{t: tensorType(elem, []int64{count})}
	if (elem == dtInt64 || elem == dtInt32) && count <= maxDataElems {
		o.data = make([]int64, count)
		for i := range o.data {
			o.data[i] = int64(start) + int64(i)*int64(delta)
		}
	}
	return []*info{o}
}

func inferResize(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	r := len(x.dims)
	var sizes []int64
	var scales []float64
	scalesIdx := 1
	if n.GetOpType() == "Resize" && opset >= 11 {
		scalesIdx = 2
		if present(in, 3) {
			if s, ok := intData(in, 3); ok {
				sizes = s
			} else {
				return unaryRankOnly(in)
			}
		}
	}
	if n.GetOpType() == "Upsample" && opset < 9 {
		if f, ok := attrFloats(n, "scales"); ok {
			for _, v := range f {
				scales = append(scales, float64(v))
			}
		}
	} else if sizes == nil && present(in, scalesIdx) && in[scalesIdx].val != nil {
		scales, _ = floatsOf(in[scalesIdx].val)
	}
	dims := make([]int64, r)
	switch {
	case len(sizes) == r:
		copy(dims, sizes)
	case len(scales) == r:
		for i, d := range x.dims {
			if d < 0 {
				dims[i] = unknownDim
			} else {
				dims[i] = int64(math.Floor(float64(d) * scales[i]))
			}
		}
	default:
		return unaryRankOnly(in)
	}
	return []*info{{t: tensorType(x.elem, dims)}}
}
