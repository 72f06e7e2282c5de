package gpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// em is a builder with the helpers NarrowTypes emits with. Integer
// helpers take i32 lanes, float helpers f32 lanes (scalars or vectors);
// constants are splats of the operand's type, made once per block.
type em struct {
	*kir.Builder
	consts map[constKey]kir.Value
}

// constKey identifies a constant of a block.
type constKey struct {
	blk   *kir.Block
	elem  kir.Scalar
	lanes int
	float bool
	bits  uint64
}

// in returns the builder for block ib, sharing b's constants.
func (b em) in(ib *kir.Builder) em { return em{ib, b.consts} }

// constant returns the constant of type t with bits x (float: the
// float64's bits), emitting it in the current block the first time.
func (b em) constant(t kir.Type, float bool, x uint64) kir.Value {
	key := constKey{b.Block, t.Elem, t.Width(), float, x}
	if v, ok := b.consts[key]; ok {
		return v
	}
	var v kir.Value
	if float {
		v = b.Float(t, math.Float64frombits(x))
	} else {
		v = b.Int(t, int64(x))
	}
	b.consts[key] = v
	return v
}

// c returns the integer constant x of type t.
func (b em) c(t kir.Type, x int64) kir.Value { return b.constant(t, false, uint64(x)) }

// f returns the float constant x of type t.
func (b em) f(t kir.Type, x float64) kir.Value { return b.constant(t, true, math.Float64bits(x)) }

// binC applies kind to x and the constant c of x's type.
func (b em) binC(kind kir.Kind, x kir.Value, c int64) kir.Value {
	return b.Bin(kind, x, b.c(b.K.Types[x], c))
}

// cmpC compares x with the constant c of x's type.
func (b em) cmpC(p kir.Pred, x kir.Value, c int64) kir.Value {
	return b.Cmp(kir.CmpI, p, x, b.c(b.K.Types[x], c))
}

// sext sign-extends the low n bits of the i32 lanes x.
func (b em) sext(x kir.Value, n int) kir.Value {
	return b.binC(kir.ShrS, b.binC(kir.Shl, x, int64(32-n)), int64(32-n))
}

// zext keeps the low n bits of the i32 lanes x.
func (b em) zext(x kir.Value, n int) kir.Value { return b.binC(kir.And, x, 1<<n-1) }

// bitsOf returns the f32 lanes x as i32 lanes of their bits.
func (b em) bitsOf(x kir.Value) kir.Value {
	return b.Emit(kir.Bitcast, laneType(b.K.Types[x], kir.I32), x)
}

// floatOf returns the i32 lanes x as the f32 lanes of those bits.
func (b em) floatOf(x kir.Value) kir.Value {
	return b.Emit(kir.Bitcast, laneType(b.K.Types[x], kir.F32), x)
}

// quantize rounds the f32 lanes x to the nearest value of s (f16 or
// bf16), ties to even, and returns it as f32.
func (b em) quantize(x kir.Value, s kir.Scalar) kir.Value {
	if s == kir.F16 {
		return b.quantizeF16(x)
	}
	return b.quantizeBF16(x)
}

// f32 bit patterns of the f16 range's edges.
const (
	f32Inf        = 0x7f800000
	f32QuietBit   = 0x00400000
	f16MinNormal  = 0x38800000 // 2^-14
	f16Overflow   = 0x477ff000 // 65520: rounds to infinity, ties to even
	f16ExpShift   = 13         // f32 mantissa bits below an f16's
	f16ExpAdjust  = (127 - 15) << 23
	bf16LowBits   = 16
	f32SignBit    = -0x80000000
	f32Magnitude  = 0x7fffffff
	f32Mantissa   = 0x007fffff
	f32Implicit   = 0x00800000
	f16Subnormals = 126 // 126 − exponent: the shift from an f32 mantissa to f16 subnormal units
)

