package hal

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func TestElementTypeString(t *testing.T) {
	cases := []struct {
		t    ElementType
		want string
	}{
		{ElementInt8, "i8"}, {ElementInt4, "i4"}, {ElementInt64, "i64"},
		{ElementSInt32, "si32"}, {ElementUInt16, "ui16"}, {ElementBool8, "i1"},
		{ElementFloat16, "f16"}, {ElementFloat32, "f32"}, {ElementFloat64, "f64"},
		{ElementBFloat16, "bf16"}, {ElementComplex64, "cf64"}, {ElementComplex128, "cf128"},
		{ElementF8E5M2, "f8E5M2"}, {ElementF8E4M3FN, "f8E4M3FN"}, {ElementF8E5M2FNUZ, "f8E5M2FNUZ"},
		{ElementF8E4M3FNUZ, "f8E4M3FNUZ"}, {ElementF8E8M0FNU, "f8E8M0FNU"},
		{ElementOpaque8, "*8"}, {ElementOpaque32, "*32"}, {ElementNone, "*0"},
		{makeElementType(0x30, 16), "*16"},
	}
	for _, c := range cases {
		if got := c.t.String(); got != c.want {
			t.Errorf("%#x.String() = %q, want %q", uint32(c.t), got, c.want)
		}
	}
}

func TestParseElementTypeRoundTrip(t *testing.T) {
	for _, et := range []ElementType{
		ElementInt8, ElementInt4, ElementSInt64, ElementUInt8, ElementBool8, ElementFloat16,
		ElementFloat32, ElementFloat64, ElementBFloat16, ElementComplex64, ElementF8E5M2,
		ElementF8E4M3FN, ElementF8E5M2FNUZ, ElementF8E4M3FNUZ, ElementF8E8M0FNU, ElementOpaque16,
	} {
		got, err := ParseElementType(et.String())
		if err != nil || got != et {
			t.Errorf("ParseElementType(%q) = %#x, %v; want %#x", et.String(), uint32(got), err, uint32(et))
		}
	}
}

func TestParseElementTypeForms(t *testing.T) {
	cases := []struct {
		s    string
		want ElementType
	}{
		{"*8", ElementOpaque8}, {"x64", ElementOpaque64}, {"f8", makeElementType(NumericalFloat, 8)},
		{"i32abc", ElementInt32}, {"i0x10", ElementInt16}, {"si010", ElementSInt8},
	}
	for _, c := range cases {
		got, err := ParseElementType(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseElementType(%q) = %#x, %v; want %#x", c.s, uint32(got), err, uint32(c.want))
		}
	}
}

func TestParseElementTypeErrors(t *testing.T) {
	cases := []struct{ s, msg string }{
		{"q32", "unhandled element type prefix in 'q32'"},
		{"", "unhandled element type prefix in ''"},
		{"i", "out of range bit count in 'i'"},
		{"f256", "out of range bit count in 'f256'"},
		{"uiX", "out of range bit count in 'uiX'"},
	}
	for _, c := range cases {
		_, err := ParseElementType(c.s)
		if err == nil || status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseElementType(%q) error = %v, want INVALID_ARGUMENT %q", c.s, err, c.msg)
		}
	}
}
