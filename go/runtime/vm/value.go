package vm

import (
	"fmt"

	"github.com/gree-ml/gree/go/internal/cfmt"
)

// Kind is the type of a Value.
type Kind uint8

// Value kinds. I32/I64 keep their value in Value.I, F32/F64 in Value.F;
// Ref holds a reference (a *hal.BufferView, a *List, …) or nil for null.
const (
	KindNull Kind = iota
	KindI32
	KindI64
	KindF32
	KindF64
	KindRef
)

// Value is one VM variant: a primitive or a reference.
type Value struct {
	Kind Kind
	I    int64
	F    float64
	Ref  any
}

// List is a VM list (vm.list) of variants.
type List struct {
	Items []Value
}

// I32 returns a 32-bit integer value.
func I32(v int32) Value { return Value{Kind: KindI32, I: int64(v)} }

// I64 returns a 64-bit integer value.
func I64(v int64) Value { return Value{Kind: KindI64, I: v} }

// F32 returns a 32-bit float value.
func F32(v float32) Value { return Value{Kind: KindF32, F: float64(v)} }

// F64 returns a 64-bit float value.
func F64(v float64) Value { return Value{Kind: KindF64, F: v} }

// RefValue returns a reference value; nil gives a null reference.
func RefValue(r any) Value {
	if r == nil {
		return Value{Kind: KindNull}
	}
	return Value{Kind: KindRef, Ref: r}
}

// String formats primitives as iree-run-module does ("i32=1", "f32=2.5").
func (v Value) String() string {
	switch v.Kind {
	case KindI32:
		return fmt.Sprintf("i32=%d", int32(v.I))
	case KindI64:
		return fmt.Sprintf("i64=%d", v.I)
	case KindF32:
		return "f32=" + cfmt.G(v.F, false)
	case KindF64:
		return "f64=" + cfmt.G(v.F, false)
	case KindNull:
		return "(null)"
	}
	return fmt.Sprintf("%T", v.Ref)
}
