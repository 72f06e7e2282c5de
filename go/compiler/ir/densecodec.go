package ir

import "fmt"

// NormalizeInt truncates v to the width of integer type t and extends it back
// to 64 bits: sign extension for signless and signed types, zero extension
// for unsigned ones and for i1 (whose values are 0 and 1). Index and widths
// of 64 bits and more keep v.
func NormalizeInt(v int64, t Type) int64 {
	it, ok := t.(*IntegerType)
	if !ok || it.Width >= 64 || it.Width <= 0 {
		return v
	}
	if it.Width == 1 && it.Signedness == Signless {
		return v & 1
	}
	shift := 64 - uint(it.Width)
	if it.Signedness == Unsigned {
		return int64(uint64(v) << shift >> shift)
	}
	return v << shift >> shift
}

// ElementByteSize returns how many bytes one element of type t occupies in
// raw dense data ("0x…" literals and resource blobs): the bit width rounded
// up to whole bytes (one byte for i1), twice that for complex types.
func ElementByteSize(t Type) (int, error) {
	switch e := t.(type) {
	case *IntegerType:
		if e.Width > 64 {
			return 0, errorf("raw data for %s elements is not supported (wider than 64 bits)", e)
		}
		return (e.Width + 7) / 8, nil
	case *IndexType:
		return 8, nil
	case *FloatType:
		if floatFormats[e.Kind].wide {
			return 0, errorf("raw data for %s elements is not supported", e)
		}
		return (e.Kind.Width() + 7) / 8, nil
	case *ComplexType:
		n, err := ElementByteSize(e.Elem)
		return 2 * n, err
	}
	return 0, errorf("raw data for %s elements is not supported", t)
}

// DecodeDense decodes little-endian raw element data for shaped type t:
// data holding exactly one element is a splat, otherwise it must hold every
// element.
func DecodeDense(t ShapedType, data []byte) (*DenseElementsAttr, error) {
	n, ok := NumElements(t.Shape())
	if !ok || !t.HasRank() {
		return nil, errorf("dense data needs a static shape, got %s", t)
	}
	size, err := ElementByteSize(t.ElementType())
	if err != nil {
		return nil, err
	}
	a := &DenseElementsAttr{Type: t}
	count := n
	switch {
	case size > 0 && int64(len(data)) == int64(size) && n != 1:
		a.Splat, count = true, 1
	case size == 0 || int64(len(data))/int64(size) != n || int64(len(data))%int64(size) != 0:
		return nil, errorf("raw data of %d bytes does not fit %s (want %d bytes of %d-byte elements, or one element for a splat)",
			len(data), t, n*int64(size), size)
	}
	et := t.ElementType()
	scalar := et
	parts := int64(1)
	if ct, ok := et.(*ComplexType); ok {
		scalar, parts = ct.Elem, 2
		size /= 2
	}
	total := count * parts
	if ft, ok := scalar.(*FloatType); ok {
		a.Floats = make([]float64, total)
		for i := range a.Floats {
			v, _ := FloatFromBits(ft.Kind, readLE(data[i*size:], size))
			a.Floats[i] = v
		}
		return a, nil
	}
	a.Ints = make([]int64, total)
	for i := range a.Ints {
		a.Ints[i] = NormalizeInt(int64(readLE(data[i*size:], size)), scalar)
	}
	return a, nil
}

func readLE(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// Bytes encodes the stored elements as little-endian raw data (one element
// for a splat), the inverse of DecodeDense.
func (a *DenseElementsAttr) Bytes() ([]byte, error) {
	et := a.ElementType()
	size, err := ElementByteSize(et)
	if err != nil {
		return nil, err
	}
	scalar := et
	if ct, ok := et.(*ComplexType); ok {
		scalar = ct.Elem
		size /= 2
	}
	var out []byte
	put := func(v uint64) {
		for i := 0; i < size; i++ {
			out = append(out, byte(v>>(8*i)))
		}
	}
	if ft, ok := scalar.(*FloatType); ok {
		for _, v := range a.Floats {
			b, ok := FloatToBits(ft.Kind, v)
			if !ok {
				return nil, fmt.Errorf("ir: %v cannot be encoded as %s", v, ft)
			}
			put(b)
		}
		return out, nil
	}
	for _, v := range a.Ints {
		put(uint64(v))
	}
	return out, nil
}
