package vio

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/internal/cfmt"
	"github.com/gree-ml/gree/go/runtime/hal"
)

// FormatShapeAndType returns "<d0>x<d1>x…x<type>", or just the type name
// for rank 0, as iree_hal_append_shape_and_element_type_string does; a
// negative (dynamic) dimension of a function's type prints as "?".
func FormatShapeAndType(shape []int64, t hal.ElementType) string {
	var b strings.Builder
	for _, d := range shape {
		if d < 0 {
			b.WriteByte('?') // a function's dynamic dimension
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte('x')
	}
	b.WriteString(t.String())
	return b.String()
}

// FormatBufferView returns IREE's text form of a buffer view
// (iree_hal_buffer_view_format): "2x3xi32=[1 2 3][4 5 6]", rank 1 without
// brackets ("4xf32=4 10 18 28"), rank 0 as "f32=2". At most maxElements
// elements are printed in total (a negative count means no limit); the
// budget is shared by all rows and a leaf row cut short ends with "...".
// Integers print in decimal (signless types as signed), sub-byte ones (i4,
// ui2, …, stored one per byte) included where IREE prints their bytes in
// hex, floats (f16, bf16, f32, f64, the f8 types and f4E2M1FN) with C's
// %G, and every other type (i1, complex, opaque) as upper-case hex bytes.
// Data shorter than the view reads as zeros.
func FormatBufferView(bv *hal.BufferView, maxElements int) string {
	var b strings.Builder
	b.WriteString(FormatShapeAndType(bv.Shape, bv.Type))
	b.WriteByte('=')
	data := bv.Bytes()
	if n := bv.ByteLength(); int64(len(data)) < n && n >= 0 {
		data = append(make([]byte, 0, n), data...)[:n]
	}
	budget := int64(maxElements)
	if maxElements < 0 {
		budget = math.MaxInt64
	}
	shape := bv.Shape
	if len(shape) == 0 {
		shape = []int64{1}
	}
	formatElements(&b, data, shape, bv.Type, &budget)
	return b.String()
}

// formatElements prints one block of the dense row-major data (IREE's
// iree_hal_format_buffer_elements_recursive).
func formatElements(b *strings.Builder, data []byte, shape []int64, t hal.ElementType, budget *int64) {
	size := int64(t.ByteSize())
	if len(shape) > 1 {
		stride := size
		for _, d := range shape[1:] {
			stride *= d
		}
		for i := int64(0); i < shape[0]; i++ {
			b.WriteByte('[')
			formatElements(b, data[i*stride:], shape[1:], t, budget)
			b.WriteByte(']')
		}
		return
	}
	n := min(*budget, shape[0])
	*budget -= n
	for i := int64(0); i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(formatElement(data[i*size:(i+1)*size], t))
	}
	if n < shape[0] {
		b.WriteString("...")
	}
}

// formatElement prints one element as iree_hal_format_element does.
func formatElement(e []byte, t hal.ElementType) string {
	le := binary.LittleEndian
	if t.IsSubByte() && t.IsInteger() {
		return strconv.FormatInt(t.SubByteInt(e[0]), 10)
	}
	switch t {
	case hal.ElementInt8, hal.ElementSInt8:
		return strconv.Itoa(int(int8(e[0])))
	case hal.ElementUInt8:
		return strconv.Itoa(int(e[0]))
	case hal.ElementInt16, hal.ElementSInt16:
		return strconv.Itoa(int(int16(le.Uint16(e))))
	case hal.ElementUInt16:
		return strconv.Itoa(int(le.Uint16(e)))
	case hal.ElementInt32, hal.ElementSInt32:
		return strconv.FormatInt(int64(int32(le.Uint32(e))), 10)
	case hal.ElementUInt32:
		return strconv.FormatUint(uint64(le.Uint32(e)), 10)
	case hal.ElementInt64, hal.ElementSInt64:
		return strconv.FormatInt(int64(le.Uint64(e)), 10)
	case hal.ElementUInt64:
		return strconv.FormatUint(le.Uint64(e), 10)
	case hal.ElementFloat32:
		return cfmt.G(float64(math.Float32frombits(le.Uint32(e))), true)
	case hal.ElementFloat64:
		return cfmt.G(math.Float64frombits(le.Uint64(e)), true)
	case hal.ElementF8E8M0FNU:
		return cfmt.G(f8e8m0fnuDecode(e[0]), true)
	}
	if f, ok := minifloatOf(t); ok {
		var bits uint32
		if len(e) == 1 {
			bits = uint32(e[0])
		} else {
			bits = uint32(le.Uint16(e))
		}
		return cfmt.G(f.decode(bits), true)
	}
	const hex = "0123456789ABCDEF"
	out := make([]byte, 0, 2*len(e))
	for _, c := range e {
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

// elementFloat returns the value of a float element and whether t is one
// of the float types the comparison treats approximately.
func elementFloat(e []byte, t hal.ElementType) (float64, bool) {
	le := binary.LittleEndian
	switch t {
	case hal.ElementFloat16:
		return fmtF16.decode(uint32(le.Uint16(e))), true
	case hal.ElementBFloat16:
		return fmtBF16.decode(uint32(le.Uint16(e))), true
	case hal.ElementFloat32:
		return float64(math.Float32frombits(le.Uint32(e))), true
	case hal.ElementFloat64:
		return math.Float64frombits(le.Uint64(e)), true
	}
	return 0, false
}
