package ir

import (
	"math/bits"
	"strconv"
	"strings"
)

// DynamicSize marks a dimension whose size is not known statically ('?').
const DynamicSize int64 = -1

// ShapedType is a type with an element type and (when ranked) a shape:
// tensors, vectors and memrefs.
type ShapedType interface {
	Type
	// ElementType returns the element type.
	ElementType() Type
	// Shape returns the dimension sizes (DynamicSize for '?'); nil when
	// unranked.
	Shape() []int64
	// HasRank reports whether the shape is known.
	HasRank() bool
}

// RankedTensorType is tensor<d0 x d1 x … x Elem[, Encoding]>.
type RankedTensorType struct {
	Dims     []int64
	Elem     Type
	Encoding Attribute // nil when absent
}

// Tensor returns the ranked tensor type of the given shape and element type.
func Tensor(dims []int64, elem Type) *RankedTensorType {
	return &RankedTensorType{Dims: dims, Elem: elem}
}

// String returns e.g. "tensor<2x?xf32>".
func (t *RankedTensorType) String() string {
	s := "tensor<" + dimsPrefix(t.Dims, nil) + t.Elem.String()
	if t.Encoding != nil {
		s += ", " + t.Encoding.String()
	}
	return s + ">"
}

// Equal compares shape, element type and encoding.
func (t *RankedTensorType) Equal(o Type) bool {
	u, ok := o.(*RankedTensorType)
	return ok && dimsEqual(u.Dims, t.Dims) && TypesEqual(u.Elem, t.Elem) && AttrsEqual(u.Encoding, t.Encoding)
}

// ElementType returns the element type.
func (t *RankedTensorType) ElementType() Type { return t.Elem }

// Shape returns the dimensions.
func (t *RankedTensorType) Shape() []int64 { return t.Dims }

// HasRank returns true.
func (t *RankedTensorType) HasRank() bool { return true }

// UnrankedTensorType is tensor<*xElem>.
type UnrankedTensorType struct{ Elem Type }

// String returns e.g. "tensor<*xf32>".
func (t *UnrankedTensorType) String() string { return "tensor<*x" + t.Elem.String() + ">" }

// Equal compares element types.
func (t *UnrankedTensorType) Equal(o Type) bool {
	u, ok := o.(*UnrankedTensorType)
	return ok && TypesEqual(u.Elem, t.Elem)
}

// ElementType returns the element type.
func (t *UnrankedTensorType) ElementType() Type { return t.Elem }

// Shape returns nil.
func (t *UnrankedTensorType) Shape() []int64 { return nil }

// HasRank returns false.
func (t *UnrankedTensorType) HasRank() bool { return false }

// VectorType is vector<d0 x [d1] x … x Elem>; Scalable, when non-nil, marks
// the scalable dimensions (written in brackets).
type VectorType struct {
	Dims     []int64
	Scalable []bool
	Elem     Type
}

// String returns e.g. "vector<4x[8]xf32>".
func (t *VectorType) String() string {
	return "vector<" + dimsPrefix(t.Dims, t.Scalable) + t.Elem.String() + ">"
}

// Equal compares shape, scalability and element type.
func (t *VectorType) Equal(o Type) bool {
	u, ok := o.(*VectorType)
	if !ok || !dimsEqual(u.Dims, t.Dims) || !TypesEqual(u.Elem, t.Elem) {
		return false
	}
	for i := range t.Dims {
		if t.isScalable(i) != u.isScalable(i) {
			return false
		}
	}
	return true
}

func (t *VectorType) isScalable(i int) bool { return i < len(t.Scalable) && t.Scalable[i] }

// ElementType returns the element type.
func (t *VectorType) ElementType() Type { return t.Elem }

// Shape returns the dimensions.
func (t *VectorType) Shape() []int64 { return t.Dims }

// HasRank returns true.
func (t *VectorType) HasRank() bool { return true }

// MemRefType is memref<d0 x … x Elem[, Layout][, MemorySpace]>.
type MemRefType struct {
	Dims        []int64
	Elem        Type
	Layout      Attribute // nil for the identity layout
	MemorySpace Attribute // nil for the default memory space
}

