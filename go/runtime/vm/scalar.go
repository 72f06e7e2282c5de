package vm

import (
	"github.com/gree-ml/gree/go/internal/half"

	"math"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

func widthOf(t uint8) uint {
	switch t {
	case module.TypeI1:
		return 1
	case module.TypeI8:
		return 8
	case module.TypeI16, module.TypeF16, module.TypeBF16:
		return 16
	case module.TypeI32, module.TypeF32:
		return 32
	}
	return 64
}

// wrap normalizes x to integer type t: i1 as 0/1, others sign-extended.
func wrap(t uint8, x int64) int64 {
	w := widthOf(t)
	if t == module.TypeI1 {
		return x & 1
	}
	if w == 64 {
		return x
	}
	s := 64 - w
	return x << s >> s
}

// unsigned returns x's bits as an unsigned number of t's width.
func unsigned(t uint8, x int64) uint64 {
	w := widthOf(t)
	if w == 64 {
		return uint64(x)
	}
	return uint64(x) & (1<<w - 1)
}

func intValue(t uint8, x int64) Value {
	x = wrap(t, x)
	if t == module.TypeI64 {
		return I64(x)
	}
	return Value{Kind: KindI32, I: x}
}

// roundFloat rounds x to float type t.
func roundFloat(t uint8, x float64) float64 {
	switch t {
	case module.TypeF32:
		return float64(float32(x))
	case module.TypeF16:
		return float64(F16ToF32(F32ToF16(float32(x))))
	case module.TypeBF16:
		return float64(BF16ToF32(F32ToBF16(float32(x))))
	}
	return x
}

func floatValue(t uint8, x float64) Value {
	x = roundFloat(t, x)
	if t == module.TypeF64 {
		return F64(x)
	}
	return Value{Kind: KindF32, F: x}
}

func arith(op module.ArithOp, t uint8, regs []Value, src []int32) (Value, error) {
	a := regs[src[0]]
	if op >= module.ArithAddF {
		x := a.F
		var y float64
		if len(src) > 1 {
			y = regs[src[1]].F
		}
		var r float64
		switch op {
		case module.ArithAddF:
			r = x + y
		case module.ArithSubF:
			r = x - y
		case module.ArithMulF:
			r = x * y
		case module.ArithDivF:
			r = x / y
		case module.ArithRemF:
			r = math.Mod(x, y)
		case module.ArithMinF:
			r = minimumf(x, y)
		case module.ArithMaxF:
			r = -minimumf(-x, -y)
		case module.ArithNegF:
			r = -x
		}
		return floatValue(t, r), nil
	}
	x, y := a.I, regs[src[1]].I
	ux, uy := unsigned(t, x), unsigned(t, y)
	w := widthOf(t)
	var r int64
	switch op {
	case module.ArithAdd:
		r = x + y
	case module.ArithSub:
		r = x - y
	case module.ArithMul:
		r = x * y
	case module.ArithDivS, module.ArithRemS, module.ArithFloorDivS, module.ArithCeilDivS:
		if y == 0 {
			return Value{}, status.Errorf(status.InvalidArgument, "integer division by zero")
		}
		if y == -1 {
			// Avoid the overflow trap of MinInt / -1; the result wraps.
			if op == module.ArithRemS {
				r = 0
			} else {
				r = -x
			}
			break
		}
		switch op {
		case module.ArithDivS:
			r = x / y
		case module.ArithRemS:
			r = x % y
		case module.ArithFloorDivS:
			r = x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				r--
			}
		case module.ArithCeilDivS:
			r = x / y
			if (x%y != 0) && ((x < 0) == (y < 0)) {
				r++
			}
		}
	case module.ArithDivU, module.ArithRemU, module.ArithCeilDivU:
		if uy == 0 {
			return Value{}, status.Errorf(status.InvalidArgument, "integer division by zero")
		}
		switch op {
		case module.ArithDivU:
			r = int64(ux / uy)
		case module.ArithRemU:
			r = int64(ux % uy)
		default:
			r = int64(ux / uy)
			if ux%uy != 0 {
				r++
			}
		}
	case module.ArithMinS:
		r = min(x, y)
	case module.ArithMaxS:
		r = max(x, y)
	case module.ArithMinU:
		r = int64(min(ux, uy))
	case module.ArithMaxU:
		r = int64(max(ux, uy))
	case module.ArithAnd:
		r = x & y
	case module.ArithOr:
		r = x | y
	case module.ArithXor:
		r = x ^ y
	case module.ArithShl:
		if uy >= uint64(w) {
			r = 0
		} else {
			r = x << uy
		}
	case module.ArithShrS:
		if uy >= uint64(w) {
			uy = uint64(w) - 1
		}
		r = x >> uy
	case module.ArithShrU:
		if uy >= uint64(w) {
			r = 0
		} else {
			r = int64(ux >> uy)
		}
	}
	return intValue(t, r), nil
}

