package ir

import (
	"strconv"
	"strings"
)

// DenseElementsAttr is dense<…> : T for a statically shaped tensor or vector
// T. The values are decoded into one flat slice in row-major order: Ints for
// integer, index and i1 elements (i1 as 0 or 1, other integers normalized as
// IntegerAttr normalizes them), Floats for float elements (rounded to the
// element type). Complex elements take two consecutive entries (real,
// imaginary). When Splat is set the slice holds a single element that every
// position repeats.
type DenseElementsAttr struct {
	Type   ShapedType
	Splat  bool
	Ints   []int64
	Floats []float64
}

// AttrType returns the shaped type.
func (a *DenseElementsAttr) AttrType() Type { return a.Type }

// ElementType returns the element type of the shaped type.
func (a *DenseElementsAttr) ElementType() Type { return a.Type.ElementType() }

// NumElements returns the number of elements of the shaped type.
func (a *DenseElementsAttr) NumElements() int64 {
	n, _ := NumElements(a.Type.Shape())
	return n
}

// IsComplex reports whether the elements are complex numbers.
func (a *DenseElementsAttr) IsComplex() bool {
	_, ok := a.ElementType().(*ComplexType)
	return ok
}

func (a *DenseElementsAttr) slot(i int64) int64 {
	if a.Splat {
		i = 0
	}
	if a.IsComplex() {
		return 2 * i
	}
	return i
}

// IntAt returns element i of an integer-valued attribute (the real part for
// complex integers).
func (a *DenseElementsAttr) IntAt(i int64) int64 { return a.Ints[a.slot(i)] }

// FloatAt returns element i of a float-valued attribute (the real part for
// complex floats).
func (a *DenseElementsAttr) FloatAt(i int64) float64 { return a.Floats[a.slot(i)] }

// ComplexAt returns element i of a complex attribute as (real, imaginary),
// converting integer parts to float64.
func (a *DenseElementsAttr) ComplexAt(i int64) (float64, float64) {
	s := a.slot(i)
	if a.Floats != nil {
		return a.Floats[s], a.Floats[s+1]
	}
	return float64(a.Ints[s]), float64(a.Ints[s+1])
}

// String returns e.g. "dense<[1, 2]> : tensor<2xi32>"; splats and rank-0
// values print without brackets, empty shapes as "dense<>".
func (a *DenseElementsAttr) String() string {
	var sb strings.Builder
	sb.WriteString("dense<")
	n := a.NumElements()
	switch {
	case n == 0:
	case a.Splat || len(a.Type.Shape()) == 0:
		sb.WriteString(a.elemString(0))
	default:
		var idx int64
		a.writeNested(&sb, a.Type.Shape(), &idx)
	}
	sb.WriteString("> : ")
	sb.WriteString(a.Type.String())
	return sb.String()
}

func (a *DenseElementsAttr) writeNested(sb *strings.Builder, dims []int64, idx *int64) {
	sb.WriteByte('[')
	for i := int64(0); i < dims[0]; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		if len(dims) > 1 {
			a.writeNested(sb, dims[1:], idx)
		} else {
			sb.WriteString(a.elemString(*idx))
			*idx++
		}
	}
	sb.WriteByte(']')
}

func (a *DenseElementsAttr) elemString(i int64) string {
	et := a.ElementType()
	s := a.slot(i)
	if ct, ok := et.(*ComplexType); ok {
		if a.Floats != nil {
			return "(" + FormatFloat(a.Floats[s], ct.Elem) + ", " + FormatFloat(a.Floats[s+1], ct.Elem) + ")"
		}
		return "(" + FormatInt(a.Ints[s], ct.Elem) + ", " + FormatInt(a.Ints[s+1], ct.Elem) + ")"
	}
	if a.Floats != nil {
		return FormatFloat(a.Floats[s], et)
	}
	return formatIntElem(a.Ints[s], et)
}

func formatIntElem(v int64, t Type) string {
	if it, ok := t.(*IntegerType); ok && it.Width == 1 && it.Signedness == Signless {
		return strconv.FormatBool(v != 0)
	}
	return FormatInt(v, t)
}

