package vmvx

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/gemm"
	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// gemmF32 and gemmF64 compute C += A·B; variables so tests can swap them.
var (
	gemmF32 = gemm.F32
	gemmF64 = gemm.F64
)

// contract runs C += A·B on the tile described by the 12 i64 registers
// (C = A·B with flag bit 1: the tile is zeroed first, even when K ≤ 0).
// f32 and f64 tiles in aligned buffers go to package gemm (whose order of
// accumulation and use of fused multiply-add differ from kir.Run's, which
// the kernel IR allows); other element types run plain loops that match
// kir.Run exactly.
func contract(t *thread, in *inst) error {
	var v [12]int64
	for i, r := range in.args {
		v[i] = *ptr[int64](t, r)
	}
	m, n, k := v[9], v[10], v[11]
	zero := in.imm&2 != 0
	if m <= 0 || n <= 0 || (k <= 0 && !zero) {
		return nil
	}
	var bufs [3][]byte
	if zero {
		bufs[2] = t.run.bindings[in.bind[2]]
		e := in.elems[2]
		if err := t.tileSpan(in, 2, bufs[2], e, v[6], v[7], v[8], m, n); err != nil {
			return err
		}
		size := int64(e.ByteSize())
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < n; j++ {
				o := (v[6] + i*v[7] + j*v[8]) * size
				clear(bufs[2][o : o+size]) // +0 in every element type
			}
		}
		if k <= 0 {
			return nil
		}
	}
	for i := range bufs {
		bufs[i] = t.run.bindings[in.bind[i]]
		e := in.elems[i]
		rows, cols := [3]int64{m, k, m}[i], [3]int64{k, n, n}[i]
		if err := t.tileSpan(in, i, bufs[i], e, v[3*i], v[3*i+1], v[3*i+2], rows, cols); err != nil {
			return err
		}
	}
	ea, eb, ec := in.elems[0], in.elems[1], in.elems[2]
	fits := true // every argument is a Go int (only 32-bit hosts can fail)
	for _, x := range v {
		fits = fits && int64(int(x)) == x
	}
	if hostLE && fits && ea == ec && eb == ec {
		switch ec {
		case vmvx.F32:
			a, okA := view[float32](bufs[0])
			b, okB := view[float32](bufs[1])
			c, okC := view[float32](bufs[2])
			if okA && okB && okC {
				gemmF32(int(m), int(n), int(k), a, int(v[0]), int(v[1]), int(v[2]),
					b, int(v[3]), int(v[4]), int(v[5]), c, int(v[6]), int(v[7]), int(v[8]))
				return nil
			}
		case vmvx.F64:
			a, okA := view[float64](bufs[0])
			b, okB := view[float64](bufs[1])
			c, okC := view[float64](bufs[2])
			if okA && okB && okC {
				gemmF64(int(m), int(n), int(k), a, int(v[0]), int(v[1]), int(v[2]),
					b, int(v[3]), int(v[4]), int(v[5]), c, int(v[6]), int(v[7]), int(v[8]))
				return nil
			}
		}
	}
	contractLoops(bufs, in.elems, v, in.imm&1 != 0)
	return nil
}

// view returns b as a slice of T when it is suitably aligned.
func view[T float32 | float64](b []byte) ([]T, bool) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) < size || uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), true
}

func (t *thread) tileSpan(in *inst, i int, buf []byte, e vmvx.Elem, off, rs, cs, rows, cols int64) error {
	count := int64(len(buf) / e.ByteSize())
	er, ok1 := extent(rows, rs)
	ec, ok2 := extent(cols, cs)
	lo, hi := off, off
	if ok1 && ok2 && off >= 0 && off < count {
		for _, x := range [2]int64{er, ec} {
			if x < 0 {
				lo += x
			} else {
				hi += x
			}
		}
	}
	if !ok1 || !ok2 || off < 0 || off >= count || lo < 0 || hi >= count {
		return status.Errorf(status.OutOfRange, "vmvx: entry %q instruction %d (contract): operand %c, binding %d: %dx%d tile at offset %d (strides %d, %d) is outside its %d elements",
			t.run.prog.entry.Name, in.pc, "ABC"[i], in.bind[i], rows, cols, off, rs, cs, count)
	}
	return nil
}

