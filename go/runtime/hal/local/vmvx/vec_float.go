package vmvx

import (
	"github.com/gree-ml/gree/go/internal/vecf32"

	"math"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// Float kernels for f32 and f64. Basic arithmetic is Go's, correctly
// rounded; transcendental functions evaluate Go's math package in float64
// and round to the type, as kir.Run does. f16 and bf16 go through these on
// f32 scratch (see half.go).

// floatBinK returns the kernel of a float binary opcode.
func floatBinK[T floats](op vmvx.Opcode) binKernel[T] {
	if k := f32BinK[T](op); k != nil {
		return k
	}
	switch op {
	case vmvx.Add:
		return addK[T]
	case vmvx.Sub:
		return subK[T]
	case vmvx.Mul:
		return mulK[T]
	case vmvx.DivF:
		return func(d, a, b []T, _ *inst) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] / b[i]
			}
		}
	}
	var f func(x, y float64) float64
	switch op {
	case vmvx.RemF:
		f = math.Mod
	case vmvx.MinF:
		f = func(x, y float64) float64 { return minMax(x, y, false, false) }
	case vmvx.MaxF:
		f = func(x, y float64) float64 { return minMax(x, y, true, false) }
	case vmvx.MinNumF:
		f = func(x, y float64) float64 { return minMax(x, y, false, true) }
	case vmvx.MaxNumF:
		f = func(x, y float64) float64 { return minMax(x, y, true, true) }
	case vmvx.PowF:
		f = math.Pow
	case vmvx.Atan2:
		f = math.Atan2
	case vmvx.CopySign:
		f = math.Copysign
	default:
		return nil
	}
	return func(d, a, b []T, _ *inst) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			d[i] = T(f(float64(a[i]), float64(b[i])))
		}
	}
}

var mathFns = map[vmvx.Opcode]func(float64) float64{
	vmvx.Cbrt: math.Cbrt, vmvx.Exp: math.Exp, vmvx.Exp2: math.Exp2, vmvx.Expm1: math.Expm1,
	vmvx.Log: math.Log, vmvx.Log2: math.Log2, vmvx.Log10: math.Log10, vmvx.Log1p: math.Log1p,
	vmvx.Sin: math.Sin, vmvx.Cos: math.Cos, vmvx.Tan: math.Tan, vmvx.Sinh: math.Sinh,
	vmvx.Cosh: math.Cosh, vmvx.Tanh: math.Tanh, vmvx.Asin: math.Asin, vmvx.Acos: math.Acos,
	vmvx.Atan: math.Atan, vmvx.Asinh: math.Asinh, vmvx.Acosh: math.Acosh, vmvx.Atanh: math.Atanh,
	vmvx.Erf: math.Erf, vmvx.Erfc: math.Erfc, vmvx.Round: math.Round,
	vmvx.RoundEven: math.RoundToEven,
	vmvx.Rsqrt:     func(x float64) float64 { return 1 / math.Sqrt(x) },
}

// floatUnK returns the kernel of a float unary opcode.
func floatUnK[T floats](op vmvx.Opcode) unKernel[T] {
	switch op {
	case vmvx.NegF:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = -a[i]
			}
		}
	case vmvx.AbsF:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = T(math.Abs(float64(a[i])))
			}
		}
	case vmvx.Sqrt:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = T(math.Sqrt(float64(a[i])))
			}
		}
	case vmvx.Floor:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = T(math.Floor(float64(a[i])))
			}
		}
	case vmvx.Ceil:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = T(math.Ceil(float64(a[i])))
			}
		}
	case vmvx.Trunc:
		return func(d, a []T, _ *inst) {
			for i := range d {
				d[i] = T(math.Trunc(float64(a[i])))
			}
		}
	}
	f := mathFns[op]
	if f == nil {
		return nil
	}
	return func(d, a []T, _ *inst) {
		for i := range d {
			d[i] = T(f(float64(a[i])))
		}
	}
}

// fmaF computes d = a*b+c rounded once.
func fmaF[T floats](t *thread, in *inst) error {
	d, a, b, c := vec[T](t, in.d, in.n), vec[T](t, in.a, in.n), vec[T](t, in.b, in.n), vec[T](t, in.c, in.n)
	switch dd := any(d).(type) {
	case []float32:
		aa, bb, cc := any(a).([]float32), any(b).([]float32), any(c).([]float32)
		for i := range dd {
			dd[i] = fma32(aa[i], bb[i], cc[i])
		}
	case []float64:
		aa, bb, cc := any(a).([]float64), any(b).([]float64), any(c).([]float64)
		for i := range dd {
			dd[i] = math.FMA(aa[i], bb[i], cc[i])
		}
	}
	return nil
}

