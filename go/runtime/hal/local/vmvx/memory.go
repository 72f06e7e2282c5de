package vmvx

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

// hostLE reports a little-endian host, where buffer bytes and register
// storage have the same layout and loads and stores are plain copies.
var hostLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// buffer returns the bytes an instruction addresses and what they are.
func (t *thread) buffer(in *inst) ([]byte, string) {
	if in.shared {
		return t.run.shared[in.bind[0]], "shared allocation"
	}
	return t.run.bindings[in.bind[0]], "binding"
}

func (t *thread) outOfRange(in *inst, what string, off, stride int64, count int64) error {
	return status.Errorf(status.OutOfRange, "vmvx: entry %q instruction %d (%s): %s %d: offset %d (%d lanes, stride %d) is outside its %d elements",
		t.run.prog.entry.Name, in.pc, in.name, what, in.bind[0], off, in.n, stride, count)
}

// load copies n contiguous elements at the offset in register a into d.
func load(t *thread, in *inst) error {
	buf, what := t.buffer(in)
	off := *ptr[int64](t, in.a)
	count := int64(len(buf) / in.size)
	if off < 0 || off > count-int64(in.n) {
		return t.outOfRange(in, what, off, 1, count)
	}
	src := buf[off*int64(in.size):][:in.n*in.size]
	if in.isI1 {
		d := vec[int8](t, in.d, in.n)
		for i, b := range src {
			d[i] = -int8(b & 1)
		}
		return nil
	}
	if hostLE {
		copy(regBytes(t, in.d, len(src)), src)
		return nil
	}
	decodeStrided(t, in.d, src, 0, int64(in.size), in.size, in.n)
	return nil
}

// store copies n elements of register b to the offset in register a.
func store(t *thread, in *inst) error {
	buf, what := t.buffer(in)
	off := *ptr[int64](t, in.a)
	count := int64(len(buf) / in.size)
	if off < 0 || off > count-int64(in.n) {
		return t.outOfRange(in, what, off, 1, count)
	}
	dst := buf[off*int64(in.size):][:in.n*in.size]
	if in.isI1 {
		s := vec[int8](t, in.b, in.n)
		for i := range dst {
			dst[i] = byte(s[i] & 1)
		}
		return nil
	}
	if hostLE {
		copy(dst, regBytes(t, in.b, len(dst)))
		return nil
	}
	encodeStrided(t, in.b, dst, 0, int64(in.size), in.size, in.n)
	return nil
}

// stridedSpan checks n elements at off, off+stride, … against count and
// returns the byte offset of the first and the byte stride.
func (t *thread) stridedSpan(in *inst, what string, off, stride, count int64) (int64, int64, error) {
	e, ok := extent(int64(in.n), stride)
	if !ok || off < 0 || off >= count || off+e < 0 || off+e >= count {
		return 0, 0, t.outOfRange(in, what, off, stride, count)
	}
	return off * int64(in.size), stride * int64(in.size), nil
}

// extent returns (n-1)*s, and false when its magnitude reaches 2^60.
func extent(n, s int64) (int64, bool) {
	if n <= 1 {
		return 0, true
	}
	as := uint64(s)
	if s < 0 {
		as = -as
	}
	hi, lo := bits.Mul64(uint64(n-1), as)
	if hi != 0 || lo >= 1<<60 {
		return 0, false
	}
	if s < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func loadStrided(t *thread, in *inst) error {
	buf, what := t.buffer(in)
	o, st, err := t.stridedSpan(in, what, *ptr[int64](t, in.a), *ptr[int64](t, in.b), int64(len(buf)/in.size))
	if err != nil {
		return err
	}
	if in.isI1 {
		d := vec[int8](t, in.d, in.n)
		for i := range d {
			d[i] = -int8(buf[o+int64(i)*st] & 1)
		}
		return nil
	}
	decodeStrided(t, in.d, buf, o, st, in.size, in.n)
	return nil
}

func storeStrided(t *thread, in *inst) error {
	buf, what := t.buffer(in)
	o, st, err := t.stridedSpan(in, what, *ptr[int64](t, in.a), *ptr[int64](t, in.b), int64(len(buf)/in.size))
	if err != nil {
		return err
	}
	if in.isI1 {
		s := vec[int8](t, in.c, in.n)
		for i, x := range s {
			buf[o+int64(i)*st] = byte(x & 1)
		}
		return nil
	}
	encodeStrided(t, in.c, buf, o, st, in.size, in.n)
	return nil
}

// decodeStrided reads n little-endian elements of size bytes, st bytes
// apart from byte o of buf, into the register at off (the portable path).
func decodeStrided(t *thread, off uint32, buf []byte, o, st int64, size, n int) {
	switch size {
	case 1:
		d := vec[uint8](t, off, n)
		for i := range d {
			d[i] = buf[o+int64(i)*st]
		}
	case 2:
		d := vec[uint16](t, off, n)
		for i := range d {
			d[i] = binary.LittleEndian.Uint16(buf[o+int64(i)*st:])
		}
	case 4:
		d := vec[uint32](t, off, n)
		for i := range d {
			d[i] = binary.LittleEndian.Uint32(buf[o+int64(i)*st:])
		}
	default:
		d := vec[uint64](t, off, n)
		for i := range d {
			d[i] = binary.LittleEndian.Uint64(buf[o+int64(i)*st:])
		}
	}
}

// encodeStrided writes the register at off as little-endian elements.
func encodeStrided(t *thread, off uint32, buf []byte, o, st int64, size, n int) {
	switch size {
	case 1:
		for i, x := range vec[uint8](t, off, n) {
			buf[o+int64(i)*st] = x
		}
	case 2:
		for i, x := range vec[uint16](t, off, n) {
			binary.LittleEndian.PutUint16(buf[o+int64(i)*st:], x)
		}
	case 4:
		for i, x := range vec[uint32](t, off, n) {
			binary.LittleEndian.PutUint32(buf[o+int64(i)*st:], x)
		}
	default:
		for i, x := range vec[uint64](t, off, n) {
			binary.LittleEndian.PutUint64(buf[o+int64(i)*st:], x)
		}
	}
}
