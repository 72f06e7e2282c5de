package vmvx

import (
	"github.com/gree-ml/gree/go/internal/vecf32"

	"unsafe"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// Hand-specialized handlers for the most frequent vector ops. The generic
// handlers reach registers through a shape dictionary the compiler does not
// inline through; these cost a few nanoseconds less per instruction, which
// matters for short vectors.

func f32v(t *thread, off uint32, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Add(t.p, off)), n)
}

func f64v(t *thread, off uint32, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Add(t.p, off)), n)
}

func i32v(t *thread, off uint32, n int) []int32 {
	return unsafe.Slice((*int32)(unsafe.Add(t.p, off)), n)
}

func i64v(t *thread, off uint32, n int) []int64 {
	return unsafe.Slice((*int64)(unsafe.Add(t.p, off)), n)
}

func addF32(t *thread, in *inst) error {
	d, a, b := f32v(t, in.d, in.n), f32v(t, in.a, in.n), f32v(t, in.b, in.n)
	vecf32.Binary(vecf32.Add, d, a, b)
	return nil
}

func subF32(t *thread, in *inst) error {
	d, a, b := f32v(t, in.d, in.n), f32v(t, in.a, in.n), f32v(t, in.b, in.n)
	vecf32.Binary(vecf32.Sub, d, a, b)
	return nil
}

func mulF32(t *thread, in *inst) error {
	d, a, b := f32v(t, in.d, in.n), f32v(t, in.a, in.n), f32v(t, in.b, in.n)
	vecf32.Binary(vecf32.Mul, d, a, b)
	return nil
}

func divF32(t *thread, in *inst) error {
	d, a, b := f32v(t, in.d, in.n), f32v(t, in.a, in.n), f32v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] / b[i]
		d[i+1] = a[i+1] / b[i+1]
		d[i+2] = a[i+2] / b[i+2]
		d[i+3] = a[i+3] / b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] / b[i]
	}
	return nil
}

func addF64(t *thread, in *inst) error {
	d, a, b := f64v(t, in.d, in.n), f64v(t, in.a, in.n), f64v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] + b[i]
		d[i+1] = a[i+1] + b[i+1]
		d[i+2] = a[i+2] + b[i+2]
		d[i+3] = a[i+3] + b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] + b[i]
	}
	return nil
}

func mulF64(t *thread, in *inst) error {
	d, a, b := f64v(t, in.d, in.n), f64v(t, in.a, in.n), f64v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] * b[i]
		d[i+1] = a[i+1] * b[i+1]
		d[i+2] = a[i+2] * b[i+2]
		d[i+3] = a[i+3] * b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] * b[i]
	}
	return nil
}

func addI32(t *thread, in *inst) error {
	d, a, b := i32v(t, in.d, in.n), i32v(t, in.a, in.n), i32v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] + b[i]
		d[i+1] = a[i+1] + b[i+1]
		d[i+2] = a[i+2] + b[i+2]
		d[i+3] = a[i+3] + b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] + b[i]
	}
	return nil
}

func mulI32(t *thread, in *inst) error {
	d, a, b := i32v(t, in.d, in.n), i32v(t, in.a, in.n), i32v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] * b[i]
		d[i+1] = a[i+1] * b[i+1]
		d[i+2] = a[i+2] * b[i+2]
		d[i+3] = a[i+3] * b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] * b[i]
	}
	return nil
}

func addI64(t *thread, in *inst) error {
	d, a, b := i64v(t, in.d, in.n), i64v(t, in.a, in.n), i64v(t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d[i] = a[i] + b[i]
		d[i+1] = a[i+1] + b[i+1]
		d[i+2] = a[i+2] + b[i+2]
		d[i+3] = a[i+3] + b[i+3]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] + b[i]
	}
	return nil
}

type opElem struct {
	op vmvx.Opcode
	e  vmvx.Elem
}

// fastBinary returns a specialized handler for op on e, or nil.
func fastBinary(op vmvx.Opcode, e vmvx.Elem) handler { return fastBinaries[opElem{op, e}] }

var fastBinaries = map[opElem]handler{
	{vmvx.Add, vmvx.F32}: addF32, {vmvx.Sub, vmvx.F32}: subF32, {vmvx.Mul, vmvx.F32}: mulF32,
	{vmvx.DivF, vmvx.F32}: divF32, {vmvx.Add, vmvx.F64}: addF64, {vmvx.Mul, vmvx.F64}: mulF64,
	{vmvx.Add, vmvx.I32}: addI32, {vmvx.Mul, vmvx.I32}: mulI32, {vmvx.Add, vmvx.I64}: addI64,
}
