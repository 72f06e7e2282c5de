package kir

import (
	"math"
	"math/bits"
)

// intBin applies an integer binary op to two n-bit lanes (sign-extended).
// Division and remainder by zero give 0; shifts by n or more give 0 (shl,
// shru) or the sign fill (shrs); signed overflow wraps.
func intBin(k Kind, n int, a, b uint64) uint64 {
	sa, sb := int64(a), int64(b)
	ua, ub := zext(a, n), zext(b, n)
	var r uint64
	switch k {
	case Add:
		r = a + b
	case Sub:
		r = a - b
	case Mul:
		r = a * b
	case DivS:
		if sb != 0 {
			r = uint64(sa / sb)
		}
	case DivU:
		if ub != 0 {
			r = ua / ub
		}
	case RemS:
		if sb != 0 {
			r = uint64(sa % sb)
		}
	case RemU:
		if ub != 0 {
			r = ua % ub
		}
	case FloorDivS:
		if sb != 0 {
			q := sa / sb
			if sa%sb != 0 && (sa < 0) != (sb < 0) {
				q--
			}
			r = uint64(q)
		}
	case CeilDivS:
		if sb != 0 {
			q := sa / sb
			if sa%sb != 0 && (sa < 0) == (sb < 0) {
				q++
			}
			r = uint64(q)
		}
	case CeilDivU:
		if ub != 0 {
			r = ua / ub
			if ua%ub != 0 {
				r++
			}
		}
	case MinS:
		r = uint64(min(sa, sb))
	case MaxS:
		r = uint64(max(sa, sb))
	case MinU:
		r = min(ua, ub)
	case MaxU:
		r = max(ua, ub)
	case And:
		r = a & b
	case Or:
		r = a | b
	case Xor:
		r = a ^ b
	case Shl:
		if ub < uint64(n) {
			r = a << ub
		}
	case ShrS:
		if ub < uint64(n) {
			r = uint64(sa >> ub)
		} else {
			r = uint64(sa >> 63)
		}
	case ShrU:
		if ub < uint64(n) {
			r = ua >> ub
		}
	}
	return sext(r, n)
}

// floatBin applies a float binary op; the result is rounded to s.
func floatBin(k Kind, s Scalar, a, b uint64) uint64 {
	x, y := toF(s, a), toF(s, b)
	var r float64
	switch k {
	case Add:
		r = x + y
	case Sub:
		r = x - y
	case Mul:
		r = x * y
	case DivF:
		r = x / y
	case RemF:
		r = math.Mod(x, y)
	case MinF:
		r = minMaxF(x, y, false, false)
	case MaxF:
		r = minMaxF(x, y, true, false)
	case MinNumF:
		r = minMaxF(x, y, false, true)
	case MaxNumF:
		r = minMaxF(x, y, true, true)
	case PowF:
		r = math.Pow(x, y)
	case Atan2:
		r = math.Atan2(x, y)
	case CopySign:
		r = math.Copysign(x, y)
	}
	return arith(s, r)
}

// intUnary applies an integer unary op to an n-bit lane.
func intUnary(k Kind, n int, a uint64) uint64 {
	switch k {
	case AbsI:
		if int64(a) < 0 {
			return sext(-a, n)
		}
		return a
	case CtLz:
		return sext(ctlz(a, n), n)
	case CtTz:
		return sext(cttz(a, n), n)
	case CtPop:
		return sext(uint64(bits.OnesCount64(zext(a, n))), n)
	}
	return 0
}

var floatUnaryFns = map[Kind]func(float64) float64{
	Sqrt: math.Sqrt, Cbrt: math.Cbrt, Exp: math.Exp, Exp2: math.Exp2, Expm1: math.Expm1,
	Log: math.Log, Log2: math.Log2, Log10: math.Log10, Log1p: math.Log1p,
	Sin: math.Sin, Cos: math.Cos, Tan: math.Tan, Sinh: math.Sinh, Cosh: math.Cosh,
	Tanh: math.Tanh, Asin: math.Asin, Acos: math.Acos, Atan: math.Atan,
	Asinh: math.Asinh, Acosh: math.Acosh, Atanh: math.Atanh, Erf: math.Erf, Erfc: math.Erfc,
	Floor: math.Floor, Ceil: math.Ceil, Round: math.Round, RoundEven: math.RoundToEven,
	Trunc: math.Trunc, Rsqrt: func(x float64) float64 { return 1 / math.Sqrt(x) },
}

