package vio

import (
	"errors"
	"strconv"
	"strings"
)

// The functions here reproduce iree_string_view_atoi_* and atof/atod, which
// copy the text into a small buffer and call strtol/strtoul/strtoll/strtoull
// with base 0 (so "0x1F" is hex and "017" is octal) or strtof/strtod. The
// integer forms accept any text that starts with a number and ignore what
// follows it; the float forms require the whole text to be a number.

// isCSpace reports C's isspace in the "C" locale.
func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// cTrim removes leading and trailing C whitespace, as iree_string_view_trim.
func cTrim(s string) string {
	i, j := 0, len(s)
	for i < j && isCSpace(s[i]) {
		i++
	}
	for j > i && isCSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// cStrto reads the leading integer of s as strtol with base 0 does. It
// returns the magnitude, whether a minus sign was seen, whether any digit
// was read and whether the magnitude overflowed 64 bits.
func cStrto(s string) (mag uint64, neg, ok, overflow bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	for ; i < len(s); i++ {
		d := uint64(digitValue(s[i]))
		if d >= base {
			break
		}
		ok = true
		if mag > (^uint64(0)-d)/base {
			overflow = true
		}
		mag = mag*base + d
	}
	return mag, neg, ok, overflow
}

// cStrtoll is strtoll: it fails when nothing was parsed or on overflow.
func cStrtoll(s string) (int64, bool) {
	mag, neg, ok, overflow := cStrto(s)
	if !ok || overflow {
		return 0, false
	}
	if neg {
		if mag > 1<<63 {
			return 0, false
		}
		return int64(-mag), true
	}
	if mag > 1<<63-1 {
		return 0, false
	}
	return int64(mag), true
}

// cStrtoull is strtoull: a minus sign negates modulo 2^64.
func cStrtoull(s string) (uint64, bool) {
	mag, neg, ok, overflow := cStrto(s)
	if !ok || overflow {
		return 0, false
	}
	if neg {
		mag = -mag
	}
	return mag, true
}

// atoiInt32 is iree_string_view_atoi_int32: strtol, then a truncation.
func atoiInt32(s string) (int32, bool) {
	if s == "" || len(s) >= 16 {
		return 0, false
	}
	v, ok := cStrtoll(s)
	return int32(v), ok
}

// atoiUint32 is iree_string_view_atoi_uint32: strtoul, then a truncation.
func atoiUint32(s string) (uint32, bool) {
	if s == "" || len(s) >= 16 {
		return 0, false
	}
	v, ok := cStrtoull(s)
	return uint32(v), ok
}

// atoiInt64 is iree_string_view_atoi_int64.
func atoiInt64(s string) (int64, bool) {
	if s == "" || len(s) >= 32 {
		return 0, false
	}
	return cStrtoll(s)
}

// atoiUint64 is iree_string_view_atoi_uint64.
func atoiUint64(s string) (uint64, bool) {
	if s == "" || len(s) >= 32 {
		return 0, false
	}
	return cStrtoull(s)
}

// parseCFloat is iree_string_view_atof (bits 32) and atod (bits 64): the
// trimmed text must be one number, "inf", "infinity" or "nan" in any case,
// or a hex float with a "p" exponent; out-of-range values become ±inf as
// strtof's HUGE_VAL does.
func parseCFloat(s string, bits int) (float64, bool) {
	s = cTrim(s)
	if s == "" || strings.ContainsRune(s, '_') {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	isHex := len(body) >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if !isHex && len(s) >= 64 {
		return 0, false
	}
	if len(s)-len(body) > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, bits)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}
