package onnx

import (
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// inferEinsum types an Einsum from its equation ("ij,jk->ik", with "..."
// for broadcast dimensions; without "->" the output is the ellipsis
// dimensions then the letters used once, in alphabetical order).
func inferEinsum(n *onnxpb.NodeProto, in []*info) []*info {
	eq := strings.ReplaceAll(attrString(n, "equation", ""), " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(in) || elemOf(in, 0) == 0 {
		return nil
	}
	letter := map[byte]int64{}
	count := map[byte]int{}
	var ellipsis []int64
	for i, term := range terms {
		t := ranked(in, i)
		if t == nil {
			return nil
		}
		pre, post, hasEll := strings.Cut(term, "...")
		letters := pre + post
		nell := len(t.dims) - len(letters)
		if nell < 0 || (!hasEll && nell != 0) {
			return nil
		}
		dims := t.dims
		for k := 0; k < len(pre); k++ {
			if !record(letter, count, pre[k], dims[k]) {
				return nil
			}
		}
		for k := 0; k < len(post); k++ {
			if !record(letter, count, post[k], dims[len(pre)+nell+k]) {
				return nil
			}
		}
		if hasEll {
			b, ok := broadcastDims(ellipsis, dims[len(pre):len(pre)+nell])
			if !ok {
				return nil
			}
			ellipsis = b
		}
	}
	var out []int64
	if !explicit {
		out = append(out, ellipsis...)
		var once []byte
		for c, k := range count {
			if k == 1 {
				once = append(once, c)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		for _, c := range once {
			out = append(out, letter[c])
		}
	} else {
		pre, post, hasEll := strings.Cut(rhs, "...")
		for k := 0; k < len(pre); k++ {
			d, ok := letter[pre[k]]
			if !ok {
				return nil
			}
			out = append(out, d)
		}
		if hasEll {
			out = append(out, ellipsis...)
		}
		for k := 0; k < len(post); k++ {
			d, ok := letter[post[k]]
			if !ok {
				return nil
			}
			out = append(out, d)
		}
	}
	if out == nil {
		out = []int64{}
	}
	return []*info{{t: tensorType(elemOf(in, 0), out)}}
}

// record notes a letter's dimension (unknown sizes yield to known ones;
// 1 broadcasts); false on a conflict.
func record(letter map[byte]int64, count map[byte]int, c byte, d int64) bool {
	count[c]++
	old, seen := letter[c]
	switch {
	case !seen || old < 0 || old == 1:
		if !seen || d >= 0 {
			letter[c] = d
		}
	case d >= 0 && d != 1 && d != old:
		return false
	}
	return true
}
