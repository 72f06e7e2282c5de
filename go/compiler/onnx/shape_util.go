package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Helpers for shape inference: attribute access, broadcasting, axes.

func findAttr(n *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

func attrInt(n *onnxpb.NodeProto, name string, def int64) int64 {
	if a := findAttr(n, name); a != nil {
		return a.GetI()
	}
	return def
}

func attrInts(n *onnxpb.NodeProto, name string) ([]int64, bool) {
	if a := findAttr(n, name); a != nil {
		return a.GetInts(), true
	}
	return nil, false
}

func attrString(n *onnxpb.NodeProto, name, def string) string {
	if a := findAttr(n, name); a != nil {
		return string(a.GetS())
	}
	return def
}

func attrFloats(n *onnxpb.NodeProto, name string) ([]float32, bool) {
	if a := findAttr(n, name); a != nil {
		return a.GetFloats(), true
	}
	return nil, false
}

// ranked returns the input's tensor type when its rank is known.
func ranked(in []*info, i int) *vtype {
	if i >= len(in) || in[i] == nil || !in[i].t.isTensor() || !in[i].t.ranked {
		return nil
	}
	return in[i].t
}

// elemOf returns the input's element type (0 if unknown).
func elemOf(in []*info, i int) int32 {
	if i >= len(in) || in[i] == nil || !in[i].t.isTensor() {
		return 0
	}
	return in[i].t.elem
}

// intData returns an input's fully known integer elements.
func intData(in []*info, i int) ([]int64, bool) {
	if i >= len(in) || !in[i].known() {
		return nil, false
	}
	return in[i].data, true
}

// present reports whether optional input i is given.
func present(in []*info, i int) bool { return i < len(in) && in[i] != nil }

func normAxis(a int64, rank int) (int, bool) {
	if a < 0 {
		a += int64(rank)
	}
	if a < 0 || a >= int64(rank) {
		return 0, false
	}
	return int(a), true
}

// broadcastDims is numpy broadcasting of dimension lists.
func broadcastDims(shapes ...[]int64) ([]int64, bool) {
	rank := 0
	for _, s := range shapes {
		if len(s) > rank {
			rank = len(s)
		}
	}
	out := make([]int64, rank)
	for i := range out {
		d := int64(1)
		unknown := false
		for _, s := range shapes {
			j := i - (rank - len(s))
			if j < 0 {
				continue
			}
			switch v := s[j]; {
			case v < 0:
				unknown = true
			case v == 1:
			case d == 1:
				d = v
			case d != v:
				return nil, false
			}
		}
		if unknown && d == 1 {
			d = unknownDim
		}
		out[i] = d
	}
	return out, true
}

func unaryLike(in []*info) []*info {
	if t := ranked(in, 0); t != nil {
		return []*info{{t: tensorType(t.elem, append([]int64{}, t.dims...))}}
	}
	if e := elemOf(in, 0); e != 0 {
		return []*info{{t: &vtype{kind: kindTensor, elem: e}}}
	}
	return nil
}

func withElem(out []*info, elem int32) []*info {
	for _, o := range out {
		if o != nil && o.t != nil {
			o.t.elem = elem
		}
	}
	return out
}

// broadcastOp infers a variadic broadcasting op with the given result
// element type (0 = the first input's).
func broadcastOp(in []*info, elem int32) []*info {
	if elem == 0 {
		elem = elemOf(in, 0)
	}
	if elem == 0 {
		return nil
	}
	var shapes [][]int64
	for i := range in {
		t := ranked(in, i)
		if t == nil {
			return []*info{{t: &vtype{kind: kindTensor, elem: elem}}}
		}
		shapes = append(shapes, t.dims)
	}
	dims, ok := broadcastDims(shapes...)
	if !ok {
		return nil
	}
	return []*info{{t: tensorType(elem, dims)}}
}

func prod(ds []int64) int64 {
	p := int64(1)
	for _, d := range ds {
		if d < 0 {
			return unknownDim
		}
		p *= d
	}
	return p
}

// dataInfo makes a 1-D or 0-D integer value with (partly) known elements.
func dataInfo(elem int32, dims []int64, data []int64) *info {
	return &info{t: tensorType(elem, dims), data: data}
}

// dimsOfData turns propagated shape data into dimensions.
func dimsOfData(data []int64) []int64 {
	out := make([]int64, len(data))
	for i, v := range data {
		if v == unk || v < 0 {
			out[i] = unknownDim
		} else {
			out[i] = v
		}
	}
	return out
}

// partialData returns an input's element list when it is a small 1-D or
// 0-D integer value (elements may be unk).
func partialData(in []*info, i int) ([]int64, bool) {
	if i >= len(in) || in[i] == nil || in[i].data == nil {
		return nil, false
	}
	return in[i].data, true
}
