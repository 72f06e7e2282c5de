package spirv

import "github.com/gree-ml/gree/go/compiler/kir"

// Integer arithmetic with the interpreter's semantics: wrapping; division
// and remainder by zero give 0; signed division of the minimum by -1
// wraps; shift amounts are unsigned and an amount of at least the width
// gives 0 (shl, shrui) or the sign fill (shrsi). i1 lanes (booleans) are
// computed as 32-bit integers holding 0 or -1 and narrowed by their low
// bit, which gives the interpreter's results for every op.

// widen converts a boolean to a 32-bit integer 0 or -1.
func (e *emitter) widen(x uint32) uint32 {
	return e.val(e.u32(), opSelect, x, e.cU32(0xffffffff), e.cU32(0))
}

// narrow converts a 32-bit integer to a boolean by its low bit.
func (e *emitter) narrow(x uint32) uint32 {
	u32 := e.u32()
	return e.val(e.bool(), opINotEqual, e.val(u32, opBitwiseAnd, x, e.cU32(1)), e.cU32(0))
}

// intBinary applies an integer binary op to register values of s.
func (e *emitter) intBinary(k kir.Kind, s kir.Scalar, a, b uint32) uint32 {
	bt := e.bool()
	if s == kir.I1 {
		switch k {
		case kir.And, kir.Mul:
			return e.val(bt, opLogicalAnd, a, b)
		case kir.Or:
			return e.val(bt, opLogicalOr, a, b)
		case kir.Xor, kir.Add, kir.Sub:
			return e.val(bt, opLogicalNotEqual, a, b)
		}
		return e.narrow(e.intBinary(k, kir.I32, e.widen(a), e.widen(b)))
	}
	t := e.reg(s)
	n := s.Bits()
	zero, one := e.cInt(s, 0), e.cInt(s, 1)
	sel := func(c, x, y uint32) uint32 { return e.val(t, opSelect, c, x, y) }
	is := func(op, x, y uint32) uint32 { return e.val(bt, op, x, y) }
	bin := func(op, x, y uint32) uint32 { return e.val(t, op, x, y) }
	bZero := is(opIEqual, b, zero)
	// safe divisors: 1 where b is 0 (and, for signed ops, -1)
	safeU := func() uint32 { return sel(bZero, one, b) }
	bNeg1 := func() uint32 { return is(opIEqual, b, e.cInt(s, -1)) }
	safeS := func() uint32 { return sel(e.val(bt, opLogicalOr, bZero, bNeg1()), one, b) }
	divS := func() uint32 {
		q := bin(opSDiv, a, safeS())
		q = sel(bNeg1(), e.val(t, opSNegate, a), q)
		return sel(bZero, zero, q)
	}
	remS := func() uint32 { return bin(opSRem, a, safeS()) } // 0 for b = ±1, and b = 0 gives a % 1 = 0
	switch k {
	case kir.Add:
		return bin(opIAdd, a, b)
	case kir.Sub:
		return bin(opISub, a, b)
	case kir.Mul:
		return bin(opIMul, a, b)
	case kir.DivS:
		return divS()
	case kir.RemS:
		return remS()
	case kir.DivU:
		return sel(bZero, zero, bin(opUDiv, a, safeU()))
	case kir.RemU:
		return sel(bZero, zero, bin(opUMod, a, safeU()))
	case kir.FloorDivS, kir.CeilDivS:
		q, r := divS(), remS()
		inexact := is(opINotEqual, r, zero)
		neg := is(opSLessThan, bin(opBitwiseXor, a, b), zero) // signs differ
		if k == kir.FloorDivS {
			return sel(e.val(bt, opLogicalAnd, inexact, neg), bin(opISub, q, one), q)
		}
		pos := e.val(bt, opLogicalNot, neg)
		return sel(e.val(bt, opLogicalAnd, inexact, pos), bin(opIAdd, q, one), q)
	case kir.CeilDivU:
		q := bin(opUDiv, a, safeU())
		r := bin(opUMod, a, safeU())
		q = sel(is(opINotEqual, r, zero), bin(opIAdd, q, one), q)
		return sel(bZero, zero, q)
	case kir.MinS:
		return sel(is(opSLessThan, a, b), a, b)
	case kir.MaxS:
		return sel(is(opSGreaterThan, a, b), a, b)
	case kir.MinU:
		return sel(is(opULessThan, a, b), a, b)
	case kir.MaxU:
		return sel(is(opUGreaterThan, a, b), a, b)
	case kir.And:
		return bin(opBitwiseAnd, a, b)
	case kir.Or:
		return bin(opBitwiseOr, a, b)
	case kir.Xor:
		return bin(opBitwiseXor, a, b)
	case kir.Shl, kir.ShrU, kir.ShrS:
		big := is(opUGreaterThanEqual, b, e.cInt(s, int64(n)))
		if k == kir.ShrS {
			return bin(opShiftRightArithmetic, a, sel(big, e.cInt(s, int64(n-1)), b))
		}
		op := uint32(opShiftLeftLogical)
		if k == kir.ShrU {
			op = opShiftRightLogical
		}
		return sel(big, zero, bin(op, a, sel(big, zero, b)))
	}
	e.failf(13, "%s is not an integer op", k)
	return 0
}

