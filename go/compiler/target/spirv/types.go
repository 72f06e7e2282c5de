package spirv

import (
	"fmt"
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// Register representation of kir's scalar types:
//
//	i1         OpTypeBool
//	i8 … i64   OpTypeInt N 0 (Int8, Int16, Int64)
//	f16        OpTypeFloat 16 (Float16); arithmetic goes through f32
//	bf16       OpTypeFloat 32 holding a bf16 value (low 16 bits zero)
//	f32, f64   OpTypeFloat 32, 64 (Float64)
//
// Vectors are scalarized: a kir value of N lanes is N ids.

// intT returns the N-bit integer type for values in registers.
func (e *emitter) intT(bits int) uint32 {
	switch bits {
	case 8:
		e.need("Int8", "i8 ("+e.where()+")")
	case 16:
		e.need("Int16", "i16 ("+e.where()+")")
	case 64:
		e.need("Int64", "i64 ("+e.where()+")")
	}
	return e.m.tInt(bits)
}

// floatT returns the N-bit float type for values in registers.
func (e *emitter) floatT(bits int) uint32 {
	switch bits {
	case 16:
		e.need("Float16", "f16 ("+e.where()+")")
	case 64:
		e.need("Float64", "f64 ("+e.where()+")")
	}
	return e.m.tFloat(bits)
}

func (e *emitter) u32() uint32  { return e.m.tInt(32) }
func (e *emitter) u64() uint32  { return e.intT(64) }
func (e *emitter) f32() uint32  { return e.m.tFloat(32) }
func (e *emitter) bool() uint32 { return e.m.tBool() }

// reg returns the register type of one lane of s.
func (e *emitter) reg(s kir.Scalar) uint32 {
	switch s {
	case kir.I1:
		return e.m.tBool()
	case kir.I8, kir.I16, kir.I32, kir.I64:
		return e.intT(s.Bits())
	case kir.F16:
		return e.floatT(16)
	case kir.BF16, kir.F32:
		return e.f32()
	case kir.F64:
		return e.floatT(64)
	}
	e.failf(3, "invalid type %s", s)
	return 0
}

// storage returns the element type of a storage buffer of s: i1 as 8-bit
// and bf16 as 16-bit integers.
func (e *emitter) storage(s kir.Scalar, what string) uint32 {
	switch s {
	case kir.I1, kir.I8:
		e.need("StorageBuffer8BitAccess", what)
		return e.m.tInt(8)
	case kir.I16, kir.BF16:
		e.need("StorageBuffer16BitAccess", what)
		return e.m.tInt(16)
	case kir.F16:
		e.need("StorageBuffer16BitAccess", what)
		return e.m.tFloat(16)
	case kir.I32:
		return e.u32()
	case kir.F32:
		return e.f32()
	case kir.I64:
		e.need("Int64", what)
		return e.m.tInt(64)
	}
	e.need("Float64", what)
	return e.m.tFloat(64)
}

// sharedElemBytes is the size the module's workgroup arrays give one
// element of s (they hold the register type; i1 counts as 4 bytes).
func sharedElemBytes(s kir.Scalar) int {
	switch s {
	case kir.I1, kir.BF16:
		return 4
	}
	return s.ByteSize()
}

// Constants.

func (e *emitter) cU32(x uint32) uint32 { return e.m.constInt(32, uint64(x)) }
func (e *emitter) cU64(x uint64) uint32 { e.intT(64); return e.m.constInt(64, x) }
func (e *emitter) cBool(b bool) uint32  { return e.m.constBool(b) }

// cInt returns the integer constant x (its low bits) of type s.
func (e *emitter) cInt(s kir.Scalar, x int64) uint32 {
	if s == kir.I1 {
		return e.cBool(x&1 != 0)
	}
	e.intT(s.Bits())
	return e.m.constInt(s.Bits(), uint64(x))
}

// cFloat returns x rounded to nearest even as a register constant of s.
func (e *emitter) cFloat(s kir.Scalar, x float64) uint32 {
	switch s {
	case kir.F16:
		e.floatT(16)
		return e.m.constFloat(16, uint64(half.F16(x)))
	case kir.BF16:
		return e.m.constFloat(32, uint64(half.BF16(x))<<16)
	case kir.F32:
		return e.m.constFloat(32, uint64(math.Float32bits(float32(x))))
	}
	e.floatT(64)
	return e.m.constFloat(64, math.Float64bits(x))
}

// zero returns the zero of s in registers.
func (e *emitter) zero(s kir.Scalar) uint32 {
	if s.IsFloat() {
		return e.cFloat(s, 0)
	}
	return e.cInt(s, 0)
}

// constant translates ConstInt and ConstFloat (splat over the lanes).
func (e *emitter) constant(op *kir.Op, rt kir.Type) {
	var c uint32
	if op.Kind == kir.ConstInt {
		c = e.cInt(rt.Elem, op.Imm)
	} else {
		c = e.cFloat(rt.Elem, op.F)
	}
	e.lanewise(op, rt, func(int) uint32 { return c })
}

// describe names s for messages.
func describe(s kir.Scalar, what string) string { return fmt.Sprintf("%s (%s)", s, what) }
