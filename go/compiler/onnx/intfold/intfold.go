package intfold

import "math"

// Unary applies ONNX operator op to a: Neg, Abs and Not; every other op
// (Identity, casts between integers) leaves a as it is.
func Unary(op string, a int64) int64 {
	switch op {
	case "Neg":
		return -a
	case "Abs":
		if a < 0 {
			return -a
		}
	case "Not":
		return boolInt(a == 0)
	}
	return a
}

// Binary applies ONNX operator op to a and b. fmod is Mod's attribute:
// without it the remainder takes the divisor's sign, as numpy's. It
// reports false for an op it does not evaluate and for a division or
// remainder by zero.
func Binary(op string, a, b int64, fmod bool) (int64, bool) {
	switch op {
	case "Add":
		return a + b, true
	case "Sub":
		return a - b, true
	case "Mul":
		return a * b, true
	case "Div":
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case "Mod":
		if b == 0 {
			return 0, false
		}
		r := a % b
		if !fmod && r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, true
	case "Pow":
		return int64(math.Pow(float64(a), float64(b))), true
	case "Max":
		return max(a, b), true
	case "Min":
		return min(a, b), true
	case "Equal":
		return boolInt(a == b), true
	case "Less":
		return boolInt(a < b), true
	case "Greater":
		return boolInt(a > b), true
	case "LessOrEqual":
		return boolInt(a <= b), true
	case "GreaterOrEqual":
		return boolInt(a >= b), true
	case "And":
		return boolInt(a != 0 && b != 0), true
	case "Or":
		return boolInt(a != 0 || b != 0), true
	case "Xor":
		return boolInt((a != 0) != (b != 0)), true
	}
	return 0, false
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
