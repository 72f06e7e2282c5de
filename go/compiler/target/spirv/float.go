package spirv

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Float arithmetic: f32 and f64 natively; f16 and bf16 as the interpreter
// defines them, f32 arithmetic (operands extended, exactly) rounded to the
// narrow type.

// wide returns the compute width of s (32 for f16, bf16 and f32).
func wide(s kir.Scalar) int {
	if s == kir.F64 {
		return 64
	}
	return 32
}

// promote converts a register value of s to its compute type, exactly.
func (e *emitter) promote(s kir.Scalar, x uint32) uint32 {
	if s == kir.F16 {
		return e.val(e.f32(), opFConvert, x)
	}
	return x
}

// demote rounds a compute value to s, to nearest even.
func (e *emitter) demote(s kir.Scalar, x uint32) uint32 {
	switch s {
	case kir.F16:
		return e.val(e.reg(s), opFConvert, x)
	case kir.BF16:
		return e.roundBF16(x)
	}
	return x
}

// roundBF16 rounds an f32 to the nearest even bf16 value (an f32 whose
// low 16 bits are zero); NaNs stay NaNs (quieted).
func (e *emitter) roundBF16(x uint32) uint32 {
	u32 := e.u32()
	u := e.val(u32, opBitcast, x)
	odd := e.val(u32, opBitwiseAnd, e.val(u32, opShiftRightLogical, u, e.cU32(16)), e.cU32(1))
	r := e.val(u32, opIAdd, u, e.val(u32, opIAdd, e.cU32(0x7fff), odd))
	nan := e.val(u32, opBitwiseOr, u, e.cU32(0x00400000))
	r = e.val(u32, opSelect, e.val(e.bool(), opIsNan, x), nan, r)
	r = e.val(u32, opBitwiseAnd, r, e.cU32(0xffff0000))
	return e.val(e.f32(), opBitcast, r)
}

// fb builds float code in one compute width.
type fb struct {
	e *emitter
	w int
	t uint32
}

// flt returns the builder for compute width w (32 or 64).
func (e *emitter) flt(w int) fb {
	return fb{e: e, w: w, t: e.floatT(w)}
}

// c returns the constant x rounded to the width.
func (f fb) c(x float64) uint32 {
	if f.w == 32 {
		return f.e.m.constFloat(32, uint64(math.Float32bits(float32(x))))
	}
	return f.e.m.constFloat(64, math.Float64bits(x))
}

func (f fb) op2(op, a, b uint32) uint32      { return f.e.val(f.t, op, a, b) }
func (f fb) add(a, b uint32) uint32          { return f.op2(opFAdd, a, b) }
func (f fb) sub(a, b uint32) uint32          { return f.op2(opFSub, a, b) }
func (f fb) mul(a, b uint32) uint32          { return f.op2(opFMul, a, b) }
func (f fb) div(a, b uint32) uint32          { return f.op2(opFDiv, a, b) }
func (f fb) neg(a uint32) uint32             { return f.e.val(f.t, opFNegate, a) }
func (f fb) abs(a uint32) uint32             { return f.e.ext(f.t, glslFAbs, a) }
func (f fb) sel(c, a, b uint32) uint32       { return f.e.val(f.t, opSelect, c, a, b) }
func (f fb) cmp(op, a, b uint32) uint32      { return f.e.val(f.e.bool(), op, a, b) }
func (f fb) lt(a, b uint32) uint32           { return f.cmp(opFOrdLessThan, a, b) }
func (f fb) gt(a, b uint32) uint32           { return f.cmp(opFOrdGreaterThan, a, b) }
func (f fb) eq(a, b uint32) uint32           { return f.cmp(opFOrdEqual, a, b) }
func (f fb) isNaN(a uint32) uint32           { return f.e.val(f.e.bool(), opIsNan, a) }
func (f fb) isInf(a uint32) uint32           { return f.e.val(f.e.bool(), opIsInf, a) }
func (f fb) or(a, b uint32) uint32           { return f.e.val(f.e.bool(), opLogicalOr, a, b) }
func (f fb) and(a, b uint32) uint32          { return f.e.val(f.e.bool(), opLogicalAnd, a, b) }
func (f fb) not(a uint32) uint32             { return f.e.val(f.e.bool(), opLogicalNot, a) }
func (f fb) glsl(fn uint32, a uint32) uint32 { return f.e.ext(f.t, fn, a) }

// uint is the unsigned integer type of the width's bits.
func (f fb) uint() uint32 {
	if f.w == 32 {
		return f.e.u32()
	}
	return f.e.u64()
}

// cu returns an unsigned constant of the width.
func (f fb) cu(x uint64) uint32 {
	if f.w == 32 {
		return f.e.cU32(uint32(x))
	}
	return f.e.cU64(x)
}

func (f fb) bits(a uint32) uint32     { return f.e.val(f.uint(), opBitcast, a) }
func (f fb) fromBits(u uint32) uint32 { return f.e.val(f.t, opBitcast, u) }

// signMask is the sign bit of the width.
func (f fb) signMask() uint64 { return 1 << (f.w - 1) }

