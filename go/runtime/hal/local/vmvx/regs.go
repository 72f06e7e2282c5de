package vmvx

import (
	"unsafe"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// Register storage. A thread's registers live in one block of uint64s (its
// frame); register r occupies Regs[r].Bytes() bytes at a fixed, 8-byte
// aligned offset. Elements are stored as Go values of their storage type:
// i1 and i8 as int8 (i1 as 0 or -1), i16, i32 and i64 as int16, int32 and
// int64, f16 and bf16 as their uint16 bits, f32 and f64 as float32 and
// float64. Scalars are one-lane registers. Handlers address registers
// through unsafe views at verified offsets, so a vector op is a plain Go
// loop over typed slices.

type ints interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type floats interface {
	~float32 | ~float64
}

type nums interface {
	ints | floats
}

// raw is the storage types copied as bits.
type raw interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// vec returns the n elements of type T at byte offset off of t's frame.
func vec[T any](t *thread, off uint32, n int) []T {
	return unsafe.Slice((*T)(unsafe.Add(t.p, off)), n)
}

// ptr returns a pointer to the element of type T at byte offset off.
func ptr[T any](t *thread, off uint32) *T {
	return (*T)(unsafe.Add(t.p, off))
}

// regBytes returns the n bytes at off.
func regBytes(t *thread, off uint32, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(t.p, off)), n)
}

// opnd is an operand of an instruction being prepared: a register's
// offset and type (or a scratch area posing as a register).
type opnd struct {
	off uint32
	t   vmvx.RegType
}

func (o opnd) n() int { return int(o.t.Lanes) }

// binKernel computes d[i] = a[i] op b[i] over equal-length slices.
type binKernel[T any] func(d, a, b []T, in *inst)

// unKernel computes d[i] = op a[i].
type unKernel[T any] func(d, a []T, in *inst)

func binH[T any](k binKernel[T]) handler {
	return func(t *thread, in *inst) error {
		k(vec[T](t, in.d, in.n), vec[T](t, in.a, in.n), vec[T](t, in.b, in.n), in)
		return nil
	}
}

func unH[T any](k unKernel[T]) handler {
	return func(t *thread, in *inst) error {
		k(vec[T](t, in.d, in.n), vec[T](t, in.a, in.n), in)
		return nil
	}
}

// canonI1 follows an integer handler on i1 registers: it keeps the low bit
// of every lane, sign-extended (0 or -1).
func canonI1(h handler) handler {
	return func(t *thread, in *inst) error {
		if err := h(t, in); err != nil {
			return err
		}
		d := vec[int8](t, in.d, in.n)
		for i, x := range d {
			d[i] = -(x & 1)
		}
		return nil
	}
}

// byInt picks the instance of an integer kernel for element type e.
func byInt(e vmvx.Elem, h8, h16, h32, h64 handler) handler {
	var h handler
	switch e {
	case vmvx.I1, vmvx.I8:
		h = h8
	case vmvx.I16:
		h = h16
	case vmvx.I32:
		h = h32
	case vmvx.I64:
		h = h64
	}
	if e == vmvx.I1 && h != nil {
		return canonI1(h)
	}
	return h
}

// bySize picks a handler by the element's storage size.
func bySize(e vmvx.Elem, h1, h2, h4, h8 handler) handler {
	switch e.ByteSize() {
	case 1:
		return h1
	case 2:
		return h2
	case 4:
		return h4
	}
	return h8
}

// splat fills the destination with the bits in in.imm.
func splat[T raw](t *thread, in *inst) error {
	d := vec[T](t, in.d, in.n)
	v := T(in.imm)
	for i := range d {
		d[i] = v
	}
	return nil
}

// broadcast fills the destination with scalar register a.
func broadcast[T raw](t *thread, in *inst) error {
	d := vec[T](t, in.d, in.n)
	v := *ptr[T](t, in.a)
	for i := range d {
		d[i] = v
	}
	return nil
}

// move copies in.size bytes from register a to register d.
func move(t *thread, in *inst) error {
	copy(regBytes(t, in.d, in.size), regBytes(t, in.a, in.size))
	return nil
}

func extract(t *thread, in *inst) error {
	copy(regBytes(t, in.d, in.size), regBytes(t, in.a+uint32(in.imm)*uint32(in.size), in.size))
	return nil
}

func insert(t *thread, in *inst) error {
	n := in.n * in.size
	copy(regBytes(t, in.d, n), regBytes(t, in.a, n))
	copy(regBytes(t, in.d+uint32(in.imm)*uint32(in.size), in.size), regBytes(t, in.b, in.size))
	return nil
}

func laneIota[T ints](t *thread, in *inst) error {
	d := vec[T](t, in.d, in.n)
	for i := range d {
		d[i] = T(i)
	}
	return nil
}

// selectV picks a[i] or b[i] by the i1 condition c (one lane or one per
// lane).
func selectV[T raw | nums](t *thread, in *inst) error {
	d, a, b := vec[T](t, in.d, in.n), vec[T](t, in.a, in.n), vec[T](t, in.b, in.n)
	if in.na == 1 {
		if *ptr[int8](t, in.c) != 0 {
			copy(d, a)
		} else {
			copy(d, b)
		}
		return nil
	}
	c := vec[int8](t, in.c, in.n)
	for i := range d {
		if c[i] != 0 {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
	return nil
}