// String returns e.g. "memref<4x?xf32, 1>".
func (t *MemRefType) String() string {
	s := "memref<" + dimsPrefix(t.Dims, nil) + t.Elem.String()
	if t.Layout != nil {
		s += ", " + t.Layout.String()
	}
	if t.MemorySpace != nil {
		s += ", " + memorySpaceString(t.MemorySpace)
	}
	return s + ">"
}

// memorySpaceString prints an i64 memory space as a bare number, as MLIR
// writes it.
func memorySpaceString(a Attribute) string {
	if i, ok := a.(*IntegerAttr); ok && TypesEqual(i.Type, I64) {
		return FormatInt(i.Value, i.Type)
	}
	return a.String()
}

// Equal compares shape, element type, layout and memory space.
func (t *MemRefType) Equal(o Type) bool {
	u, ok := o.(*MemRefType)
	return ok && dimsEqual(u.Dims, t.Dims) && TypesEqual(u.Elem, t.Elem) &&
		AttrsEqual(u.Layout, t.Layout) && AttrsEqual(u.MemorySpace, t.MemorySpace)
}

// ElementType returns the element type.
func (t *MemRefType) ElementType() Type { return t.Elem }

// Shape returns the dimensions.
func (t *MemRefType) Shape() []int64 { return t.Dims }

// HasRank returns true.
func (t *MemRefType) HasRank() bool { return true }

// UnrankedMemRefType is memref<*xElem[, MemorySpace]>.
type UnrankedMemRefType struct {
	Elem        Type
	MemorySpace Attribute
}

// String returns e.g. "memref<*xf32>".
func (t *UnrankedMemRefType) String() string {
	s := "memref<*x" + t.Elem.String()
	if t.MemorySpace != nil {
		s += ", " + memorySpaceString(t.MemorySpace)
	}
	return s + ">"
}

// Equal compares element type and memory space.
func (t *UnrankedMemRefType) Equal(o Type) bool {
	u, ok := o.(*UnrankedMemRefType)
	return ok && TypesEqual(u.Elem, t.Elem) && AttrsEqual(u.MemorySpace, t.MemorySpace)
}

// ElementType returns the element type.
func (t *UnrankedMemRefType) ElementType() Type { return t.Elem }

// Shape returns nil.
func (t *UnrankedMemRefType) Shape() []int64 { return nil }

// HasRank returns false.
func (t *UnrankedMemRefType) HasRank() bool { return false }

func dimsPrefix(dims []int64, scalable []bool) string {
	var sb strings.Builder
	for i, d := range dims {
		sc := i < len(scalable) && scalable[i]
		if sc {
			sb.WriteByte('[')
		}
		if d == DynamicSize {
			sb.WriteByte('?')
		} else {
			sb.WriteString(strconv.FormatInt(d, 10))
		}
		if sc {
			sb.WriteByte(']')
		}
		sb.WriteByte('x')
	}
	return sb.String()
}

func dimsEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ElementTypeOf returns the element type of a shaped type, or t itself.
func ElementTypeOf(t Type) Type {
	if s, ok := t.(ShapedType); ok {
		return s.ElementType()
	}
	return t
}

// NumElements returns the product of the dimensions, and false when a
// dimension is dynamic or the product overflows int64.
func NumElements(dims []int64) (int64, bool) {
	n := uint64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<63-1 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// HasStaticShape reports whether t is ranked with no dynamic dimension.
func HasStaticShape(t ShapedType) bool {
	if !t.HasRank() {
		return false
	}
	_, ok := NumElements(t.Shape())
	return ok
}

// WithElementType returns a shaped type like t with another element type
// (encodings and layouts are dropped), or elem itself when t is not shaped.
func WithElementType(t Type, elem Type) Type {
	switch s := t.(type) {
	case *RankedTensorType:
		return &RankedTensorType{Dims: s.Dims, Elem: elem}
	case *UnrankedTensorType:
		return &UnrankedTensorType{Elem: elem}
	case *VectorType:
		return &VectorType{Dims: s.Dims, Scalable: s.Scalable, Elem: elem}
	case *MemRefType:
		return &MemRefType{Dims: s.Dims, Elem: elem}
	case *UnrankedMemRefType:
		return &UnrankedMemRefType{Elem: elem}
	}
	return elem
}
