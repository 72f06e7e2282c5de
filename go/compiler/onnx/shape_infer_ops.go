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

// spatialParams reads kernel_shape, strides, dilations, pads and auto_pad.
type spatialParams struct {
	kernel, strides, dilations, pads []int64
	autoPad                          string
}

func readSpatial(n *onnxpb.NodeProto, nsp int, kernel []int64) (*spatialParams, bool) {
	p := &spatialParams{kernel: kernel, autoPad: attrString(n, "auto_pad", "NOTSET")}
	if k, ok := attrInts(n, "kernel_shape"); ok {
		p.kernel = k
	}
	if len(p.kernel) != nsp {
		return nil, false
	}
	fill := func(name string, def int64, count int) []int64 {
		if v, ok := attrInts(n, name); ok && len(v) == count {
			return v
		}
		out := make([]int64, count)
		for i := range out {
			out[i] = def
		}
		return out
	}
	p.strides = fill("strides", 1, nsp)
	p.dilations = fill("dilations", 1, nsp)
	p.pads = fill("pads", 0, 2*nsp)
	if p.autoPad == "VALID" {
		p.pads = make([]int64, 2*nsp)
	}
	return p, true
}

func inferConv(n *onnxpb.NodeProto, in []*info, transpose bool) []*info {
	x, w := ranked(in, 0), ranked(in, 1)
	if x == nil || len(x.dims) < 3 {
		return nil
	}
	nsp := len(x.dims) - 2
	elem := x.elem
	if n.GetOpType() == "ConvInteger" {
		elem = dtInt32
	}
	var kernel []int64
	if w != nil && len(w.dims) == len(x.dims) {
		kernel = w.dims[2:]
	}
	p, ok := readSpatial(n, nsp, kernel)
	dims := make([]int64, len(x.dims))
	dims[0] = x.dims[0]
	dims[1] = unknownDim
	if w != nil && len(w.dims) >= 2 {
		if transpose {
			dims[1] = mulDim(w.dims[1], attrInt(n, "group", 1))
		} else {
			dims[1] = w.dims[0]
		}
	}
	for i := 0; i < nsp; i++ {
		dims[2+i] = unknownDim
		if !ok {
			continue
		}
		d, k := x.dims[2+i], p.kernel[i]
		if d < 0 || k < 0 {
			continue
		}
		s, dl := p.strides[i], p.dilations[i]
		ek := (k-1)*dl + 1
		if transpose {
			if os, ok := attrInts(n, "output_shape"); ok && len(os) == nsp {
				dims[2+i] = os[i]
				continue
			}
			op := int64(0)
			if v, ok := attrInts(n, "output_padding"); ok && len(v) == nsp {
				op = v[i]
			}
			if p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER" {
				dims[2+i] = d * s
			} else {
				dims[2+i] = s*(d-1) + op + ek - p.pads[i] - p.pads[i+nsp]
			}
			continue
		}
		if s <= 0 {
			continue
		}
		if p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER" {
			dims[2+i] = (d + s - 1) / s
			continue
		}
		dims[2+i] = (d+p.pads[i]+p.pads[i+nsp]-ek)/s + 1
	}
	return []*info{{t: tensorType(elem, dims)}}
}

func inferPool(n *onnxpb.NodeProto, in []*info) []*info {
	x := ranked(in, 0)
	if x == nil || len(x.dims) < 3 {
		return nil
	}
	nsp := len(x.dims) - 2
	p, ok := readSpatial(n, nsp, nil)
	if !ok {
		return nil
	}
	ceil := attrInt(n, "ceil_mode", 0) == 1
	dims := append([]int64{}, x.dims...)
	for i := 0; i < nsp; i++ {
		d := x.dims[2+i]
		if d < 0 {
			continue
		}
		s := p.strides[i]
		if s <= 0 {
			dims[2+i] = unknownDim
			continue
		}
		if p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER" {
			dims[2+i] = (d + s - 1) / s
			continue
		}
		ek := (p.kernel[i]-1)*p.dilations[i] + 1
		eff := d + p.pads[i] + p.pads[i+nsp] - ek
		var pos int64
		if ceil {
			pos = int64(math.Ceil(float64(eff) / float64(s)))
			// The last window must start inside the input or left padding.
			if pos*s >= d+p.pads[i] {
				pos--
			}
		} else {
			pos = floorDiv(eff, s)
		}
		dims[2+i] = pos + 1
	}
	out := []*info{{t: tensorType(x.elem, dims)}}
	if n.GetOpType() == "MaxPool" && len(n.GetOutput()) > 1 {
		out = append(out, &info{t: tensorType(dtInt64, append([]int64{}, dims...))})
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func inferGemm(n *onnxpb.NodeProto, in []*info) []*info {
	a, b := ranked(in, 0), ranked(in, 1)
	if a == nil || b == nil || len(a.dims) != 2 || len(b.dims) != 2 {
		return nil
	}
	m := a.dims[0]
	if attrInt(n, "transA", 0) != 0 {
		m = a.dims[1]
	}
	nn := b.dims[1]
	if attrInt(n, "transB", 0) != 0 {
		nn = b.dims[0]
	}
	return []*info{{t: tensorType(a.elem, []int64{m, nn})}}
}

func inferMatMul(in []*info) []*info {
	a, b := ranked(in, 0), ranked(in, 1)
	if a == nil || b == nil || len(a.dims) == 0 || len(b.dims) == 0 {
		return nil
	}
	ad, bd := a.dims, b.dims
	if len(ad) == 1 {
		ad = []int64{1, ad[0]}
	}
	if len(bd) == 1 {
		bd = []int64{bd[0], 1}
	}
	batch, ok := broadcastDims(ad[:len(ad)-2], bd[:len(bd)-2])
	if !ok {
		return nil
	}
	dims := batch
	if len(a.dims) > 1 {
		dims = append(dims, ad[len(ad)-2])
	}
	if len(b.dims) > 1 {
		dims = append(dims, bd[len(bd)-1])
	}
	elem := a.elem
	if elem == dtInt8 || elem == dtUint8 {
		elem = dtInt32
	}
	return []*info{{t: tensorType(elem, dims)}}
}

func inferReshape(n *onnxpb.NodeProto, in []*info, opset int64, extended bool) []*info {
	x := ranked(in, 0)
	var shape []int64
	if opset < 5 {
		shape, _ = attrInts(n, "shape")
	} else if d, ok := partialData(in, 1); ok && (opset >= 14 || extended || in[1].val != nil) {
		// Reshape-14 and newer read propagated shape values; older ones
		// only literal shapes (as ONNX).
		shape = d
	} else if t := ranked(in, 1); extended && t != nil && len(t.dims) == 1 && t.dims[0] >= 0 && elemOf(in, 0) != 0 {
		// gree's pipeline: the rank is the shape's length.
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

func inferPad(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	x := ranked(in, 0)
	if x == nil {
		return nil
	}
	var pads []int64
	if opset < 11 {
		pads, _ = attrInts(n, "pads")
	} else {
		var ok bool
		if pads, ok = intData(in, 1); !ok {
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
			return []*info{dataInfo(dtInt64, []int64{}, []int64{a.GetI()})}
		case "value_ints":
			return []*info{dataInfo(dtInt64, []int64{int64(len(a.GetInts()))}, append([]int64{}, a.GetInts()...))}
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
