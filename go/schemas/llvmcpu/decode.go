package llvmcpu

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/gree-ml/gree/go/status"
)

// Decode parses and verifies an llvm-cpu executable: DATA_LOSS for
// damaged bytes (truncation, checksum, bad varints, trailing bytes),
// INVALID_ARGUMENT for files that are not llvm-cpu executables of this
// version or break a rule. It never panics.
func Decode(data []byte) (*Executable, error) {
	if len(data) < HeaderSize {
		return nil, status.Errorf(status.DataLoss, "llvm-cpu executable truncated: %d bytes, the header alone takes %d", len(data), HeaderSize)
	}
	if string(data[:4]) != Magic {
		return nil, status.Errorf(status.InvalidArgument, "not an llvm-cpu executable (magic %q, want %q)", data[:4], Magic)
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != Version {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu executable format version %d, this runtime reads version %d", v, Version)
	}
	if f := binary.LittleEndian.Uint16(data[6:]); f != 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu executable: unknown header flags %#x", f)
	}
	if n := binary.LittleEndian.Uint32(data[8:]); uint64(n) != uint64(len(data)-HeaderSize) {
		return nil, status.Errorf(status.DataLoss, "llvm-cpu executable: header says the body has %d bytes, the file has %d", n, len(data)-HeaderSize)
	}
	body := data[HeaderSize:]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(data[12:]); got != want {
		return nil, status.Errorf(status.DataLoss, "llvm-cpu executable: body checksum %#08x does not match the header's %#08x", got, want)
	}
	r := &reader{b: body}
	x := &Executable{}
	x.Triple = r.str(MaxStringLen)
	x.CPU = r.str(MaxStringLen)
	x.Features = r.str(MaxStringLen)
	nf := r.count(MaxFeatures)
	for i := 0; i < nf && r.err == nil; i++ {
		x.Required = append(x.Required, r.str(MaxNameLen))
	}
	ne := r.count(MaxEntries)
	for i := 0; i < ne && r.err == nil; i++ {
		e := Entry{Name: r.str(MaxNameLen), Symbol: r.str(MaxNameLen)}
		e.NumPushConstants = r.count(MaxPushConstants)
		e.NumBindings = r.count(MaxBindings)
		x.Entries = append(x.Entries, e)
	}
	no := r.count(MaxObjectBytes)
	if r.err == nil && no > len(r.b)-r.off {
		r.fail("shared object of %d bytes, %d left", no, len(r.b)-r.off)
	}
	if r.err != nil {
		return nil, r.err
	}
	x.Object = r.b[r.off : r.off+no]
	if r.off+no != len(r.b) {
		return nil, status.Errorf(status.DataLoss, "llvm-cpu executable: %d trailing bytes", len(r.b)-r.off-no)
	}
	if err := Verify(x); err != nil {
		return nil, err
	}
	return x, nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = status.Errorf(status.DataLoss, "llvm-cpu executable: body byte %d: %s", r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) count(limit int) int {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	if x > uint64(limit) {
		r.fail("count %d exceeds the limit %d", x, limit)
		return 0
	}
	return int(x)
}

func (r *reader) str(limit int) string {
	n := r.count(limit)
	if r.err != nil {
		return ""
	}
	if n > len(r.b)-r.off {
		r.fail("string of %d bytes, %d left", n, len(r.b)-r.off)
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}
