package spirv

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Conversions with the interpreter's semantics: fptosi/fptoui truncate
// and saturate (NaN gives 0); sitofp/uitofp to f16 and bf16 go through
// f32; truncf rounds once to nearest even.

// convert translates conversion k of a register value from → to.
func (e *emitter) convert(k kir.Kind, from, to kir.Scalar, a uint32) uint32 {
	bt := e.bool()
	switch k {
	case kir.ExtS, kir.ExtU:
		if from == kir.I1 {
			v := int64(1)
			if k == kir.ExtS {
				v = -1
			}
			return e.val(e.reg(to), opSelect, a, e.cInt(to, v), e.cInt(to, 0))
		}
		if k == kir.ExtS && from == kir.I32 && to == kir.I64 {
			// (u ^ 2³¹) − 2³¹ of the zero extension u, not OpSConvert:
			// Mesa's NIR (seen in lavapipe 22.3) folds a signed
			// comparison of i2i64(x: i32) with a constant (x < c,
			// c < x, x ≥ c, c ≥ x; min and max are such selects) to a
			// result that does not depend on x: its rewrite of the
			// comparison uses the bound −2³¹ as the C literal
			// -0x80000000, an unsigned +2³¹. The arithmetic form is no
			// i2i64 to NIR.
			u := e.val(e.reg(to), opUConvert, a)
			bias := e.cInt(to, 1<<31)
			return e.val(e.reg(to), opISub, e.val(e.reg(to), opBitwiseXor, u, bias), bias)
		}
		op := uint32(opSConvert)
		if k == kir.ExtU {
			op = opUConvert
		}
		return e.val(e.reg(to), op, a)
	case kir.TruncI:
		if to == kir.I1 {
			one := e.cInt(from, 1)
			return e.val(bt, opINotEqual, e.val(e.reg(from), opBitwiseAnd, a, one), e.cInt(from, 0))
		}
		return e.val(e.reg(to), opUConvert, a)
	case kir.SIToFP, kir.UIToFP:
		return e.intToFloat(from, to, a, k == kir.SIToFP)
	case kir.FPToSI, kir.FPToUI:
		return e.floatToInt(from, to, a, k == kir.FPToSI)
	case kir.FPExt:
		x := e.promote(from, a)
		if to == kir.F64 {
			return e.val(e.reg(to), opFConvert, x)
		}
		return x // f16, bf16 → f32
	case kir.FPTrunc:
		return e.truncFloat(from, to, a)
	case kir.Bitcast:
		return e.bitcast(from, to, a)
	}
	e.failf(13, "%s is not a conversion", k)
	return 0
}

// intToFP converts an integer to s, correctly rounded (f16 and bf16 by
// way of f32).
func (e *emitter) intToFloat(from, to kir.Scalar, a uint32, signed bool) uint32 {
	f := e.flt(wide(to))
	var x uint32
	if from == kir.I1 { // as an i32 0 or ±1 (a select of float constants may lose +0's sign)
		one := uint32(1)
		if signed {
			one = 0xffffffff
		}
		a = e.val(e.u32(), opSelect, a, e.cU32(one), e.cU32(0))
	}
	if signed {
		x = e.val(f.t, opConvertSToF, a)
	} else {
		x = e.val(f.t, opConvertUToF, a)
	}
	return e.demote(to, x)
}

// floatToInt converts a float to an integer of type to, truncating and
// saturating at the type's range; NaN gives 0.
func (e *emitter) floatToInt(from, to kir.Scalar, a uint32, signed bool) uint32 {
	f := e.flt(wide(from))
	x := e.promote(from, a)
	n := to.Bits()
	is := to
	if to == kir.I1 {
		is = kir.I32 // computed in 32 bits, narrowed by the low bit
	}
	t := e.reg(is)
	var lo, hi float64 // the in-range interval [lo, hi)
	var minV, maxV int64
	if signed {
		lo, hi = -math.Ldexp(1, n-1), math.Ldexp(1, n-1)
		minV, maxV = -1<<(n-1), 1<<(n-1)-1
	} else {
		lo, hi = 0, math.Ldexp(1, n)
		minV, maxV = 0, -1 // all ones
		if n < 64 {
			maxV = 1<<n - 1
		}
	}
	in := f.and(f.cmp(opFOrdGreaterThanEqual, x, f.c(lo)), f.lt(x, f.c(hi)))
	if !signed { // (-1, 0) truncates to 0 too
		in = f.and(f.gt(x, f.c(-1)), f.lt(x, f.c(hi)))
	}
	op := uint32(opConvertFToU)
	if signed {
		op = opConvertFToS
	}
	r := e.val(t, op, f.sel(in, x, f.c(0)))
	r = e.val(t, opSelect, f.cmp(opFOrdGreaterThanEqual, x, f.c(hi)), e.cInt(is, maxV), r)
	r = e.val(t, opSelect, f.lt(x, f.c(lo)), e.cInt(is, minV), r)
	if to == kir.I1 {
		return e.narrow(r)
	}
	return r
}

// truncFloat rounds a float to a narrower type once, to nearest even.
func (e *emitter) truncFloat(from, to kir.Scalar, a uint32) uint32 {
	switch {
	case to == kir.BF16 && from == kir.F32:
		return e.roundBF16(a)
	case to == kir.BF16: // f64: round to odd in f32 first, which keeps one rounding
		return e.roundBF16(e.toOddF32(a))
	}
	return e.val(e.reg(to), opFConvert, a) // f32/f64 → f16, f64 → f32
}

// toOddF32 rounds an f64 to f32 with round-to-odd (truncate, then set the
// low bit when inexact), after which rounding to a format at least two
// bits narrower is correctly rounded.
func (e *emitter) toOddF32(a uint32) uint32 {
	f32, u32, bt := e.f32(), e.u32(), e.bool()
	d := e.flt(64)
	y := e.val(f32, opFConvert, a)
	back := e.val(d.t, opFConvert, y)
	// step toward zero where rounding went away from zero
	away := d.gt(d.abs(back), d.abs(a))
	u := e.val(u32, opBitcast, y)
	u = e.val(u32, opSelect, away, e.val(u32, opISub, u, e.cU32(1)), u)
	inexact := e.val(bt, opLogicalAnd, e.val(bt, opFOrdNotEqual, back, a), e.val(bt, opLogicalNot, e.val(bt, opIsInf, a)))
	u = e.val(u32, opSelect, inexact, e.val(u32, opBitwiseOr, u, e.cU32(1)), u)
	r := e.val(f32, opBitcast, u)
	return e.val(f32, opSelect, d.isNaN(a), y, r)
}

// bitcast reinterprets the bits of a register value of from as to.
func (e *emitter) bitcast(from, to kir.Scalar, a uint32) uint32 {
	if from == to {
		return a
	}
	u32 := e.u32()
	// bf16 in registers is an f32: its bits are the high half.
	if from == kir.BF16 {
		w := e.val(u32, opShiftRightLogical, e.val(u32, opBitcast, a), e.cU32(16))
		if to == kir.F16 {
			return e.val(e.reg(to), opBitcast, e.val(e.intT(16), opUConvert, w))
		}
		return e.val(e.reg(to), opUConvert, w) // i16
	}
	if to == kir.BF16 {
		w := a
		if from == kir.F16 {
			w = e.val(e.intT(16), opBitcast, a)
		}
		w = e.val(u32, opUConvert, w)
		return e.val(e.f32(), opBitcast, e.val(u32, opShiftLeftLogical, w, e.cU32(16)))
	}
	return e.val(e.reg(to), opBitcast, a)
}
