package vmvx

import "github.com/gree-ml/gree/go/schemas/vmvx"

// Conversions between integer and f32/f64 storage types (f16 and bf16 go
// through f32 scratch, see half.go). A conversion reads each source lane as
// an int64 or float64 and applies a lane function producing the
// destination's storage type.

func convInt[S ints, D any](f func(int64) D) handler {
	return func(t *thread, in *inst) error {
		d, a := vec[D](t, in.d, in.n), vec[S](t, in.a, in.n)
		a = a[:len(d)]
		for i := range d {
			d[i] = f(int64(a[i]))
		}
		return nil
	}
}

func convFloat[S floats, D any](f func(float64) D) handler {
	return func(t *thread, in *inst) error {
		d, a := vec[D](t, in.d, in.n), vec[S](t, in.a, in.n)
		a = a[:len(d)]
		for i := range d {
			d[i] = f(float64(a[i]))
		}
		return nil
	}
}

func fromInt[D any](src vmvx.Elem, f func(int64) D) handler {
	switch src {
	case vmvx.I1, vmvx.I8:
		return convInt[int8](f)
	case vmvx.I16:
		return convInt[int16](f)
	case vmvx.I32:
		return convInt[int32](f)
	case vmvx.I64:
		return convInt[int64](f)
	}
	return nil
}

func fromFloat[D any](src vmvx.Elem, f func(float64) D) handler {
	switch src {
	case vmvx.F32:
		return convFloat[float32](f)
	case vmvx.F64:
		return convFloat[float64](f)
	}
	return nil
}

// castTo returns the handler of conversion op from element type from to
// storage type D (element type to), neither f16 nor bf16.
func castTo[D nums](op vmvx.Opcode, from, to vmvx.Elem) handler {
	fromMask := mask(from)
	toBits := to.Bits()
	switch op {
	case vmvx.ExtS, vmvx.TruncI, vmvx.SIToFP:
		return fromInt(from, func(x int64) D { return D(x) })
	case vmvx.ExtU:
		return fromInt(from, func(x int64) D { return D(uint64(x) & fromMask) })
	case vmvx.UIToFP:
		return fromInt(from, func(x int64) D { return D(uint64(x) & fromMask) })
	case vmvx.FPToSI:
		return fromFloat(from, func(x float64) D { return D(fpToInt(x, toBits, true)) })
	case vmvx.FPToUI:
		return fromFloat(from, func(x float64) D { return D(fpToInt(x, toBits, false)) })
	case vmvx.FPExt, vmvx.FPTrunc:
		return fromFloat(from, func(x float64) D { return D(x) })
	}
	return nil
}

// castHandler returns the handler of a conversion between non-half types.
func castHandler(op vmvx.Opcode, from, to vmvx.Elem) handler {
	var h handler
	switch to {
	case vmvx.I1, vmvx.I8:
		h = castTo[int8](op, from, to)
	case vmvx.I16:
		h = castTo[int16](op, from, to)
	case vmvx.I32:
		h = castTo[int32](op, from, to)
	case vmvx.I64:
		h = castTo[int64](op, from, to)
	case vmvx.F32:
		h = castTo[float32](op, from, to)
	case vmvx.F64:
		h = castTo[float64](op, from, to)
	}
	if h != nil && to == vmvx.I1 && op == vmvx.TruncI {
		h = canonI1(h)
	}
	return h
}

// widenH converts f16 or bf16 lanes to f32 (FPExt to f32).
func widenH(bf bool) handler {
	return func(t *thread, in *inst) error {
		widenHalf(vec[uint16](t, in.a, in.n), vec[float32](t, in.d, in.n), bf)
		return nil
	}
}

// mask returns the bits of element type e as a mask.
func mask(e vmvx.Elem) uint64 {
	if e.Bits() >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(e.Bits()) - 1
}
