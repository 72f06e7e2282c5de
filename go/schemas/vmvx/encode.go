package vmvx

import (
	"encoding/binary"
	"hash/crc32"
	"math"
)

// Encode verifies x and writes it in the vmvx format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	w := &writer{b: make([]byte, HeaderSize, 256)}
	w.uv(uint64(len(x.Entries)))
	for i := range x.Entries {
		w.entry(&x.Entries[i])
	}
	body := w.b[HeaderSize:]
	h := w.b[:HeaderSize]
	copy(h, Magic)
	binary.LittleEndian.PutUint16(h[4:], Version)
	binary.LittleEndian.PutUint16(h[6:], 0)
	binary.LittleEndian.PutUint32(h[8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(h[12:], crc32.ChecksumIEEE(body))
	return w.b, nil
}

type writer struct{ b []byte }

func (w *writer) uv(x uint64) { w.b = binary.AppendUvarint(w.b, x) }
func (w *writer) sv(x int64)  { w.b = binary.AppendVarint(w.b, x) }
func (w *writer) u8(x uint8)  { w.b = append(w.b, x) }

func (w *writer) entry(e *Entry) {
	w.uv(uint64(len(e.Name)))
	w.b = append(w.b, e.Name...)
	for _, n := range e.WorkgroupSize {
		w.uv(uint64(n))
	}
	w.uv(uint64(e.NumPushConstants))
	w.uv(uint64(len(e.Bindings)))
	for _, b := range e.Bindings {
		w.u8(uint8(b.Elem))
		w.u8(uint8(b.Access))
	}
	w.uv(uint64(len(e.Shared)))
	for _, s := range e.Shared {
		w.u8(uint8(s.Elem))
		w.uv(s.Count)
	}
	w.uv(uint64(len(e.Regs)))
	for _, r := range e.Regs {
		w.u8(uint8(r.Elem))
		w.uv(uint64(r.Lanes))
	}
	w.uv(uint64(len(e.Code)))
	for i := range e.Code {
		w.instr(&e.Code[i])
	}
}

func (w *writer) instr(in *Instr) {
	w.u8(uint8(in.Op))
	args, binds := in.Args, 0
	for _, c := range in.Op.Layout() {
		switch c {
		case 'd':
			w.uv(uint64(in.Dst))
		case 'r':
			w.uv(uint64(args[0]))
			args = args[1:]
		case 'i':
			w.sv(in.Imm)
		case 'u':
			w.uv(uint64(in.Imm))
		case 'f':
			w.b = binary.LittleEndian.AppendUint64(w.b, uint64(in.Imm))
		case 't':
			w.uv(uint64(in.Target))
		case 'b':
			w.uv(uint64(in.Bindings[binds]))
			binds++
		}
	}
}

// FloatImm returns the Imm of a ConstFloat instruction holding x.
func FloatImm(x float64) int64 { return int64(math.Float64bits(x)) }
