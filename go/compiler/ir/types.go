package ir

import (
	"strconv"
	"strings"
)

// Type is an IR type. String returns it in MLIR syntax; Equal compares
// structurally.
type Type interface {
	String() string
	Equal(other Type) bool
}

// Signedness is the signedness semantics of an IntegerType.
type Signedness uint8

// The three integer signedness semantics of MLIR: iN, siN and uiN.
const (
	Signless Signedness = iota
	Signed
	Unsigned
)

// IntegerType is iN (signless), siN or uiN.
type IntegerType struct {
	Width      int
	Signedness Signedness
}

// String returns "i32", "si8", "ui16", ….
func (t *IntegerType) String() string {
	p := [...]string{"i", "si", "ui"}[t.Signedness]
	return p + strconv.Itoa(t.Width)
}

// Equal reports whether o is the same integer type.
func (t *IntegerType) Equal(o Type) bool { u, ok := o.(*IntegerType); return ok && *u == *t }

// IndexType is the target-sized integer type "index".
type IndexType struct{}

// String returns "index".
func (*IndexType) String() string { return "index" }

// Equal reports whether o is index.
func (*IndexType) Equal(o Type) bool { _, ok := o.(*IndexType); return ok }

// FloatType is a floating-point type of one FloatKind.
type FloatType struct{ Kind FloatKind }

// String returns the MLIR name, e.g. "f32".
func (t *FloatType) String() string { return t.Kind.String() }

// Equal reports whether o is the same float type.
func (t *FloatType) Equal(o Type) bool { u, ok := o.(*FloatType); return ok && u.Kind == t.Kind }

// NoneType is the unit type "none".
type NoneType struct{}

// String returns "none".
func (*NoneType) String() string { return "none" }

// Equal reports whether o is none.
func (*NoneType) Equal(o Type) bool { _, ok := o.(*NoneType); return ok }

// ComplexType is complex<Elem>.
type ComplexType struct{ Elem Type }

// String returns "complex<f32>" and the like.
func (t *ComplexType) String() string { return "complex<" + t.Elem.String() + ">" }

// Equal reports whether o is complex over the same element type.
func (t *ComplexType) Equal(o Type) bool {
	u, ok := o.(*ComplexType)
	return ok && TypesEqual(u.Elem, t.Elem)
}

// TupleType is tuple<T1, T2, …>.
type TupleType struct{ Types []Type }

// String returns "tuple<i32, f32>" and the like.
func (t *TupleType) String() string { return "tuple<" + typeList(t.Types) + ">" }

// Equal reports whether o is a tuple of the same types.
func (t *TupleType) Equal(o Type) bool {
	u, ok := o.(*TupleType)
	return ok && typeListsEqual(u.Types, t.Types)
}

// FunctionType is (inputs) -> results.
type FunctionType struct{ Inputs, Results []Type }

// String returns "(i32, f32) -> f32"; several results, none, or a single
// function-typed result are parenthesized.
func (t *FunctionType) String() string {
	return "(" + typeList(t.Inputs) + ") -> " + resultList(t.Results)
}

// Equal reports whether o has the same inputs and results.
func (t *FunctionType) Equal(o Type) bool {
	u, ok := o.(*FunctionType)
	return ok && typeListsEqual(u.Inputs, t.Inputs) && typeListsEqual(u.Results, t.Results)
}

// OpaqueType is a dialect type kept as its text, e.g. "!hal.buffer_view" or
// "!torch.vtensor<[1,3],f32>". Aliases inside the text are expanded.
type OpaqueType struct{ Text string }

// String returns the text, starting with '!'.
func (t *OpaqueType) String() string { return t.Text }

// Equal reports whether o is an opaque type with the same text.
func (t *OpaqueType) Equal(o Type) bool { u, ok := o.(*OpaqueType); return ok && u.Text == t.Text }

// Dialect returns the dialect namespace of the type ("hal" for
// "!hal.buffer_view").
func (t *OpaqueType) Dialect() string {
	name := strings.TrimPrefix(t.Text, "!")
	if i := strings.IndexAny(name, ".<"); i >= 0 {
		return name[:i]
	}
	return name
}

// Common types, shared; never mutate them.
var (
	I1    = &IntegerType{Width: 1}
	I8    = &IntegerType{Width: 8}
	I16   = &IntegerType{Width: 16}
	I32   = &IntegerType{Width: 32}
	I64   = &IntegerType{Width: 64}
	Index = &IndexType{}
	F16   = &FloatType{KindF16}
	BF16  = &FloatType{KindBF16}
	F32   = &FloatType{KindF32}
	F64   = &FloatType{KindF64}
	None  = &NoneType{}
)

// Int returns the signless integer type of the given width.
func Int(width int) *IntegerType { return &IntegerType{Width: width} }

// Float returns the float type of kind k.
func Float(k FloatKind) *FloatType { return &FloatType{k} }

// Function returns the function type (inputs) -> results.
func Function(inputs, results []Type) *FunctionType {
	return &FunctionType{Inputs: inputs, Results: results}
}

// TypesEqual reports whether a and b are the same type; two nil types are
// equal.
func TypesEqual(a, b Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(b)
}

func typeListsEqual(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !TypesEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func typeList(ts []Type) string {
	var sb strings.Builder
	for i, t := range ts {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(t.String())
	}
	return sb.String()
}

// resultList formats the result side of a function type.
func resultList(ts []Type) string {
	if len(ts) == 1 {
		if _, fn := ts[0].(*FunctionType); !fn {
			return ts[0].String()
		}
	}
	return "(" + typeList(ts) + ")"
}

// IsInteger reports whether t is an integer type (not index).
func IsInteger(t Type) bool { _, ok := t.(*IntegerType); return ok }

// IsFloat reports whether t is a floating-point type.
func IsFloat(t Type) bool { _, ok := t.(*FloatType); return ok }

// IsIntOrIndex reports whether t is an integer type or index.
func IsIntOrIndex(t Type) bool {
	switch t.(type) {
	case *IntegerType, *IndexType:
		return true
	}
	return false
}
