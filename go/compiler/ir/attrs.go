package ir

import (
	"strconv"
	"strings"
)

// Attribute is a compile-time constant attached to operations. String
// returns it in MLIR syntax.
type Attribute interface {
	String() string
}

// TypedAttr is an attribute that carries a type (integers, floats, dense
// elements, …).
type TypedAttr interface {
	Attribute
	AttrType() Type
}

// AttrsEqual reports whether a and b print the same; two nil attributes are
// equal.
func AttrsEqual(a, b Attribute) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a == b || a.String() == b.String()
}

// IntegerAttr is an integer constant of an integer or index type. Value holds
// the bits sign-extended for signless and signed types and zero-extended for
// unsigned ones (a ui64 above 2^63-1 wraps).
type IntegerAttr struct {
	Value int64
	Type  Type
}

// String returns e.g. "42 : i32".
func (a *IntegerAttr) String() string { return FormatInt(a.Value, a.Type) + " : " + a.Type.String() }

// AttrType returns the integer type.
func (a *IntegerAttr) AttrType() Type { return a.Type }

// FloatAttr is a floating-point constant, stored rounded to its type.
type FloatAttr struct {
	Value float64
	Type  Type
}

// String returns e.g. "1.000000e+00 : f32".
func (a *FloatAttr) String() string { return FormatFloat(a.Value, a.Type) + " : " + a.Type.String() }

// AttrType returns the float type.
func (a *FloatAttr) AttrType() Type { return a.Type }

// BoolAttr is true or false (of type i1).
type BoolAttr struct{ Value bool }

// String returns "true" or "false".
func (a *BoolAttr) String() string { return strconv.FormatBool(a.Value) }

// AttrType returns i1.
func (a *BoolAttr) AttrType() Type { return I1 }

// StringAttr is a string constant, optionally typed.
type StringAttr struct {
	Value string
	Type  Type // nil for a plain string
}

// String returns the quoted string (and ": type" when typed).
func (a *StringAttr) String() string {
	s := Quote(a.Value)
	if a.Type != nil {
		s += " : " + a.Type.String()
	}
	return s
}

// UnitAttr is the attribute whose presence alone is the information.
type UnitAttr struct{}

// String returns "unit".
func (UnitAttr) String() string { return "unit" }

// TypeAttr wraps a type used as an attribute.
type TypeAttr struct{ Type Type }

// String returns the type.
func (a *TypeAttr) String() string { return a.Type.String() }

// ArrayAttr is [a, b, …].
type ArrayAttr struct{ Elems []Attribute }

// String returns e.g. "[1 : i64, \"x\"]".
func (a *ArrayAttr) String() string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, e := range a.Elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(e.String())
	}
	sb.WriteByte(']')
	return sb.String()
}

// DictAttr is {name = value, …}, entries sorted by name.
type DictAttr struct{ Entries []NamedAttr }

// String returns e.g. "{a = 1 : i64, b}".
func (a *DictAttr) String() string { return FormatAttrDict(a.Entries) }

// Get returns the value named name, or nil.
func (a *DictAttr) Get(name string) Attribute { return GetAttr(a.Entries, name) }

// SymbolRefAttr is @root::@nested1::@nested2.
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// String returns e.g. "@module::@func".
func (a *SymbolRefAttr) String() string {
	s := FormatSymbol(a.Root)
	for _, n := range a.Nested {
		s += "::" + FormatSymbol(n)
	}
	return s
}

// OpaqueAttr is a dialect attribute (or a builtin one gree does not model,
// such as strided layouts) kept as its text, e.g. "#arith.fastmath<fast>".
// Aliases inside the text are expanded.
type OpaqueAttr struct{ Text string }

// String returns the text.
func (a *OpaqueAttr) String() string { return a.Text }

// Dialect returns the dialect namespace ("arith" for "#arith.fastmath<…>"),
// or "" for builtin attributes.
func (a *OpaqueAttr) Dialect() string {
	if !strings.HasPrefix(a.Text, "#") {
		return ""
	}
	name := a.Text[1:]
	if i := strings.IndexAny(name, ".<"); i >= 0 {
		return name[:i]
	}
	return name
}

// FormatInt formats an integer value of type t: unsigned types print
// unsigned, everything else signed.
func FormatInt(v int64, t Type) string {
	if it, ok := t.(*IntegerType); ok && it.Signedness == Unsigned {
		return strconv.FormatUint(uint64(v), 10)
	}
	return strconv.FormatInt(v, 10)
}

// FormatFloat formats v, a value of float type t, so that parsing the text
// back and rounding to t gives v again: "1.000000e+00" when six digits
// suffice, more digits otherwise, and the hexadecimal bit pattern
// ("0x7FC00000") for NaN and infinities.
func FormatFloat(v float64, t Type) string {
	kind := KindF64
	if ft, ok := t.(*FloatType); ok {
		kind = ft.Kind
	}
	if v != v || v > maxFloat64 || v < -maxFloat64 {
		if b, ok := FloatToBits(kind, v); ok {
			digits := (kind.Width() + 3) / 4
			h := strings.ToUpper(strconv.FormatUint(b, 16))
			return "0x" + strings.Repeat("0", max(0, digits-len(h))) + h
		}
	}
	for prec := 6; prec < 17; prec++ {
		s := strconv.FormatFloat(v, 'e', prec, 64)
		if back, err := strconv.ParseFloat(s, 64); err == nil && RoundFloat(kind, back) == v {
			return s
		}
	}
	return strconv.FormatFloat(v, 'e', 17, 64)
}

const maxFloat64 = 1.79769313486231570814527423731704356798070e+308

// Quote returns s as an MLIR string literal: printable ASCII stays, '"' and
// '\\' are escaped, newline and tab become \n and \t, other bytes \XX.
func Quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			const hex = "0123456789ABCDEF"
			sb.WriteByte('\\')
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&15])
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// IsBareIdentifier reports whether s can be written without quotes as a
// symbol or dictionary key: [a-zA-Z_][a-zA-Z0-9_$.]*.
func IsBareIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '$' || c == '.')) {
			return false
		}
	}
	return true
}

// FormatSymbol returns "@name", quoting the name when it is not a bare
// identifier.
func FormatSymbol(name string) string {
	if IsBareIdentifier(name) {
		return "@" + name
	}
	return "@" + Quote(name)
}

// IntConstant returns the value of v when an integer arith.constant
// defines it.
func IntConstant(v *Value) (int64, bool) {
	def := v.Owner()
	if def == nil || def.Name != "arith.constant" {
		return 0, false
	}
	a, ok := def.Attr("value").(*IntegerAttr)
	if !ok {
		return 0, false
	}
	return a.Value, true
}
