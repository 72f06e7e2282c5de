package onnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Shape inference for the neural-network ops: convolutions, pooling,
// Gemm and MatMul.

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
