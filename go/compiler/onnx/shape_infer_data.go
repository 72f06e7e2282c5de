package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Shape inference for the data-movement ops (Reshape, Concat, Split,
// Slice, Squeeze, Unsqueeze, Gather, Pad), with data propagation.

func inferReshape(n *onnxpb.NodeProto, in []*info, opset int64, extended bool) []*info {
	x := ranked(in, 0)
	var shape []int64
	if opset < 5 {
		shape, _ = attrInts(n, "shape")
	} else if d, ok := partialData(in, 1); ok && (opset >= 14 || extended || in[1].val != nil) {
		// Reshape-14 and newer read propagated shape values; older ones
		// only literal shapes (as ONNX).
		shape = d
	} else if t := ranked(in, 1); (extended || opset >= 14) && t != nil && len(t.dims) == 1 && t.dims[0] >= 0 && elemOf(in, 0) != 0 {
		// Reshape-14 and newer (and gree's pipeline): the rank is the
		// shape's length.
		dims := make([]int64, t.dims[0])
		for i := range dims {
			dims[i] = unknownDim
		}
		return []*info{{t: tensorType(elemOf(in, 0), dims)}}
	} else if elemOf(in, 0) != 0 {
		// Unknown shape values: ONNX knows the element type only.
		return []*info{{t: &vtype{kind: kindTensor, elem: elemOf(in, 0), dims: []int64{}}}}
	}
	if shape == nil || elemOf(in, 0) == 0 {
		return nil
	}
	allowZero := attrInt(n, "allowzero", 0) == 1
	dims := make([]int64, len(shape))
	inferIdx := -1
	knownProd := int64(1)
	allKnown := true
	for i, s := range shape {
		switch {
		case s == unk:
			dims[i] = unknownDim
			allKnown = false
		case s == 0 && !allowZero:
			dims[i] = unknownDim
			if x != nil && i < len(x.dims) {
				dims[i] = x.dims[i]
			}
			if dims[i] < 0 {
				allKnown = false
			} else {
				knownProd *= dims[i]
			}
		case s == -1:
			inferIdx = i
			dims[i] = unknownDim
		default:
			dims[i] = s
			knownProd *= s
		}
	}
	if inferIdx >= 0 && allKnown && x != nil && x.static() && knownProd > 0 {
		dims[inferIdx] = x.numElements() / knownProd
	}
	o := &info{t: tensorType(elemOf(in, 0), dims)}
	if in[0] != nil && in[0].data != nil && o.t.static() && o.t.numElements() == int64(len(in[0].data)) {
		o.data = in[0].data
	}
	return []*info{o}
}

func inferConcat(n *onnxpb.NodeProto, in []*info) []*info {
	if len(in) == 0 {
		return nil
	}
	first := ranked(in, 0)
	if first == nil {
		return nil
	}
	axis, ok := normAxis(attrInt(n, "axis", 0), len(first.dims))
	if !ok {
		return nil
	}
	dims := append([]int64{}, first.dims...)
	dims[axis] = 0
	var data []int64
	withData := len(first.dims) == 1
	for i := range in {
		t := ranked(in, i)
		if t == nil || len(t.dims) != len(dims) {
			return nil
		}
		for j, d := range t.dims {
			if j == axis {
				if d < 0 || dims[axis] < 0 {
					dims[axis] = unknownDim
				} else {
					dims[axis] += d
				}
			} else if dims[j] < 0 {
				dims[j] = d
			}
		}
		if d, ok := partialData(in, i); ok && withData {
			data = append(data, d...)
		} else if withData && t.static() && t.numElements() <= maxDataElems {
			for k := int64(0); k < t.numElements(); k++ {
				data = append(data, unk)
			}
		} else {
			withData = false
		}
	}
	o := &info{t: tensorType(first.elem, dims)}
	if withData && o.t.static() && int64(len(data)) == o.t.numElements() {
		o.data = data
	}
	return []*info{o}
}

func inferSplit(n *onnxpb.NodeProto, in []*info, opset int64, extended bool) []*info {
	x := ranked(in, 0)
	nout := len(n.GetOutput())
	if x == nil || nout == 0 {
		return nil
	}
	axis, ok := normAxis(attrInt(n, "axis", 0), len(x.dims))
	if !ok {
		return nil
	}
	var split []int64
	if opset < 13 {
		split, _ = attrInts(n, "split")
	} else if present(in, 1) {
		// ONNX uses literal split sizes only (propagated ones when folding).
		if in[1].val != nil || extended {
			split, _ = intData(in, 1)
		}
		if split == nil {
			out := make([]*info, nout)
			for i := range out {
				out[i] = &info{t: &vtype{kind: kindTensor, elem: x.elem, dims: []int64{}}}
			}
			return out
		}
	}
	d := x.dims[axis]
	if split == nil {
		if d < 0 {
			return unaryRankOnlyNKeep(x, axis, nout)
		}
		chunk := (d + int64(nout) - 1) / int64(nout)
		if opset < 18 {
			chunk = d / int64(nout)
		}
		// As ONNX: equal chunks and the rest in the last (unknown when
		// negative).
		for i := 0; i < nout-1; i++ {
			split = append(split, chunk)
		}
		last := d - chunk*int64(nout-1)
		if last < 0 {
			last = unknownDim
		}
		split = append(split, last)
	}
	if len(split) != nout {
		return nil
	}
	out := make([]*info, nout)
	for i := range out {
		dims := append([]int64{}, x.dims...)
		dims[axis] = split[i]
		out[i] = &info{t: tensorType(x.elem, dims)}
	}
	return out
}

func unaryRankOnlyNKeep(x *vtype, axis, n int) []*info {
	out := make([]*info, n)
	for i := range out {
		dims := append([]int64{}, x.dims...)
		dims[axis] = unknownDim
		out[i] = &info{t: tensorType(x.elem, dims)}
	}
	return out
}

func inferSlice(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	var starts, ends, axes, steps []int64
	if opset < 10 {
		starts, _ = attrInts(n, "starts")
		ends, _ = attrInts(n, "ends")
		axes, _ = attrInts(n, "axes")
	} else {
		var ok1, ok2 bool
		starts, ok1 = intData(in, 1)
		ends, ok2 = intData(in, 2)
		if !ok1 || !ok2 {
			return unaryRankOnly(in)
		}
		if present(in, 3) {
			var ok bool
			if axes, ok = intData(in, 3); !ok {
				return unaryRankOnly(in)
			}
		}
		if present(in, 4) {
			var ok bool
			if steps, ok = intData(in, 4); !ok {
				return unaryRankOnly(in)
			}
		}
	}
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	if steps == nil {
		for range starts {
			steps = append(steps, 1)
		}
	}
	if len(starts) != len(ends) || len(axes) != len(starts) || len(steps) != len(starts) {
		return nil
	}
	dims := append([]int64{}, x.dims...)
	var dataIdx []int64
	for i, a := range axes {
		ax, ok := normAxis(a, len(dims))
		if !ok || steps[i] == 0 {
			return nil
		}
		d := x.dims[ax]
		if d < 0 {
			dims[ax] = unknownDim
			continue
		}
		s, e, st := starts[i], ends[i], steps[i]
		if s < 0 {
			s += d
		}
		if e < 0 {
			e += d
		}
		var length int64
		if st > 0 {
			s, e = max(0, min(s, d)), max(0, min(e, d))
			length = max(0, (e-s+st-1)/st)
		} else {
			s, e = max(-1, min(s, d-1)), max(-1, min(e, d-1))
			length = max(0, (s-e-st-1)/(-st))
		}
		dims[ax] = length
		if len(x.dims) == 1 && in[0].data != nil && length <= maxDataElems {
			for j := int64(0); j < length; j++ {
				dataIdx = append(dataIdx, s+j*st)
			}
		}
	}
	o := &info{t: tensorType(x.elem, dims)}
	if d, ok := partialData(in, 0); ok && len(x.dims) == 1 && len(axes) == 1 && int64(len(dataIdx)) == dims[0] {
		o.data = make([]int64, len(dataIdx))
		for i, j := range dataIdx {
			o.data[i] = d[j]
		}
	}
	return []*info{o}
}

func axesOf(n *onnxpb.NodeProto, in []*info, opset int64, inputFrom int64) ([]int64, bool, bool) {
	if opset < inputFrom {
		a, ok := attrInts(n, "axes")
		return a, ok, true
	}
	if !present(in, 1) {
		return nil, false, true
	}
	a, ok := intData(in, 1)
	return a, true, ok
}

func inferSqueeze(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	axes, given, known := axesOf(n, in, opset, 13)
	if !known {
		return nil
	}
	drop := map[int]bool{}
	if given {
		for _, a := range axes {
			ax, ok := normAxis(a, len(x.dims))
			if !ok {
				return nil
			}
			drop[ax] = true
		}
	} else {
		for i, d := range x.dims {
			if d < 0 {
				return nil
			}
			if d == 1 {
				drop[i] = true
			}
		}
	}
	dims := []int64{}
	for i, d := range x.dims {
		if !drop[i] {
			dims = append(dims, d)
		}
	}
	o := &info{t: tensorType(x.elem, dims)}
	if in[0].data != nil {
		o.data = in[0].data
	}
	return []*info{o}
}

func inferUnsqueeze(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	axes, given, known := axesOf(n, in, opset, 13)
	if !known || !given {
		return nil
	}
	r := len(x.dims) + len(axes)
	ins := map[int]bool{}
	for _, a := range axes {
		ax, ok := normAxis(a, r)
		if !ok || ins[ax] {
			return nil
		}
		ins[ax] = true
	}
	dims := make([]int64, 0, r)
	j := 0
	for i := 0; i < r; i++ {
		if ins[i] {
			dims = append(dims, 1)
		} else {
			dims = append(dims, x.dims[j])
			j++
		}
	}
	o := &info{t: tensorType(x.elem, dims)}
	if in[0].data != nil {
		o.data = in[0].data
	}
	return []*info{o}
}

func inferGather(n *onnxpb.NodeProto, in []*info) []*info {
	x, idx := ranked(in, 0), ranked(in, 1)
	if x == nil || idx == nil || len(x.dims) == 0 {
		return nil
	}
	axis, ok := normAxis(attrInt(n, "axis", 0), len(x.dims))
	if !ok {
		return nil
	}
	dims := append(append(append([]int64{}, x.dims[:axis]...), idx.dims...), x.dims[axis+1:]...)
	o := &info{t: tensorType(x.elem, dims)}
	if d, ok := partialData(in, 0); ok && len(x.dims) == 1 {
		if ids, ok := intData(in, 1); ok {
			o.data = make([]int64, len(ids))
			for i, j := range ids {
				if j < 0 {
					j += int64(len(d))
				}
				if j < 0 || j >= int64(len(d)) {
					o.data = nil
					break
				}
				o.data[i] = d[j]
			}
		}
	}
	return []*info{o}
}

func inferPad(n *onnxpb.NodeProto, in []*info, opset int64, extended bool) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	var pads []int64
	if opset < 11 {
		pads, _ = attrInts(n, "pads")
	} else {
		var ok bool
		// ONNX reads literal pads only (gree's pipeline also propagated ones).
		if pads, ok = intData(in, 1); !ok || (in[1].val == nil && !extended) {
			return unaryRankOnly(in)
		}
	}
	r := len(x.dims)
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	if present(in, 3) {
		a, ok := intData(in, 3)
		if !ok {
			return unaryRankOnly(in)
		}
		axes = a
	}
	if len(pads) != 2*len(axes) {
		return nil
	}
	dims := append([]int64{}, x.dims...)
	for i, a := range axes {
		ax, ok := normAxis(a, r)
		if !ok {
			return nil
		}
		if dims[ax] >= 0 {
			dims[ax] += pads[i] + pads[i+len(axes)]
		}
	}
	return []*info{{t: tensorType(x.elem, dims)}}
}
