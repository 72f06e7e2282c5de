package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// HeaderSize is the size of the fixed header.
const HeaderSize = 16

// Writer builds a body after room for the header.
type Writer struct{ b []byte }

// NewWriter starts a body; sizeHint is the expected body size.
func NewWriter(sizeHint int) *Writer {
	return &Writer{b: make([]byte, HeaderSize, HeaderSize+sizeHint)}
}

// Uv appends an unsigned varint.
func (w *Writer) Uv(v int) { w.b = binary.AppendUvarint(w.b, uint64(v)) }

// U8 appends a byte.
func (w *Writer) U8(v uint8) { w.b = append(w.b, v) }

// Bytes appends a varint length and the bytes.
func (w *Writer) Bytes(p []byte) {
	w.Uv(len(p))
	w.b = append(w.b, p...)
}

// Str appends a varint length and the string.
func (w *Writer) Str(s string) {
	w.Uv(len(s))
	w.b = append(w.b, s...)
}

// Raw appends bytes without a length.
func (w *Writer) Raw(p []byte) { w.b = append(w.b, p...) }

// Finish writes the header (magic, version, length, checksum) and returns
// the whole file.
func (w *Writer) Finish(magic string, version uint16) []byte {
	b := w.b
	body := b[HeaderSize:]
	copy(b, magic)
	binary.LittleEndian.PutUint16(b[4:], version)
	binary.LittleEndian.PutUint16(b[6:], 0)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(body))
	return b
}

// Open checks data's header against magic and version and returns a
// Reader over its body. what names the format in errors ("llvm-cpu
// executable"): DATA_LOSS for truncation and damage, INVALID_ARGUMENT for
// another format or version.
func Open(data []byte, what, magic string, version uint16) (*Reader, error) {
	if len(data) < HeaderSize {
		return nil, status.Errorf(status.DataLoss, "%s truncated: %d bytes, the header alone takes %d", what, len(data), HeaderSize)
	}
	if string(data[:4]) != magic {
		return nil, status.Errorf(status.InvalidArgument, "not a%s %s (magic %q, want %q)", article(what), what, data[:4], magic)
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != version {
		return nil, status.Errorf(status.InvalidArgument, "%s format version %d, this runtime reads version %d", what, v, version)
	}
	if f := binary.LittleEndian.Uint16(data[6:]); f != 0 {
		return nil, status.Errorf(status.InvalidArgument, "%s: unknown header flags %#x", what, f)
	}
	if n := binary.LittleEndian.Uint32(data[8:]); uint64(n) != uint64(len(data)-HeaderSize) {
		return nil, status.Errorf(status.DataLoss, "%s: header says the body has %d bytes, the file has %d", what, n, len(data)-HeaderSize)
	}
	body := data[HeaderSize:]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(data[12:]); got != want {
		return nil, status.Errorf(status.DataLoss, "%s: body checksum %#08x does not match the header's %#08x", what, got, want)
	}
	return &Reader{b: body, what: what}, nil
}

// article is "n" before a name starting with a vowel sound (a vowel, or
// "llvm", read el-el-vee-em).
func article(what string) string {
	if strings.HasPrefix(what, "llvm") || (what != "" && strings.IndexByte("aeiou", what[0]) >= 0) {
		return "n"
	}
	return ""
}

// Reader reads a body; after the first failure every read returns zero
// values and Err returns the failure.
type Reader struct {
	b    []byte
	off  int
	err  error
	what string
}

// Err returns the first failure.
func (r *Reader) Err() error { return r.err }

// Fail records a failure at the current offset (the first one wins).
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = status.Errorf(status.DataLoss, "%s: body byte %d: %s", r.what, r.off, fmt.Sprintf(format, args...))
	}
}

// Count reads a varint no greater than limit.
func (r *Reader) Count(limit int) int {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.Fail("bad or truncated varint")
		return 0
	}
	r.off += n
	if x > uint64(limit) {
		r.Fail("count %d exceeds the limit %d", x, limit)
		return 0
	}
	return int(x)
}

// U8 reads a byte.
func (r *Reader) U8() uint8 {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.Fail("truncated")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// Bytes reads a varint length (at most limit) and that many bytes, which
// alias the body.
func (r *Reader) Bytes(limit int) []byte {
	n := r.Count(limit)
	if r.err != nil {
		return nil
	}
	if n > len(r.b)-r.off {
		r.Fail("%d bytes wanted, %d left", n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return out
}

// Str reads a length-prefixed string.
func (r *Reader) Str(limit int) string { return string(r.Bytes(limit)) }

// Left returns the number of body bytes not read yet.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Done fails with DATA_LOSS when bytes are left, and returns Err.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.b) {
		r.err = status.Errorf(status.DataLoss, "%s: %d trailing bytes", r.what, len(r.b)-r.off)
	}
	return r.err
}
