package kir

import "fmt"

// Scalar is an element type. Integers are signless; ops say how they treat
// the sign.
type Scalar uint8

// Scalar types.
const (
	Invalid Scalar = iota
	I1
	I8
	I16
	I32
	I64
	F16
	BF16
	F32
	F64
)

// Index is the type of sizes, offsets and induction variables.
const Index = I64

var scalarNames = [...]string{"invalid", "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"}

func (s Scalar) String() string {
	if int(s) < len(scalarNames) {
		return scalarNames[s]
	}
	return fmt.Sprintf("scalar(%d)", uint8(s))
}

// IsFloat reports f16, bf16, f32 and f64.
func (s Scalar) IsFloat() bool { return s >= F16 && s <= F64 }

// IsInt reports i1 to i64.
func (s Scalar) IsInt() bool { return s >= I1 && s <= I64 }

// Bits returns the bit width.
func (s Scalar) Bits() int {
	switch s {
	case I1:
		return 1
	case I8:
		return 8
	case I16, F16, BF16:
		return 16
	case I32, F32:
		return 32
	case I64, F64:
		return 64
	}
	return 0
}

// ByteSize returns the storage size of one element in a buffer (i1 takes
// a byte).
func (s Scalar) ByteSize() int { return (s.Bits() + 7) / 8 }

// Type is a scalar or a vector of Lanes scalars (Lanes 0 or 1: scalar).
type Type struct {
	Elem  Scalar
	Lanes int
}

// S returns the scalar type s.
func S(s Scalar) Type { return Type{Elem: s, Lanes: 1} }

// V returns the vector type of n lanes of s.
func V(s Scalar, n int) Type { return Type{Elem: s, Lanes: n} }

// IsVector reports more than one lane.
func (t Type) IsVector() bool { return t.Lanes > 1 }

// Width returns the number of lanes, 1 for scalars.
func (t Type) Width() int {
	if t.Lanes < 1 {
		return 1
	}
	return t.Lanes
}

func (t Type) String() string {
	if t.IsVector() {
		return fmt.Sprintf("vector<%dx%s>", t.Lanes, t.Elem)
	}
	return t.Elem.String()
}

// Access says how a kernel uses a binding.
type Access uint8

// Binding accesses.
const (
	Read Access = 1 << iota
	Write
	ReadWrite = Read | Write
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case ReadWrite:
		return "readwrite"
	}
	return "none"
}
