package hal

// Sub-byte element types — integers of 2 to 7 bits of any signedness
// (i4, si4, ui4, i2, …) and f4E2M1FN — are stored one element per byte,
// where IREE packs them (two i4 per byte, low nibble first). The byte is
// canonical when an integer's low bits are sign-extended through the whole
// byte, whatever the type's signedness (gree's kernels hold sub-byte
// integers in i8 lanes that way and mask them where an operation is
// unsigned), and when an f4E2M1FN code fills the low four bits with the
// high bits zero. Every buffer the runtime fills from host data
// (iree-run-module's --input text and .npy files, the Python binding's
// arrays) holds canonical bytes, so kernels, expect_eq and the tools'
// printing see one encoding per value.

// IsSubByte reports the element types narrower than a byte that are
// stored one per byte: integers of 1 to 7 bits (not the 8-bit boolean)
// and f4E2M1FN.
func (t ElementType) IsSubByte() bool {
	return t.Bits() > 0 && t.Bits() < 8 && (t.IsInteger() || t.IsFloat())
}

// CanonicalSubByte returns the canonical byte of an element of the
// sub-byte type t whose value is in b's low Bits() bits (the high bits are
// ignored); any other type's byte is returned unchanged.
func (t ElementType) CanonicalSubByte(b byte) byte {
	if !t.IsSubByte() {
		return b
	}
	n := uint(t.Bits())
	if t.IsFloat() {
		return b & (1<<n - 1)
	}
	return byte(int8(b<<(8-n)) >> (8 - n))
}

// CanonicalizeSubBytes rewrites data, elements of t one per byte, in
// canonical form in place; data of other types is left as it is.
func (t ElementType) CanonicalizeSubBytes(data []byte) {
	if !t.IsSubByte() {
		return
	}
	for i, b := range data {
		data[i] = t.CanonicalSubByte(b)
	}
}

// SubByteInt returns the value of a sub-byte integer element stored in b:
// its low Bits() bits read as unsigned for unsigned types and as signed
// otherwise (signless types read as signed, as IREE prints them).
func (t ElementType) SubByteInt(b byte) int64 {
	n := uint(t.Bits())
	if t.Numerical() == NumericalUnsigned {
		return int64(b & (1<<n - 1))
	}
	return int64(int8(b<<(8-n)) >> (8 - n))
}

// SubByteIntRange returns the values a sub-byte integer type takes when
// parsed from text: [-2^(n-1), 2^(n-1)-1] for signed types, [0, 2^n-1] for
// unsigned ones and the union of the two for signless ones (as IREE parses
// i8 and i16).
func (t ElementType) SubByteIntRange() (lo, hi int64) {
	n := uint(t.Bits())
	switch t.Numerical() {
	case NumericalSigned:
		return -1 << (n - 1), 1<<(n-1) - 1
	case NumericalUnsigned:
		return 0, 1<<n - 1
	}
	return -1 << (n - 1), 1<<n - 1
}
