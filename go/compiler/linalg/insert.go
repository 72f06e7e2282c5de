package linalg

import "github.com/gree-ml/gree/go/compiler/ir"

// InsertSliceName is tensor.insert_slice, kept as an op (not a generic
// over the whole destination) when the inserted block is one contiguous
// byte range of the destination (ContiguousInsert): the host program then
// copies the destination and writes the block's bytes into it, as a
// recurrent loop stores each step's output into its sequence.
const InsertSliceName = "tensor.insert_slice"

// DynamicIndex marks a dynamic entry of static_offsets/sizes/strides.
const DynamicIndex = -1 << 63

// ContiguousInsert reports whether op is a tensor.insert_slice whose
// source is one contiguous range of its destination: unit strides, static
// sizes, every size before some dimension d equal to 1 and every size
// after it the whole (static) dimension at offset 0, dimensions after the
// first static, whole-byte elements. Offsets may be dynamic. It returns the
// destination's row-major element strides (the element offset of the
// block is Σ offset[k]·strides[k]).
func ContiguousInsert(op *ir.Operation) ([]int64, bool) {
	if op.Name != InsertSliceName || len(op.Results) != 1 || len(op.Operands) < 2 {
		return nil, false
	}
	dt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	st, ok2 := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || !byteSized(dt.Elem) || !ir.HasStaticShape(st) {
		return nil, false
	}
	offs, _ := op.Attr("static_offsets").(*ir.DenseArrayAttr)
	sizes, _ := op.Attr("static_sizes").(*ir.DenseArrayAttr)
	strides, _ := op.Attr("static_strides").(*ir.DenseArrayAttr)
	n := len(dt.Dims)
	if offs == nil || sizes == nil || strides == nil || len(offs.Ints) != n || len(sizes.Ints) != n || len(strides.Ints) != n {
		return nil, false
	}
	for k := 1; k < n; k++ {
		if dt.Dims[k] < 0 {
			return nil, false
		}
	}
	count := int64(1)
	for k := 0; k < n; k++ {
		if strides.Ints[k] != 1 || sizes.Ints[k] == DynamicIndex {
			return nil, false
		}
		count *= sizes.Ints[k]
	}
	if elems, ok := ir.NumElements(st.Dims); count == 0 || !ok || count != elems {
		return nil, false
	}
	// d: the first dimension whose size is not 1; after it, whole
	// dimensions from offset 0.
	d := 0
	for d < n-1 && sizes.Ints[d] == 1 {
		d++
	}
	for k := d + 1; k < n; k++ {
		if sizes.Ints[k] != dt.Dims[k] || offs.Ints[k] != 0 {
			return nil, false
		}
	}
	el := make([]int64, n)
	s := int64(1)
	for k := n - 1; k >= 0; k-- {
		el[k] = s
		if k > 0 {
			s *= dt.Dims[k]
		}
	}
	return el, true
}
