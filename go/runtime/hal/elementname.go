package hal

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// f8Names holds the element types spelled with a fixed name instead of a
// prefix and a bit count: IREE's f8 types and gree's f4E2M1FN.
var f8Names = []struct {
	t    ElementType
	name string
}{
	{ElementF8E5M2, "f8E5M2"},
	{ElementF8E4M3FN, "f8E4M3FN"},
	{ElementF8E5M2FNUZ, "f8E5M2FNUZ"},
	{ElementF8E4M3FNUZ, "f8E4M3FNUZ"},
	{ElementF8E8M0FNU, "f8E8M0FNU"},
	{ElementF4E2M1FN, "f4E2M1FN"},
}

// String returns IREE's name for the element type: "i8" (signless), "si32",
// "ui16", "i1" for any boolean, "f16", "bf16", "cf64", the fixed names
// ("f8E4M3FN", …, "f4E2M1FN") and "*<bits>" for opaque types and any
// numerical type without a name. Opaque types print as "*8", not "x8", exactly as IREE's
// iree_hal_format_element_type does: "x" is only accepted when parsing, and
// "*" keeps "2x*8=…" parseable where "2xx8=…" would split at the wrong "x".
func (t ElementType) String() string {
	for _, n := range f8Names {
		if t == n.t {
			return n.name
		}
	}
	bits := t.Bits()
	var prefix string
	switch t.Numerical() {
	case NumericalBoolean:
		prefix, bits = "i", 1
	case NumericalInteger:
		prefix = "i"
	case NumericalSigned:
		prefix = "si"
	case NumericalUnsigned:
		prefix = "ui"
	case NumericalFloat:
		prefix = "f"
	case NumericalBFloat:
		prefix = "bf"
	case NumericalComplex:
		prefix = "cf"
	default:
		prefix = "*"
	}
	return prefix + strconv.Itoa(bits)
}

// ParseElementType parses an element type name as IREE's
// iree_hal_parse_element_type does: "i1" is the 8-bit boolean; "i", "si",
// "ui", "f", "bf", "cf" and "x" or "*" (opaque) are followed by a bit count
// of at most 255; the f8 types are matched by their full names. As in IREE
// the bit count is read like C's strtoul, so trailing junk after the digits
// is ignored.
func ParseElementType(s string) (ElementType, error) {
	if s == "i1" {
		return ElementBool8, nil
	}
	var numerical uint32
	var rest string
	switch {
	case strings.HasPrefix(s, "i"):
		numerical, rest = NumericalInteger, s[1:]
	case strings.HasPrefix(s, "si"):
		numerical, rest = NumericalSigned, s[2:]
	case strings.HasPrefix(s, "ui"):
		numerical, rest = NumericalUnsigned, s[2:]
	default:
		for _, n := range f8Names {
			if s == n.name {
				return n.t, nil
			}
		}
		switch {
		case strings.HasPrefix(s, "f"):
			numerical, rest = NumericalFloat, s[1:]
		case strings.HasPrefix(s, "bf"):
			numerical, rest = NumericalBFloat, s[2:]
		case strings.HasPrefix(s, "cf"):
			numerical, rest = NumericalComplex, s[2:]
		case strings.HasPrefix(s, "x"), strings.HasPrefix(s, "*"):
			numerical, rest = NumericalUnknown, s[1:]
		default:
			return ElementNone, status.Errorf(status.InvalidArgument,
				"unhandled element type prefix in '%s'", s)
		}
	}
	bits, ok := leadingBitCount(rest)
	if !ok || bits > 0xff {
		return ElementNone, status.Errorf(status.InvalidArgument,
			"out of range bit count in '%s'", s)
	}
	return makeElementType(numerical, uint32(bits)), nil
}

// leadingBitCount reads a bit count the way strtoul(s, &end, 0) followed by
// a truncation to 32 bits does: leading spaces, an optional sign, a 0x or 0
// base prefix and as many digits as follow. It fails when no digit is read,
// when the text is 16 bytes or longer, or on 64-bit overflow.
func leadingBitCount(s string) (uint64, bool) {
	if s == "" || len(s) >= 16 {
		return 0, false
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	if i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && hexDigit(s[i+2]) >= 0 {
		base, i = 16, i+2
	} else if i < len(s) && s[i] == '0' {
		base = 8
	}
	var v uint64
	digits := 0
	for ; i < len(s); i++ {
		d := hexDigit(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if v > (^uint64(0)-uint64(d))/base {
			return 0, false
		}
		v = v*base + uint64(d)
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return uint64(uint32(v)), true
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