// quantizeF16 rounds f32 lanes to f16 precision and range in integer
// operations on their bits: normal results round the 13 low mantissa bits
// away (ties to even; a carry into the exponent is right), results below
// 2^-14 round to a multiple of 2^-24 (the f16 subnormals, shifted out of
// the mantissa with its implicit bit), results from 65520 up are
// infinities, and a NaN stays a (quiet) NaN. The sign is kept.
func (b em) quantizeF16(x kir.Value) kir.Value {
	u := b.bitsOf(x)
	it := b.K.Types[u]
	sign := b.binC(kir.And, u, f32SignBit)
	a := b.binC(kir.And, u, f32Magnitude)
	// Normal: add 0xfff plus the kept part's lowest bit, then truncate.
	odd := b.binC(kir.And, b.binC(kir.ShrU, a, f16ExpShift), 1)
	normal := b.binC(kir.And, b.Bin(kir.Add, a, b.binC(kir.Add, odd, 1<<f16ExpShift/2-1)), -1<<f16ExpShift)
	// Subnormal: q = mantissa >> (126 − exponent), rounded to even; its
	// value is q·2^-24. Below 2^-25 the shift (capped at 31) leaves 0.
	sh := b.Bin(kir.MinU, b.Bin(kir.Sub, b.c(it, f16Subnormals), b.binC(kir.ShrU, a, 23)), b.c(it, 31))
	m := b.binC(kir.Or, b.binC(kir.And, a, f32Mantissa), f32Implicit)
	q := b.Bin(kir.ShrU, m, sh)
	unit := b.Bin(kir.Shl, b.c(it, 1), sh)
	rem := b.Bin(kir.And, m, b.binC(kir.Sub, unit, 1))
	half := b.binC(kir.ShrU, unit, 1)
	tie := b.Bin(kir.And, b.Cmp(kir.CmpI, kir.PredEQ, rem, half), b.cmpC(kir.PredNE, b.binC(kir.And, q, 1), 0))
	up := b.Bin(kir.Or, b.Cmp(kir.CmpI, kir.PredUGT, rem, half), tie)
	q = b.Bin(kir.Add, q, b.Emit(kir.ExtU, it, up))
	ft := laneType(it, kir.F32)
	sub := b.bitsOf(b.Bin(kir.Mul, b.Emit(kir.UIToFP, ft, q), b.f(ft, 0x1p-24)))
	r := b.Select(b.cmpC(kir.PredULT, a, f16MinNormal), sub, normal)
	r = b.Select(b.cmpC(kir.PredUGE, a, f16Overflow), b.c(it, f32Inf), r)
	nan := b.binC(kir.And, b.binC(kir.Or, a, f32QuietBit), -1<<f16ExpShift)
	r = b.Select(b.cmpC(kir.PredUGT, a, f32Inf), nan, r)
	return b.floatOf(b.Bin(kir.Or, r, sign))
}

// quantizeBF16 rounds f32 lanes to bf16 precision: the 16 low bits round
// away, ties to even (bf16 has f32's exponent range, its subnormals
// included, and a carry past the largest finite value makes infinity); a
// NaN stays a (quiet) NaN.
func (b em) quantizeBF16(x kir.Value) kir.Value {
	u := b.bitsOf(x)
	sign := b.binC(kir.And, u, f32SignBit)
	a := b.binC(kir.And, u, f32Magnitude)
	odd := b.binC(kir.And, b.binC(kir.ShrU, a, bf16LowBits), 1)
	r := b.binC(kir.And, b.Bin(kir.Add, a, b.binC(kir.Add, odd, 1<<bf16LowBits/2-1)), -1<<bf16LowBits)
	nan := b.binC(kir.And, b.binC(kir.Or, a, f32QuietBit), -1<<bf16LowBits)
	r = b.Select(b.cmpC(kir.PredUGT, a, f32Inf), nan, r)
	return b.floatOf(b.Bin(kir.Or, r, sign))
}