// DenseSplat returns a splat attribute of t whose single element is v; v is
// an int64 for integer and index element types and a float64 for float
// element types.
func DenseSplat(t ShapedType, v any) *DenseElementsAttr {
	a := &DenseElementsAttr{Type: t, Splat: true}
	switch x := v.(type) {
	case int64:
		a.Ints = []int64{x}
	case float64:
		ft, _ := t.ElementType().(*FloatType)
		if ft != nil {
			x = RoundFloat(ft.Kind, x)
		}
		a.Floats = []float64{x}
	}
	return a
}

// DenseArrayAttr is array<T: v0, v1, …> with T an integer or float type.
type DenseArrayAttr struct {
	Elem   Type
	Ints   []int64
	Floats []float64
}

// Len returns the number of elements.
func (a *DenseArrayAttr) Len() int {
	if IsFloat(a.Elem) {
		return len(a.Floats)
	}
	return len(a.Ints)
}

// String returns e.g. "array<i64: 1, 2>" or "array<i64>" when empty.
func (a *DenseArrayAttr) String() string {
	var sb strings.Builder
	sb.WriteString("array<")
	sb.WriteString(a.Elem.String())
	for i := 0; i < a.Len(); i++ {
		if i == 0 {
			sb.WriteString(": ")
		} else {
			sb.WriteString(", ")
		}
		if a.Floats != nil {
			sb.WriteString(FormatFloat(a.Floats[i], a.Elem))
		} else {
			sb.WriteString(formatIntElem(a.Ints[i], a.Elem))
		}
	}
	sb.WriteByte('>')
	return sb.String()
}

// I64Array returns array<i64: vals…>.
func I64Array(vals ...int64) *DenseArrayAttr { return &DenseArrayAttr{Elem: I64, Ints: vals} }

// Resource is one entry of a file's {-# dialect_resources: … #-} section.
// Builtin entries hold the blobs that dense_resource attributes name.
type Resource struct {
	Dialect   string
	Key       string
	Blob      []byte // the data after the 4-byte alignment prefix; nil if not a blob
	Alignment uint32
	Value     string // for entries that are not blobs: their text (a string or bool)
	Defined   bool   // false while only referenced, never given a value
}

// BlobString returns the blob as MLIR writes it: "0x", the alignment as four
// little-endian bytes, then the data, in upper-case hex.
func (r *Resource) BlobString() string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	sb.WriteString("\"0x")
	a := r.Alignment
	for i := 0; i < 4; i++ {
		c := byte(a >> (8 * i))
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
	for _, c := range r.Blob {
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
	sb.WriteByte('"')
	return sb.String()
}

// DenseResourceAttr is dense_resource<key> : T, elements stored in a
// Resource blob.
type DenseResourceAttr struct {
	Type     ShapedType
	Resource *Resource
}

// AttrType returns the shaped type.
func (a *DenseResourceAttr) AttrType() Type { return a.Type }

// String returns e.g. "dense_resource<blob1> : tensor<4xf32>".
func (a *DenseResourceAttr) String() string {
	key := a.Resource.Key
	if !IsBareIdentifier(key) {
		key = Quote(key)
	}
	return "dense_resource<" + key + "> : " + a.Type.String()
}

// RawElements returns the blob itself when it holds every element (not a
// splat) in the little-endian layout DenseElementsAttr.Bytes writes, for
// elements of 8, 16, 32 or 64 bits: a consumer that only needs the bytes
// (the module's constants) uses the weights as they are, with no decode
// into float64s and no copy.
func (a *DenseResourceAttr) RawElements() ([]byte, bool) {
	blob := a.Resource.Blob
	n, ok := NumElements(a.Type.Shape())
	if blob == nil || !ok || !a.Type.HasRank() || n <= 1 {
		return nil, false
	}
	var bits int
	switch e := a.Type.ElementType().(type) {
	case *IntegerType:
		bits = e.Width
	case *FloatType:
		if floatFormats[e.Kind].wide {
			return nil, false
		}
		bits = e.Kind.Width()
	default:
		return nil, false
	}
	if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
		return nil, false
	}
	if int64(len(blob)) != n*int64(bits/8) {
		return nil, false
	}
	return blob, true
}

// Elements decodes the blob into a DenseElementsAttr.
func (a *DenseResourceAttr) Elements() (*DenseElementsAttr, error) {
	if a.Resource.Blob == nil {
		return nil, errorf("dense_resource<%s> has no blob data", a.Resource.Key)
	}
	return DecodeDense(a.Type, a.Resource.Blob)
}
