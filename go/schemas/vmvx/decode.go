package vmvx

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/status"
)

// Decode parses and verifies a vmvx executable. Every error is a status
// error: DATA_LOSS for damaged bytes (truncation, checksum, malformed
// varints, trailing bytes) and INVALID_ARGUMENT for files that are not
// vmvx executables of this version or break a rule of the format. Decode
// never panics, whatever data holds.
func Decode(data []byte) (*Executable, error) {
	body, err := checkHeader(data)
	if err != nil {
		return nil, err
	}
	x, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	if err := Verify(x); err != nil {
		return nil, err
	}
	return x, nil
}

func checkHeader(data []byte) ([]byte, error) {
	if len(data) < HeaderSize {
		if len(data) >= 4 && string(data[:4]) != Magic {
			return nil, status.Errorf(status.InvalidArgument, "vmvx: not a vmvx executable (magic %q, want %q)", data[:4], Magic)
		}
		return nil, status.Errorf(status.DataLoss, "vmvx: executable truncated: %d bytes, the header alone takes %d", len(data), HeaderSize)
	}
	if string(data[:4]) != Magic {
		return nil, status.Errorf(status.InvalidArgument, "vmvx: not a vmvx executable (magic %q, want %q)", data[:4], Magic)
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != Version {
		return nil, status.Errorf(status.InvalidArgument, "vmvx: format version %d, this runtime reads version %d", v, Version)
	}
	if f := binary.LittleEndian.Uint16(data[6:]); f != 0 {
		return nil, status.Errorf(status.InvalidArgument, "vmvx: unknown header flags %#x", f)
	}
	n := binary.LittleEndian.Uint32(data[8:])
	if uint64(n) != uint64(len(data)-HeaderSize) {
		return nil, status.Errorf(status.DataLoss, "vmvx: header says the body has %d bytes, the file has %d", n, len(data)-HeaderSize)
	}
	body := data[HeaderSize:]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(data[12:]); got != want {
		return nil, status.Errorf(status.DataLoss, "vmvx: body checksum %#08x does not match the header's %#08x", got, want)
	}
	return body, nil
}

// reader decodes the body; the first error sticks.
type reader struct {
	b   []byte
	off int
	err error
	at  string
}

func (r *reader) fail(code status.Code, format string, args ...any) {
	if r.err == nil {
		r.err = status.Errorf(code, "vmvx: %s at body byte %d: %s", r.at, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) uv() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail(status.DataLoss, "bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) sv() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail(status.DataLoss, "bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) u8() uint8 {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail(status.DataLoss, "truncated")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// small reads a uvarint that must be at most limit.
func (r *reader) small(limit uint64, what string) uint64 {
	x := r.uv()
	if r.err == nil && x > limit {
		r.fail(status.InvalidArgument, "%s %d exceeds the limit %d", what, x, limit)
		return 0
	}
	return x
}

// count reads a length of items taking at least minBytes each, so a corrupt
// count cannot make the decoder allocate without bound.
func (r *reader) count(limit uint64, minBytes int, what string) int {
	n := r.small(limit, what)
	if r.err == nil && n*uint64(minBytes) > uint64(len(r.b)-r.off) {
		r.fail(status.DataLoss, "%s %d does not fit in the %d bytes left", what, n, len(r.b)-r.off)
		return 0
	}
	return int(n)
}

func decodeBody(b []byte) (*Executable, error) {
	r := &reader{b: b, at: "entry count"}
	n := r.count(MaxEntries, 8, "entry count")
	x := &Executable{Entries: makeN[Entry](n)}
	for i := range x.Entries {
		r.entry(i, &x.Entries[i])
	}
	if r.err == nil && r.off != len(b) {
		r.at = "end"
		r.fail(status.DataLoss, "%d trailing bytes", len(b)-r.off)
	}
	return x, r.err
}

func (r *reader) entry(i int, e *Entry) {
	r.at = fmt.Sprintf("entry %d name", i)
	nl := r.count(MaxNameLen, 1, "name length")
	if r.err == nil {
		e.Name = string(r.b[r.off : r.off+nl])
		r.off += nl
		if !utf8.ValidString(e.Name) {
			r.fail(status.InvalidArgument, "name is not UTF-8")
		}
	}
	r.at = fmt.Sprintf("entry %d interface", i)
	for d := range e.WorkgroupSize {
		e.WorkgroupSize[d] = uint32(r.small(MaxWorkgroupSize, "workgroup size"))
	}
	e.NumPushConstants = uint32(r.small(MaxPushConstants, "push-constant count"))
	e.Bindings = makeN[Binding](r.count(MaxBindings, 2, "binding count"))
	for j := range e.Bindings {
		e.Bindings[j] = Binding{Elem: Elem(r.u8()), Access: Access(r.u8())}
	}
	e.Shared = makeN[Shared](r.count(MaxShared, 2, "shared allocation count"))
	for j := range e.Shared {
		e.Shared[j] = Shared{Elem: Elem(r.u8()), Count: r.small(MaxSharedBytes, "shared element count")}
	}
	r.at = fmt.Sprintf("entry %d registers", i)
	e.Regs = makeN[RegType](r.count(MaxRegisters, 2, "register count"))
	for j := range e.Regs {
		e.Regs[j] = RegType{Elem: Elem(r.u8()), Lanes: uint32(r.small(MaxLanes, "lane count"))}
	}
	r.at = fmt.Sprintf("entry %d code", i)
	e.Code = makeN[Instr](r.count(MaxInstrs, 1, "instruction count"))
	for j := range e.Code {
		if r.err != nil {
			break
		}
		r.at = fmt.Sprintf("entry %d instruction %d", i, j)
		r.instr(&e.Code[j])
	}
}

func (r *reader) instr(in *Instr) {
	in.Op = Opcode(r.u8())
	if r.err != nil {
		return
	}
	if !in.Op.Valid() {
		r.fail(status.InvalidArgument, "invalid opcode %d", uint8(in.Op))
		return
	}
	layout := in.Op.Layout()
	nargs, binds := 0, 0
	for _, c := range layout {
		if c == 'r' {
			nargs++
		}
	}
	if nargs > 0 {
		in.Args = make([]uint32, 0, nargs)
	}
	for _, c := range layout {
		switch c {
		case 'd':
			in.Dst = uint32(r.small(MaxRegisters, "register"))
		case 'r':
			in.Args = append(in.Args, uint32(r.small(MaxRegisters, "register")))
		case 'i':
			in.Imm = r.sv()
		case 'u':
			in.Imm = int64(r.small(1<<31, "immediate"))
		case 'f':
			if len(r.b)-r.off < 8 {
				r.fail(status.DataLoss, "truncated float immediate")
				return
			}
			in.Imm = int64(binary.LittleEndian.Uint64(r.b[r.off:]))
			r.off += 8
		case 't':
			in.Target = uint32(r.small(MaxInstrs, "jump target"))
		case 'b':
			in.Bindings[binds] = uint32(r.small(MaxBindings, "binding"))
			binds++
		}
	}
}

// makeN returns a slice of n zero values, nil when n is 0 (as an encoder's
// input usually has it).
func makeN[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}