// f16Value returns the f32 values of the f16 bit patterns in the low 16
// bits of the i32 lanes h (bits above are ignored): normal numbers by
// moving exponent and mantissa into place, infinities and NaNs (payload
// kept) with the f32 exponent's all ones, zeros and subnormals as the
// mantissa times 2^-24 (exact).
func (b em) f16Value(h kir.Value) kir.Value {
	it := b.K.Types[h]
	ft := laneType(it, kir.F32)
	o := b.binC(kir.Add, b.binC(kir.Shl, b.binC(kir.And, h, 0x7fff), f16ExpShift), f16ExpAdjust)
	exp := b.binC(kir.And, h, 0x7c00)
	o = b.Select(b.cmpC(kir.PredEQ, exp, 0x7c00), b.binC(kir.Or, o, f32Inf), o)
	sub := b.bitsOf(b.Bin(kir.Mul, b.Emit(kir.UIToFP, ft, b.binC(kir.And, h, 0x3ff)), b.f(ft, 0x1p-24)))
	o = b.Select(b.cmpC(kir.PredEQ, exp, 0), sub, o)
	return b.floatOf(b.Bin(kir.Or, o, b.binC(kir.Shl, b.binC(kir.And, h, 0x8000), 16)))
}

// f16Bits returns the f16 bit patterns (in the low 16 bits of i32 lanes,
// zero above) of the f32 lanes x, which hold f16 values: normal numbers
// by moving exponent and mantissa back, values below 2^-14 as their
// multiple of 2^-24 (the mantissa with its implicit bit shifted down,
// exact), infinities, and NaNs with their payload's high bits (a quiet NaN
// where those are all zero).
func (b em) f16Bits(x kir.Value) kir.Value {
	u := b.bitsOf(x)
	it := b.K.Types[u]
	sign := b.binC(kir.And, b.binC(kir.ShrU, u, 16), 0x8000)
	a := b.binC(kir.And, u, f32Magnitude)
	normal := b.binC(kir.ShrU, b.binC(kir.Sub, a, f16ExpAdjust), f16ExpShift)
	sh := b.Bin(kir.MinU, b.Bin(kir.Sub, b.c(it, f16Subnormals), b.binC(kir.ShrU, a, 23)), b.c(it, 31))
	sub := b.Bin(kir.ShrU, b.binC(kir.Or, b.binC(kir.And, a, f32Mantissa), f32Implicit), sh)
	pay := b.binC(kir.ShrU, b.binC(kir.And, a, f32Mantissa), f16ExpShift)
	lost := b.Bin(kir.And, b.cmpC(kir.PredUGT, a, f32Inf), b.cmpC(kir.PredEQ, pay, 0))
	pay = b.Select(lost, b.c(it, 0x200), pay)
	r := b.Select(b.cmpC(kir.PredULT, a, f16MinNormal), sub, normal)
	r = b.Select(b.cmpC(kir.PredUGE, a, f32Inf), b.binC(kir.Or, pay, 0x7c00), r)
	return b.Bin(kir.Or, r, sign)
}

// roundToOdd32 rounds the f64 lanes x to f32, to odd: an inexact result
// whose last mantissa bit is even moves one unit toward x. Rounding that
// to a type of 8 or more fewer mantissa bits (f16, bf16) to nearest even
// gives x rounded to it directly, which kir's truncf from f64 is.
// Infinities, NaNs and zeros are kept (an overflow or underflow in f32 is
// one in f16 and bf16 too).
func (b em) roundToOdd32(x kir.Value) kir.Value {
	xt := b.K.Types[x]
	ft, it := laneType(xt, kir.F32), laneType(xt, kir.I32)
	y := b.Emit(kir.FPTrunc, ft, x)
	back := b.Emit(kir.FPExt, xt, y)
	u := b.bitsOf(y)
	a := b.binC(kir.And, u, f32Magnitude)
	inexact := b.EmitImm(kir.CmpF, laneType(xt, kir.I1), int64(kir.FPredONE), back, x)
	even := b.cmpC(kir.PredEQ, b.binC(kir.And, u, 1), 0)
	finite := b.Bin(kir.And, b.cmpC(kir.PredNE, a, 0), b.cmpC(kir.PredULT, a, f32Inf))
	adjust := b.Bin(kir.And, b.Bin(kir.And, inexact, even), finite)
	grow := b.EmitImm(kir.CmpF, laneType(xt, kir.I1), int64(kir.FPredOLT), b.Emit(kir.AbsF, xt, back), b.Emit(kir.AbsF, xt, x))
	step := b.Select(grow, b.c(it, 1), b.c(it, -1))
	u = b.Select(adjust, b.Bin(kir.Add, u, step), u)
	return b.floatOf(u)
}