// floatUnary applies a float unary op; the result is rounded to s.
// Transcendental functions evaluate Go's math package in float64.
func floatUnary(k Kind, s Scalar, a uint64) uint64 {
	switch k {
	case NegF:
		return a ^ 1<<(s.Bits()-1)
	case AbsF:
		return a &^ (1 << (s.Bits() - 1))
	}
	x := toF(s, a)
	if s == F16 || s == BF16 {
		// Promoted to f32: the f32 function of the (exact) f32 operand.
		return arith(s, float64(float32(floatUnaryFns[k](x))))
	}
	return arith(s, floatUnaryFns[k](x))
}

// cmpInt evaluates an integer predicate on n-bit lanes.
func cmpInt(p Pred, n int, a, b uint64) bool {
	sa, sb := int64(a), int64(b)
	ua, ub := zext(a, n), zext(b, n)
	switch p {
	case PredEQ:
		return a == b
	case PredNE:
		return a != b
	case PredSLT:
		return sa < sb
	case PredSLE:
		return sa <= sb
	case PredSGT:
		return sa > sb
	case PredSGE:
		return sa >= sb
	case PredULT:
		return ua < ub
	case PredULE:
		return ua <= ub
	case PredUGT:
		return ua > ub
	case PredUGE:
		return ua >= ub
	}
	return false
}

// cmpFloat evaluates an arith.cmpf predicate.
func cmpFloat(p Pred, x, y float64) bool {
	uno := math.IsNaN(x) || math.IsNaN(y)
	switch p {
	case FPredFalse:
		return false
	case FPredOEQ:
		return !uno && x == y
	case FPredOGT:
		return !uno && x > y
	case FPredOGE:
		return !uno && x >= y
	case FPredOLT:
		return !uno && x < y
	case FPredOLE:
		return !uno && x <= y
	case FPredONE:
		return !uno && x != y
	case FPredORD:
		return !uno
	case FPredUEQ:
		return uno || x == y
	case FPredUGT:
		return uno || x > y
	case FPredUGE:
		return uno || x >= y
	case FPredULT:
		return uno || x < y
	case FPredULE:
		return uno || x <= y
	case FPredUNE:
		return uno || x != y
	case FPredUNO:
		return uno
	}
	return true
}

// cast converts lane a of type from to type to.
func cast(k Kind, from, to Scalar, a uint64) uint64 {
	fn, tn := from.Bits(), to.Bits()
	switch k {
	case ExtS:
		return a
	case ExtU:
		return sext(zext(a, fn), tn)
	case TruncI:
		return sext(a, tn)
	case SIToFP:
		return intToFP(to, a, true)
	case UIToFP:
		return intToFP(to, zext(a, fn), false)
	case FPToSI:
		return fpToInt(toF(from, a), tn, true)
	case FPToUI:
		return fpToInt(toF(from, a), tn, false)
	case FPExt, FPTrunc:
		return fromF(to, toF(from, a))
	case Bitcast:
		if to.IsInt() {
			return sext(a, tn)
		}
		return zext(a, tn)
	}
	return 0
}

func bit(b bool) uint64 {
	if b {
		return ^uint64(0) // i1 true, sign-extended
	}
	return 0
}

// reduceLane combines acc and x with reduction kind r over type s.
func reduceLane(r ReduceKind, s Scalar, acc, x uint64) uint64 {
	var k Kind
	switch r {
	case ReduceAdd:
		k = Add
	case ReduceMul:
		k = Mul
	case ReduceMinS:
		k = MinS
	case ReduceMaxS:
		k = MaxS
	case ReduceMinU:
		k = MinU
	case ReduceMaxU:
		k = MaxU
	case ReduceMinF:
		k = MinF
	case ReduceMaxF:
		k = MaxF
	case ReduceAnd:
		k = And
	case ReduceOr:
		k = Or
	case ReduceXor:
		k = Xor
	}
	if s.IsInt() {
		return intBin(k, s.Bits(), acc, x)
	}
	return floatBin(k, s, acc, x)
}