// readInt reads element i of buf as a sign- or zero-extended integer.
func readInt(buf []byte, e vmvx.Elem, i int64, unsigned bool) int64 {
	var u uint64
	switch e.ByteSize() {
	case 1:
		u = uint64(buf[i])
		if e == vmvx.I1 {
			u &= 1
		}
	case 2:
		u = uint64(binary.LittleEndian.Uint16(buf[2*i:]))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(buf[4*i:]))
	default:
		u = binary.LittleEndian.Uint64(buf[8*i:])
	}
	if unsigned {
		return int64(u)
	}
	return sext(u, e.Bits())
}

// readFloat reads element i of buf as a float64 (exactly).
func readFloat(buf []byte, e vmvx.Elem, i int64) float64 {
	switch e {
	case vmvx.F16:
		return float64(halfToF32(binary.LittleEndian.Uint16(buf[2*i:])))
	case vmvx.BF16:
		return float64(bf16ToF32(binary.LittleEndian.Uint16(buf[2*i:])))
	case vmvx.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
}

// roundTo rounds x to element type e (nearest even) and back to float64.
func roundTo(e vmvx.Elem, x float64) float64 {
	switch e {
	case vmvx.F16:
		return float64(halfToF32(f64ToF16(x)))
	case vmvx.BF16:
		return float64(bf16ToF32(f64ToBF16(x)))
	case vmvx.F32:
		return float64(float32(x))
	}
	return x
}

func writeElem(buf []byte, e vmvx.Elem, i int64, x int64, f float64) {
	switch e {
	case vmvx.I1:
		buf[i] = byte(x & 1)
	case vmvx.I8:
		buf[i] = byte(x)
	case vmvx.I16:
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(x))
	case vmvx.I32:
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(x))
	case vmvx.I64:
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(x))
	case vmvx.F16:
		binary.LittleEndian.PutUint16(buf[2*i:], f64ToF16(f))
	case vmvx.BF16:
		binary.LittleEndian.PutUint16(buf[2*i:], f64ToBF16(f))
	case vmvx.F32:
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(f)))
	default:
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(f))
	}
}

// contractLoops is the portable contraction: for each element of C in
// order, accumulate over k in C's type with a separate multiply and add.
func contractLoops(bufs [3][]byte, elems [3]vmvx.Elem, v [12]int64, unsigned bool) {
	m, n, k := v[9], v[10], v[11]
	ec := elems[2]
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < n; j++ {
			ci := v[6] + i*v[7] + j*v[8]
			ai, bi := v[0]+i*v[1], v[3]+j*v[5]
			if ec.IsInt() {
				acc := readInt(bufs[2], ec, ci, false)
				for p := int64(0); p < k; p++ {
					acc += readInt(bufs[0], elems[0], ai+p*v[2], unsigned) * readInt(bufs[1], elems[1], bi+p*v[4], unsigned)
				}
				writeElem(bufs[2], ec, ci, acc, 0)
				continue
			}
			acc := readFloat(bufs[2], ec, ci)
			for p := int64(0); p < k; p++ {
				x := roundTo(ec, readFloat(bufs[0], elems[0], ai+p*v[2]))
				y := roundTo(ec, readFloat(bufs[1], elems[1], bi+p*v[4]))
				if ec == vmvx.F64 {
					acc += float64(x * y)
				} else {
					acc = roundTo(ec, float64(float32(acc+roundTo(ec, float64(float32(x*y))))))
				}
			}
			writeElem(bufs[2], ec, ci, 0, acc)
		}
	}
}