// minimumf is arith.minimumf: NaN-propagating, -0 below +0.
func minimumf(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == y && x == 0:
		if math.Signbit(x) {
			return x
		}
		return y
	case x < y:
		return x
	}
	return y
}

// compare evaluates an arith.cmpi / arith.cmpf predicate.
func compare(pred, t uint8, a, b Value) Value {
	var r bool
	if t >= module.TypeF16 {
		x, y := a.F, b.F
		uno := math.IsNaN(x) || math.IsNaN(y)
		switch pred {
		case 0:
		case 1:
			r = !uno && x == y
		case 2:
			r = !uno && x > y
		case 3:
			r = !uno && x >= y
		case 4:
			r = !uno && x < y
		case 5:
			r = !uno && x <= y
		case 6:
			r = !uno && x != y
		case 7:
			r = !uno
		case 8:
			r = uno || x == y
		case 9:
			r = uno || x > y
		case 10:
			r = uno || x >= y
		case 11:
			r = uno || x < y
		case 12:
			r = uno || x <= y
		case 13:
			r = uno || x != y
		case 14:
			r = uno
		case 15:
			r = true
		}
	} else {
		x, y := wrap(t, a.I), wrap(t, b.I)
		ux, uy := unsigned(t, a.I), unsigned(t, b.I)
		switch pred {
		case 0:
			r = x == y
		case 1:
			r = x != y
		case 2:
			r = x < y
		case 3:
			r = x <= y
		case 4:
			r = x > y
		case 5:
			r = x >= y
		case 6:
			r = ux < uy
		case 7:
			r = ux <= uy
		case 8:
			r = ux > uy
		case 9:
			r = ux >= uy
		}
	}
	if r {
		return I32(1)
	}
	return I32(0)
}

// cast converts v from type from to type to.
func cast(op module.CastOp, from, to uint8, v Value) Value {
	switch op {
	case module.CastExtS, module.CastTrunc:
		return intValue(to, wrap(from, v.I))
	case module.CastExtU:
		return intValue(to, int64(unsigned(from, v.I)))
	case module.CastSIToFP:
		return floatValue(to, float64(wrap(from, v.I)))
	case module.CastUIToFP:
		return floatValue(to, float64(unsigned(from, v.I)))
	case module.CastFPToSI, module.CastFPToUI:
		f := math.Trunc(v.F)
		if math.IsNaN(f) {
			f = 0
		}
		f = math.Max(math.Min(f, math.MaxInt64), math.MinInt64)
		if op == module.CastFPToUI && f >= 1<<63 {
			return intValue(to, int64(uint64(f)))
		}
		return intValue(to, int64(f))
	case module.CastFPExt, module.CastFPTrunc:
		return floatValue(to, v.F)
	case module.CastBitcast:
		if from >= module.TypeF16 {
			var b uint64
			switch from {
			case module.TypeF64:
				b = math.Float64bits(v.F)
			case module.TypeF32:
				b = uint64(math.Float32bits(float32(v.F)))
			case module.TypeF16:
				b = uint64(F32ToF16(float32(v.F)))
			case module.TypeBF16:
				b = uint64(F32ToBF16(float32(v.F)))
			}
			return intValue(to, int64(b))
		}
		u := unsigned(from, v.I)
		switch to {
		case module.TypeF64:
			return F64(math.Float64frombits(u))
		case module.TypeF32:
			return F32(math.Float32frombits(uint32(u)))
		case module.TypeF16:
			return Value{Kind: KindF32, F: float64(F16ToF32(uint16(u)))}
		case module.TypeBF16:
			return Value{Kind: KindF32, F: float64(BF16ToF32(uint16(u)))}
		}
		return intValue(to, int64(u))
	}
	return v
}

// F32ToBF16 rounds to bfloat16, nearest even.
func F32ToBF16(f float32) uint16 { return half.BF16(float64(f)) }

// BF16ToF32 widens a bfloat16.
func BF16ToF32(h uint16) float32 { return float32(half.BF16ToFloat64(h)) }

// F32ToF16 converts to IEEE half precision, rounding to nearest even.
func F32ToF16(f float32) uint16 { return half.F16(float64(f)) }

// F16ToF32 widens an IEEE half.
func F16ToF32(h uint16) float32 { return float32(half.F16ToFloat64(h)) }
