package vecf32

import "math"

// Op is an element-wise binary operation.
type Op int

// Operations.
const (
	Add Op = iota
	Sub
	Mul
	Div
	Max // arith.maximumf: NaN if either is NaN, +0 above -0
	Min // arith.minimumf
)

// Binary computes d[i] = a[i] op b[i] for i < len(d); a and b must be at
// least as long as d.
func Binary(op Op, d, a, b []float32) {
	n := len(d)
	if n == 0 {
		return
	}
	a, b = a[:n], b[:n]
	done := binaryAsm(op, d, a, b)
	generic(op, d[done:], a[done:], b[done:])
}

func generic(op Op, d, a, b []float32) {
	switch op {
	case Add:
		for i := range d {
			d[i] = a[i] + b[i]
		}
	case Sub:
		for i := range d {
			d[i] = a[i] - b[i]
		}
	case Mul:
		for i := range d {
			d[i] = a[i] * b[i]
		}
	case Div:
		for i := range d {
			d[i] = a[i] / b[i]
		}
	case Max, Min:
		for i := range d {
			d[i] = MinMax(a[i], b[i], op == Max)
		}
	}
}

// MinMax is arith.maximumf (isMax) or arith.minimumf on one pair.
func MinMax(x, y float32, isMax bool) float32 {
	switch {
	case x != x || y != y:
		return float32(math.NaN())
	case x == y:
		// Equal values differ only for ±0: max prefers +0, min -0.
		if isMax == math.Signbit(float64(x)) {
			return y
		}
		return x
	case (x > y) == isMax:
		return x
	}
	return y
}