// copySign returns |a| with the sign of b.
func (f fb) copySign(a, b uint32) uint32 {
	u := f.uint()
	mag := f.e.val(u, opBitwiseAnd, f.bits(a), f.cu(f.signMask()-1))
	sgn := f.e.val(u, opBitwiseAnd, f.bits(b), f.cu(f.signMask()))
	return f.fromBits(f.e.val(u, opBitwiseOr, mag, sgn))
}

// signbit reports a's sign bit.
func (f fb) signbit(a uint32) uint32 {
	u := f.uint()
	return f.e.val(f.e.bool(), opINotEqual, f.e.val(u, opBitwiseAnd, f.bits(a), f.cu(f.signMask())), f.cu(0))
}

// nan returns a quiet NaN.
func (f fb) nan() uint32 { return f.c(math.NaN()) }

// minMax implements minimumf/maximumf (NaN if either is NaN, -0 < +0)
// and, with num, minnumf/maxnumf (a NaN operand yields the other).
func (f fb) minMax(a, b uint32, isMax, num bool) uint32 {
	u := f.uint()
	var r, z uint32
	if isMax {
		r = f.sel(f.gt(a, b), a, b)
		z = f.fromBits(f.e.val(u, opBitwiseAnd, f.bits(a), f.bits(b))) // +0 wins
	} else {
		r = f.sel(f.lt(a, b), a, b)
		z = f.fromBits(f.e.val(u, opBitwiseOr, f.bits(a), f.bits(b))) // -0 wins
	}
	r = f.sel(f.eq(a, b), z, r)
	an, bn := f.isNaN(a), f.isNaN(b)
	if num {
		return f.sel(an, b, f.sel(bn, a, r))
	}
	return f.sel(f.or(an, bn), f.nan(), r)
}

// floatBinary applies a float binary op to register values of s.
func (e *emitter) floatBinary(k kir.Kind, s kir.Scalar, a, b uint32) uint32 {
	f := e.flt(wide(s))
	x, y := e.promote(s, a), e.promote(s, b)
	var r uint32
	switch k {
	case kir.Add:
		r = f.add(x, y)
	case kir.Sub:
		r = f.sub(x, y)
	case kir.Mul:
		r = f.mul(x, y)
	case kir.DivF:
		r = f.div(x, y)
	case kir.RemF:
		r = f.fmod(x, y)
	case kir.MinF, kir.MaxF, kir.MinNumF, kir.MaxNumF:
		r = f.minMax(x, y, k == kir.MaxF || k == kir.MaxNumF, k == kir.MinNumF || k == kir.MaxNumF)
	case kir.PowF:
		r = f.pow(x, y)
	case kir.Atan2:
		r = f.atan2(x, y)
	case kir.CopySign:
		r = f.copySign(x, y)
	default:
		e.failf(13, "%s is not a float op", k)
	}
	return e.demote(s, r)
}

// fma computes a*b+c: the fused GLSL Fma in f32 and f64 (rounded to f16
// and bf16 from f32).
func (e *emitter) fma(s kir.Scalar, a, b, c uint32) uint32 {
	f := e.flt(wide(s))
	r := e.ext(f.t, glslFma, e.promote(s, a), e.promote(s, b), e.promote(s, c))
	return e.demote(s, r)
}

// classify translates IsNaN, IsInf and IsFinite on a register value of s.
func (e *emitter) classify(k kir.Kind, s kir.Scalar, a uint32) uint32 {
	bt := e.bool()
	switch k {
	case kir.IsNaN:
		return e.val(bt, opIsNan, a)
	case kir.IsInf:
		return e.val(bt, opIsInf, a)
	}
	bad := e.val(bt, opLogicalOr, e.val(bt, opIsNan, a), e.val(bt, opIsInf, a))
	return e.val(bt, opLogicalNot, bad)
}

// cmpFloat evaluates an arith.cmpf predicate on register values of s.
func (e *emitter) cmpFloat(p kir.Pred, s kir.Scalar, a, b uint32) uint32 {
	bt := e.bool()
	switch p {
	case kir.FPredFalse:
		return e.cBool(false)
	case kir.FPredTrue:
		return e.cBool(true)
	case kir.FPredORD, kir.FPredUNO:
		uno := e.val(bt, opLogicalOr, e.val(bt, opIsNan, a), e.val(bt, opIsNan, b))
		if p == kir.FPredUNO {
			return uno
		}
		return e.val(bt, opLogicalNot, uno)
	}
	ops := map[kir.Pred]uint32{
		kir.FPredOEQ: opFOrdEqual, kir.FPredOGT: opFOrdGreaterThan, kir.FPredOGE: opFOrdGreaterThanEqual,
		kir.FPredOLT: opFOrdLessThan, kir.FPredOLE: opFOrdLessThanEqual, kir.FPredONE: opFOrdNotEqual,
		kir.FPredUEQ: opFUnordEqual, kir.FPredUGT: opFUnordGreaterThan, kir.FPredUGE: opFUnordGreaterThanEqual,
		kir.FPredULT: opFUnordLessThan, kir.FPredULE: opFUnordLessThanEqual, kir.FPredUNE: opFUnordNotEqual,
	}
	return e.val(bt, ops[p], a, b)
}
