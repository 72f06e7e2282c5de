package stablehlo

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// stablehloIndexing converts StableHLO's data-dependent indexing ops:
// gather, dynamic_gather, scatter, sort and select_and_scatter; done is
// false for other ops.
func (r *rewriter) stablehloIndexing(b *ir.Builder, op *ir.Operation, name string) (bool, error) {
	switch name {
	case "gather", "dynamic_gather":
		return true, r.hloGather(b, op)
	case "scatter":
		return true, r.hloScatter(b, op)
	case "sort":
		return true, r.hloSort(b, op)
	case "select_and_scatter":
		return true, r.hloSelectAndScatter(b, op)
	}
	return false, nil
}

var dimNumberField = regexp.MustCompile(`([a-z_]+)\s*=\s*(\[[-0-9,\s]*\]|-?[0-9]+)`)

// dimNumbers parses the fields of a #stablehlo.gather<…> or
// #stablehlo.scatter<…> attribute: lists and single integers (a single
// integer is returned as a one-element list).
func dimNumbers(text string) map[string][]int {
	out := map[string][]int{}
	for _, m := range dimNumberField.FindAllStringSubmatch(text, -1) {
		var ds []int
		for _, f := range strings.Split(strings.Trim(m[2], "[]"), ",") {
			if f = strings.TrimSpace(f); f != "" {
				n, _ := strconv.Atoi(f)
				ds = append(ds, n)
			}
		}
		if ds == nil {
			ds = []int{}
		}
		out[m[1]] = ds
	}
	return out
}

func idxContains(s []int, x int) bool {
	for _, y := range s {
		if x == y {
			return true
		}
	}
	return false
}

// hloConstInts reads the integer elements of a constant tensor operand.
func hloConstInts(v *ir.Value) ([]int64, bool) {
	def := v.Owner()
	if def == nil || (def.Name != "arith.constant" && def.Name != "stablehlo.constant") {
		return nil, false
	}
	d, ok := def.Attr("value").(*ir.DenseElementsAttr)
	if !ok {
		return nil, false
	}
	out := make([]int64, d.NumElements())
	for i := range out {
		out[i] = d.IntAt(int64(i))
	}
	return out, true
}

