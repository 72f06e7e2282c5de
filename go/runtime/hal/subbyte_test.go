package hal

import "testing"

func TestSubByteTypes(t *testing.T) {
	for _, c := range []struct {
		t    ElementType
		want bool
	}{
		{ElementInt4, true}, {ElementSInt4, true}, {ElementUInt4, true}, {ElementInt2, true},
		{ElementUInt2, true}, {ElementSInt2, true}, {ElementF4E2M1FN, true}, {makeElementType(NumericalInteger, 7), true},
		{ElementBool8, false}, {ElementInt8, false}, {ElementF8E4M3FN, false}, {makeElementType(NumericalUnknown, 4), false},
	} {
		if got := c.t.IsSubByte(); got != c.want {
			t.Errorf("%s.IsSubByte() = %v", c.t, got)
		}
	}
	if !ElementF4E2M1FN.IsFloat() || ElementF4E2M1FN.ByteSize() != 1 {
		t.Errorf("f4E2M1FN: float %v, %d bytes", ElementF4E2M1FN.IsFloat(), ElementF4E2M1FN.ByteSize())
	}
}

func TestSubByteCanonicalForm(t *testing.T) {
	// Every byte of every sub-byte integer type: the canonical byte keeps
	// the value of the low bits, sign-extended, and reads back as the
	// value in the type's range.
	for _, et := range []ElementType{ElementInt4, ElementSInt4, ElementUInt4, ElementInt2, ElementSInt2, ElementUInt2} {
		n := et.Bits()
		for b := 0; b < 256; b++ {
			low := b & (1<<n - 1)
			signed := low
			if low >= 1<<(n-1) {
				signed -= 1 << n
			}
			c := et.CanonicalSubByte(byte(b))
			if int(int8(c)) != signed {
				t.Fatalf("%s: CanonicalSubByte(%#x) = %#x, want %d", et, b, c, signed)
			}
			want := signed
			if et.Numerical() == NumericalUnsigned {
				want = low
			}
			if got := et.SubByteInt(byte(b)); got != int64(want) || et.SubByteInt(c) != int64(want) {
				t.Fatalf("%s: SubByteInt(%#x) = %d, want %d", et, b, got, want)
			}
		}
	}
	if c := ElementF4E2M1FN.CanonicalSubByte(0xfd); c != 0x0d {
		t.Errorf("f4E2M1FN canonical byte %#x", c)
	}
	data := []byte{0x0d, 0x17, 0x08}
	ElementInt4.CanonicalizeSubBytes(data)
	if data[0] != 0xfd || data[1] != 0x07 || data[2] != 0xf8 {
		t.Errorf("CanonicalizeSubBytes: % x", data)
	}
	ElementInt8.CanonicalizeSubBytes(data)
	if data[0] != 0xfd {
		t.Errorf("an i8 byte changed: % x", data)
	}
}

func TestSubByteIntRange(t *testing.T) {
	for _, c := range []struct {
		t      ElementType
		lo, hi int64
	}{
		{ElementInt4, -8, 15}, {ElementSInt4, -8, 7}, {ElementUInt4, 0, 15},
		{ElementInt2, -2, 3}, {ElementSInt2, -2, 1}, {ElementUInt2, 0, 3},
	} {
		if lo, hi := c.t.SubByteIntRange(); lo != c.lo || hi != c.hi {
			t.Errorf("%s: [%d, %d], want [%d, %d]", c.t, lo, hi, c.lo, c.hi)
		}
	}
}

func TestF4E2M1FNName(t *testing.T) {
	if s := ElementF4E2M1FN.String(); s != "f4E2M1FN" {
		t.Errorf("String() = %q", s)
	}
	if et, err := ParseElementType("f4E2M1FN"); err != nil || et != ElementF4E2M1FN {
		t.Errorf("ParseElementType = %#x, %v", uint32(et), err)
	}
	if uint32(ElementF4E2M1FN) != 0x29000004 {
		t.Errorf("word %#x", uint32(ElementF4E2M1FN))
	}
}
