package ir

import (
	"sort"
	"strings"
)

// NamedAttr is one entry of an attribute dictionary.
type NamedAttr struct {
	Name  string
	Value Attribute
}

// Named returns the dictionary entry name = value.
func Named(name string, value Attribute) NamedAttr { return NamedAttr{name, value} }

// GetAttr returns the value named name in a sorted dictionary, or nil.
func GetAttr(entries []NamedAttr, name string) Attribute {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name >= name })
	if i < len(entries) && entries[i].Name == name {
		return entries[i].Value
	}
	return nil
}

// SetAttr sets name = value in a sorted dictionary, replacing an existing
// entry, and returns the updated slice.
func SetAttr(entries []NamedAttr, name string, value Attribute) []NamedAttr {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name >= name })
	if i < len(entries) && entries[i].Name == name {
		entries[i].Value = value
		return entries
	}
	entries = append(entries, NamedAttr{})
	copy(entries[i+1:], entries[i:])
	entries[i] = NamedAttr{name, value}
	return entries
}

// RemoveAttr deletes the entry named name from a sorted dictionary and
// returns the updated slice.
func RemoveAttr(entries []NamedAttr, name string) []NamedAttr {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name >= name })
	if i < len(entries) && entries[i].Name == name {
		return append(entries[:i], entries[i+1:]...)
	}
	return entries
}

// SortAttrs returns a sorted copy of entries; later duplicates replace
// earlier ones.
func SortAttrs(entries []NamedAttr) []NamedAttr {
	var out []NamedAttr
	for _, e := range entries {
		out = SetAttr(out, e.Name, e.Value)
	}
	return out
}

// NewDict returns the dictionary attribute of the entries, sorted.
func NewDict(entries ...NamedAttr) *DictAttr { return &DictAttr{Entries: SortAttrs(entries)} }

// FormatAttrDict formats entries as "{a = 1 : i64, b}": unit values print
// as the bare name, names that are not bare identifiers are quoted.
func FormatAttrDict(entries []NamedAttr) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			sb.WriteString(", ")
		}
		if IsBareIdentifier(e.Name) {
			sb.WriteString(e.Name)
		} else {
			sb.WriteString(Quote(e.Name))
		}
		if _, unit := e.Value.(UnitAttr); !unit {
			sb.WriteString(" = ")
			sb.WriteString(e.Value.String())
		}
	}
	sb.WriteByte('}')
	return sb.String()
}

// Convenience constructors for common attributes.

// IntAttr returns the integer attribute v : t.
func IntAttr(v int64, t Type) *IntegerAttr { return &IntegerAttr{Value: v, Type: t} }

// FloatAttrOf returns the float attribute v : t, v rounded to t.
func FloatAttrOf(v float64, t *FloatType) *FloatAttr {
	return &FloatAttr{Value: RoundFloat(t.Kind, v), Type: t}
}

// Str returns the string attribute s.
func Str(s string) *StringAttr { return &StringAttr{Value: s} }

// TypeAttrOf returns t as an attribute.
func TypeAttrOf(t Type) *TypeAttr { return &TypeAttr{Type: t} }

// Array returns the array attribute of elems.
func Array(elems ...Attribute) *ArrayAttr { return &ArrayAttr{Elems: elems} }

// SymRef returns the symbol reference @root::@nested….
func SymRef(root string, nested ...string) *SymbolRefAttr {
	return &SymbolRefAttr{Root: root, Nested: nested}
}

// Unit is the unit attribute.
var Unit = UnitAttr{}