// hloGather lowers gather (and dynamic_gather with constant slice sizes)
// to a generic over the result whose body reads the start indices and the
// operand with tensor.extract, following the StableHLO spec: start indices
// are clamped so that the whole slice lies inside the operand.
func (r *rewriter) hloGather(b *ir.Builder, op *ir.Operation) error {
	if len(op.Operands) < 2 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "needs an operand and start indices")
	}
	operand, indices := op.Operands[0], op.Operands[1]
	ot, ok1 := operand.Type.(*ir.RankedTensorType)
	it, ok2 := indices.Type.(*ir.RankedTensorType)
	rt, ok3 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 {
		return ir.OpErrorf(op, "needs ranked tensor operands and result")
	}
	dn := dimNumbers(attrText(op, "dimension_numbers"))
	sizes := core.IntsOf(op, "slice_sizes")
	if op.Name == "stablehlo.dynamic_gather" {
		var ok bool
		if len(op.Operands) != 3 {
			return ir.OpErrorf(op, "needs slice sizes as its third operand")
		}
		if sizes, ok = hloConstInts(op.Operands[2]); !ok {
			return ir.OpErrorf(op, "with slice sizes that are not constant is not supported by gree")
		}
	}
	offsetDims, collapsed := dn["offset_dims"], dn["collapsed_slice_dims"]
	obd, sibd, sim := dn["operand_batching_dims"], dn["start_indices_batching_dims"], dn["start_index_map"]
	ivd := 0 // the default when the attribute omits it
	if v, ok := dn["index_vector_dim"]; ok && len(v) == 1 {
		ivd = v[0]
	}
	n, on := len(rt.Dims), len(ot.Dims)
	if len(sizes) != on || len(obd) != len(sibd) || ivd > len(it.Dims) || ivd < 0 ||
		len(offsetDims)+len(collapsed)+len(obd) != on {
		return ir.OpErrorf(op, "has dimension numbers or slice sizes that do not match its operand ranks")
	}
	var batchDims []int
	for d := 0; d < n; d++ {
		if !idxContains(offsetDims, d) {
			batchDims = append(batchDims, d)
		}
	}
	// Result dimension of each non-index_vector_dim dimension of indices.
	var idxDimOfBatch []int
	for d := 0; d < len(it.Dims); d++ {
		if d != ivd {
			idxDimOfBatch = append(idxDimOfBatch, d)
		}
	}
	if len(idxDimOfBatch) != len(batchDims) {
		return ir.OpErrorf(op, "has a result rank that does not match its offset_dims and start indices")
	}
	for _, d := range append(append([]int{}, sim...), append(collapsed, obd...)...) {
		if d < 0 || d >= on {
			return ir.OpErrorf(op, "has dimension numbers outside the operand's rank")
		}
	}
	for _, d := range offsetDims {
		if d < 0 || d >= n {
			return ir.OpErrorf(op, "has offset_dims outside the result's rank")
		}
	}
	for _, d := range sibd {
		if d < 0 || d >= len(it.Dims) || d == ivd {
			return ir.OpErrorf(op, "has start_indices_batching_dims outside the start indices' batch dimensions")
		}
	}
	// Upper bounds of the clamped start indices (outside the generic).
	limit := make([]*ir.Value, on)
	for _, d := range sim {
		if ot.Dims[d] >= 0 {
			limit[d] = b.Constant(ir.IntAttr(max(ot.Dims[d]-sizes[d], 0), ir.Index))
		} else {
			limit[d] = core.BinOp(b, "arith.subi", linalg.Dim(b, operand, d), b.Constant(ir.IntAttr(sizes[d], ir.Index)))
		}
	}
	// The result's dynamic dimensions are batch dimensions of the indices.
	var dyn []*ir.Value
	for d, sz := range rt.Dims {
		if sz >= 0 {
			continue
		}
		k := idxIndexOf(batchDims, d)
		if k < 0 {
			return ir.OpErrorf(op, "has a dynamic offset dimension, which gree does not support")
		}
		dyn = append(dyn, linalg.Dim(b, indices, idxDimOfBatch[k]))
	}
	out := b.Create("tensor.empty", dyn, []ir.Type{rt}).Result(0)
	zero := b.Constant(ir.IntAttr(0, ir.Index))
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		res := make([]*ir.Value, n)
		for d := range res {
			res[d] = core.LoopIndex(bb, d)
		}
		start := make([]*ir.Value, on)
		for k, d := range sim {
			var ix []*ir.Value
			for id := range it.Dims {
				if id == ivd {
					ix = append(ix, bb.Constant(ir.IntAttr(int64(k), ir.Index)))
				} else {
					ix = append(ix, res[batchDims[idxIndexOf(idxDimOfBatch, id)]])
				}
			}
			s := bb.Create("tensor.extract", append([]*ir.Value{indices}, ix...), []ir.Type{it.Elem}).Result(0)
			s = core.ToIndex(bb, s)
			s = core.BinOp(bb, "arith.maxsi", s, zero)
			start[d] = core.BinOp(bb, "arith.minsi", s, limit[d])
		}
		for i, od := range obd {
			pos := sibd[i]
			if pos > ivd {
				pos--
			}
			start[od] = res[batchDims[pos]]
		}
		var ox []*ir.Value
		j := 0
		for d := 0; d < on; d++ {
			x := start[d]
			if !idxContains(collapsed, d) && !idxContains(obd, d) {
				off := res[offsetDims[j]]
				j++
				if x == nil {
					x = off
				} else {
					x = core.BinOp(bb, "arith.addi", x, off)
				}
			}
			if x == nil {
				x = zero
			}
			ox = append(ox, x)
		}
		return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{operand}, ox...), []ir.Type{rt.Elem}).Result(0)}
	})
	r.Replace(op, g.Results)
	return nil
}

func idxIndexOf(s []int, x int) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}