// classF evaluates isnan (imm 0), isinf (1) or isfinite (2) into i1 lanes.
func classF[T floats](t *thread, in *inst) error {
	d, a := vec[int8](t, in.d, in.n), vec[T](t, in.a, in.n)
	for i := range d {
		x := float64(a[i])
		switch in.imm {
		case 0:
			d[i] = i1(x != x)
		case 1:
			d[i] = i1(math.IsInf(x, 0))
		default:
			d[i] = i1(!math.IsNaN(x) && !math.IsInf(x, 0))
		}
	}
	return nil
}

// cmpFloat compares float lanes into i1 lanes with an arith.cmpf predicate.
func cmpFloat[T floats](t *thread, in *inst) error {
	d := vec[int8](t, in.d, in.n)
	a, b := vec[T](t, in.a, in.n), vec[T](t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	switch in.pred {
	case 0: // false
		clear(d)
	case 1:
		for i := range d {
			d[i] = i1(a[i] == b[i])
		}
	case 2:
		for i := range d {
			d[i] = i1(a[i] > b[i])
		}
	case 3:
		for i := range d {
			d[i] = i1(a[i] >= b[i])
		}
	case 4:
		for i := range d {
			d[i] = i1(a[i] < b[i])
		}
	case 5:
		for i := range d {
			d[i] = i1(a[i] <= b[i])
		}
	case 6:
		for i := range d {
			d[i] = i1(a[i] < b[i] || a[i] > b[i])
		}
	case 7:
		for i := range d {
			d[i] = i1(a[i] == a[i] && b[i] == b[i])
		}
	case 8:
		for i := range d {
			d[i] = i1(!(a[i] < b[i] || a[i] > b[i]))
		}
	case 9:
		for i := range d {
			d[i] = i1(!(a[i] <= b[i]))
		}
	case 10:
		for i := range d {
			d[i] = i1(!(a[i] < b[i]))
		}
	case 11:
		for i := range d {
			d[i] = i1(!(a[i] >= b[i]))
		}
	case 12:
		for i := range d {
			d[i] = i1(!(a[i] > b[i]))
		}
	case 13:
		for i := range d {
			d[i] = i1(a[i] != b[i])
		}
	case 14:
		for i := range d {
			d[i] = i1(a[i] != a[i] || b[i] != b[i])
		}
	default: // true
		for i := range d {
			d[i] = -1
		}
	}
	return nil
}

// reduceFloat combines the lanes of a into scalar d, lane 0 first, rounding
// every step.
func reduceFloat[T floats](t *thread, in *inst) error {
	a := vec[T](t, in.a, in.na)
	acc := a[0]
	switch in.imm {
	case vmvx.ReduceAdd:
		for _, x := range a[1:] {
			acc += x
		}
	case vmvx.ReduceMul:
		for _, x := range a[1:] {
			acc *= x
		}
	case vmvx.ReduceMinF, vmvx.ReduceMaxF:
		isMax := in.imm == vmvx.ReduceMaxF
		for _, x := range a[1:] {
			acc = T(minMax(float64(acc), float64(x), isMax, false))
		}
	}
	*ptr[T](t, in.d) = acc
	return nil
}

// f32BinK returns the SIMD kernel of an f32 opcode, or nil.
func f32BinK[T floats](op vmvx.Opcode) binKernel[T] {
	var zero T
	if _, ok := any(zero).(float32); !ok {
		return nil
	}
	vop, ok := map[vmvx.Opcode]vecf32.Op{vmvx.Add: vecf32.Add, vmvx.Sub: vecf32.Sub, vmvx.Mul: vecf32.Mul,
		vmvx.DivF: vecf32.Div, vmvx.MaxF: vecf32.Max, vmvx.MinF: vecf32.Min}[op]
	if !ok {
		return nil
	}
	return func(d, a, b []T, _ *inst) {
		vecf32.Binary(vop, any(d).([]float32), any(a).([]float32), any(b).([]float32))
	}
}
