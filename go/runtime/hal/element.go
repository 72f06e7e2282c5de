package hal

// ElementType is IREE's element-type word: (numerical type << 24) | bit
// count, with the same numbers as iree_hal_element_type_t.
type ElementType uint32

// Numerical types (the high byte of an ElementType).
const (
	NumericalUnknown    = 0x00
	NumericalInteger    = 0x10 // signless
	NumericalSigned     = 0x11
	NumericalUnsigned   = 0x12
	NumericalBoolean    = 0x13
	NumericalFloat      = 0x21 // IEEE
	NumericalBFloat     = 0x22
	NumericalComplex    = 0x23
	NumericalF8E5M2     = 0x24
	NumericalF8E4M3FN   = 0x25
	NumericalF8E5M2FNUZ = 0x26
	NumericalF8E4M3FNUZ = 0x27
	NumericalF8E8M0FNU  = 0x28
	// NumericalF4E2M1FN is gree's word for f4E2M1FN (MLIR's 4-bit float
	// with 2 exponent bits and 1 mantissa bit, finite only), the next
	// number after IREE's f8 types: IREE has no element type for it.
	NumericalF4E2M1FN = 0x29
)

func makeElementType(numerical, bits uint32) ElementType {
	return ElementType(numerical<<24 | bits)
}

// The element types gree names.
var (
	ElementNone       = ElementType(0)
	ElementOpaque8    = makeElementType(NumericalUnknown, 8)
	ElementOpaque16   = makeElementType(NumericalUnknown, 16)
	ElementOpaque32   = makeElementType(NumericalUnknown, 32)
	ElementOpaque64   = makeElementType(NumericalUnknown, 64)
	ElementBool8      = makeElementType(NumericalBoolean, 8)
	ElementInt2       = makeElementType(NumericalInteger, 2)
	ElementInt4       = makeElementType(NumericalInteger, 4)
	ElementInt8       = makeElementType(NumericalInteger, 8)
	ElementInt16      = makeElementType(NumericalInteger, 16)
	ElementInt32      = makeElementType(NumericalInteger, 32)
	ElementInt64      = makeElementType(NumericalInteger, 64)
	ElementSInt2      = makeElementType(NumericalSigned, 2)
	ElementSInt4      = makeElementType(NumericalSigned, 4)
	ElementSInt8      = makeElementType(NumericalSigned, 8)
	ElementSInt16     = makeElementType(NumericalSigned, 16)
	ElementSInt32     = makeElementType(NumericalSigned, 32)
	ElementSInt64     = makeElementType(NumericalSigned, 64)
	ElementUInt2      = makeElementType(NumericalUnsigned, 2)
	ElementUInt4      = makeElementType(NumericalUnsigned, 4)
	ElementUInt8      = makeElementType(NumericalUnsigned, 8)
	ElementUInt16     = makeElementType(NumericalUnsigned, 16)
	ElementUInt32     = makeElementType(NumericalUnsigned, 32)
	ElementUInt64     = makeElementType(NumericalUnsigned, 64)
	ElementFloat16    = makeElementType(NumericalFloat, 16)
	ElementFloat32    = makeElementType(NumericalFloat, 32)
	ElementFloat64    = makeElementType(NumericalFloat, 64)
	ElementBFloat16   = makeElementType(NumericalBFloat, 16)
	ElementComplex64  = makeElementType(NumericalComplex, 64)
	ElementComplex128 = makeElementType(NumericalComplex, 128)
	ElementF8E5M2     = makeElementType(NumericalF8E5M2, 8)
	ElementF8E4M3FN   = makeElementType(NumericalF8E4M3FN, 8)
	ElementF8E5M2FNUZ = makeElementType(NumericalF8E5M2FNUZ, 8)
	ElementF8E4M3FNUZ = makeElementType(NumericalF8E4M3FNUZ, 8)
	ElementF8E8M0FNU  = makeElementType(NumericalF8E8M0FNU, 8)
	ElementF4E2M1FN   = makeElementType(NumericalF4E2M1FN, 4)
)

// Numerical returns the numerical type (high byte).
func (t ElementType) Numerical() uint32 { return uint32(t) >> 24 }

// Bits returns the bit count.
func (t ElementType) Bits() int { return int(uint32(t) & 0xff) }

// ByteSize returns the storage size of one element, rounding sub-byte types
// up to a byte: gree stores sub-byte elements one per byte (see
// subbyte.go), where IREE packs them.
func (t ElementType) ByteSize() int { return (t.Bits() + 7) / 8 }

// IsFloat reports IEEE, bfloat, f8 and f4 float types.
func (t ElementType) IsFloat() bool {
	n := t.Numerical()
	return n == NumericalFloat || n == NumericalBFloat || (n >= NumericalF8E5M2 && n <= NumericalF4E2M1FN)
}

// IsInteger reports signless, signed and unsigned integer types (not bool).
func (t ElementType) IsInteger() bool {
	n := t.Numerical()
	return n == NumericalInteger || n == NumericalSigned || n == NumericalUnsigned
}