// to32 zero-extends (or, for 64-bit, keeps) an integer register value to
// 32 bits for the bit-counting instructions, which Vulkan allows only on
// 32-bit integers.
func (e *emitter) to32(s kir.Scalar, x uint32) uint32 {
	if s.Bits() < 32 {
		return e.val(e.u32(), opUConvert, x)
	}
	return x
}

// halves splits a 64-bit integer into its low and high 32-bit words.
func (e *emitter) halves(x uint32) (lo, hi uint32) {
	u32 := e.u32()
	lo = e.val(u32, opUConvert, x)
	hi = e.val(u32, opUConvert, e.val(e.u64(), opShiftRightLogical, x, e.cU64(32)))
	return lo, hi
}

// ctlz32 counts the leading zeros of a 32-bit word (32 for 0).
func (e *emitter) ctlz32(x uint32) uint32 {
	u32 := e.u32()
	msb := e.ext(u32, glslFindUMsb, x) // -1 for 0
	return e.val(u32, opISub, e.cU32(31), msb)
}

// cttz32 counts the trailing zeros of a 32-bit word (32 for 0).
func (e *emitter) cttz32(x uint32) uint32 {
	u32 := e.u32()
	lsb := e.ext(u32, glslFindILsb, x)
	return e.val(u32, opSelect, e.val(e.bool(), opIEqual, x, e.cU32(0)), e.cU32(32), lsb)
}

// intUnary applies AbsI, CtLz, CtTz or CtPop to a register value of s.
func (e *emitter) intUnary(k kir.Kind, s kir.Scalar, a uint32) uint32 {
	bt := e.bool()
	if s == kir.I1 {
		switch k {
		case kir.CtLz, kir.CtTz:
			return e.val(bt, opLogicalNot, a)
		}
		return a // |x| and popcount of one bit
	}
	t, n, u32 := e.reg(s), s.Bits(), e.u32()
	back := func(x uint32) uint32 { // a 32-bit count to type s
		if n == 32 {
			return x
		}
		return e.val(t, opUConvert, x)
	}
	switch k {
	case kir.AbsI:
		neg := e.val(bt, opSLessThan, a, e.cInt(s, 0))
		return e.val(t, opSelect, neg, e.val(t, opSNegate, a), a)
	case kir.CtPop:
		if n == 64 {
			lo, hi := e.halves(a)
			return back(e.val(u32, opIAdd, e.val(u32, opBitCount, lo), e.val(u32, opBitCount, hi)))
		}
		return back(e.val(u32, opBitCount, e.to32(s, a)))
	case kir.CtLz:
		if n == 64 {
			lo, hi := e.halves(a)
			hz := e.val(bt, opIEqual, hi, e.cU32(0))
			c := e.val(u32, opSelect, hz, e.val(u32, opIAdd, e.cU32(32), e.ctlz32(lo)), e.ctlz32(hi))
			return back(c)
		}
		return back(e.val(u32, opISub, e.ctlz32(e.to32(s, a)), e.cU32(uint32(32-n))))
	case kir.CtTz:
		if n == 64 {
			lo, hi := e.halves(a)
			lz := e.val(bt, opIEqual, lo, e.cU32(0))
			c := e.val(u32, opSelect, lz, e.val(u32, opIAdd, e.cU32(32), e.cttz32(hi)), e.cttz32(lo))
			return back(c)
		}
		c := e.cttz32(e.to32(s, a))
		return back(e.val(u32, opSelect, e.val(bt, opUGreaterThan, c, e.cU32(uint32(n))), e.cU32(uint32(n)), c))
	}
	e.failf(13, "%s is not an integer unary op", k)
	return 0
}

// cmpInt evaluates an integer predicate on register values of s.
func (e *emitter) cmpInt(p kir.Pred, s kir.Scalar, a, b uint32) uint32 {
	bt := e.bool()
	if s == kir.I1 {
		switch p {
		case kir.PredEQ:
			return e.val(bt, opLogicalEqual, a, b)
		case kir.PredNE:
			return e.val(bt, opLogicalNotEqual, a, b)
		}
		a, b = e.widen(a), e.widen(b)
	}
	ops := [...]uint32{kir.PredEQ: opIEqual, kir.PredNE: opINotEqual, kir.PredSLT: opSLessThan,
		kir.PredSLE: opSLessThanEqual, kir.PredSGT: opSGreaterThan, kir.PredSGE: opSGreaterThanEqual,
		kir.PredULT: opULessThan, kir.PredULE: opULessThanEqual, kir.PredUGT: opUGreaterThan,
		kir.PredUGE: opUGreaterThanEqual}
	return e.val(bt, ops[p], a, b)
}
