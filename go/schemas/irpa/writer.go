package irpa

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/gree-ml/gree/go/status"
)

// Layout constants.
const (
	Magic           = "IRPA"
	PrefixSize      = 32
	HeaderSize      = 88
	EntryHeaderSize = 60
	SplatEntrySize  = 85
	DataEntrySize   = 76
	HeaderAlignment = 16
	EntryAlignment  = 16
	EntryTypeSkip   = 0
	EntryTypeSplat  = 1
	EntryTypeData   = 2
	EntryTypeExtern = 3
	MaxSplatPattern = 16
)

// DefaultDataAlignment is the alignment of each entry's data in archives
// Writer builds unless told otherwise (IREE's default).
const DefaultDataAlignment = 64

// DefaultFileAlignment is the alignment Writer pads archive files to.
const DefaultFileAlignment = 4096

// Range is an (offset, length) pair of the format.
type Range struct{ Off, N uint64 }

// AlignUp rounds x up to a multiple of a (a ≤ 1: x).
func AlignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

// ValidPattern reports whether a splat pattern of n bytes may fill length
// bytes: n is 1, 2, 4, 8 or 16 and divides length.
func ValidPattern(n, length uint64) bool {
	return n != 0 && n <= MaxSplatPattern && n&(n-1) == 0 && length%n == 0
}

// Writer builds an IREE parameter archive (.irpa) with one v0 header:
// the entry table after the header, the names and metadata after it, and
// each data entry's bytes in the storage segment at Alignment.
type Writer struct {
	// Alignment of each data entry's bytes relative to the archive header
	// (DefaultDataAlignment when 0); a power of two.
	Alignment uint64
	// FileAlignment pads the file's length (DefaultFileAlignment when 0).
	FileAlignment uint64
	entries       []writerEntry
}

type writerEntry struct {
	key      string
	metadata []byte
	splat    []byte // splat pattern, or nil for data
	length   uint64
	data     func(w io.Writer) error // writes length bytes of data
}

// AddData adds an entry holding data.
func (w *Writer) AddData(key string, metadata, data []byte) {
	w.AddDataFunc(key, metadata, uint64(len(data)), func(out io.Writer) error {
		_, err := out.Write(data)
		return err
	})
}

// AddDataFunc adds an entry of length bytes that write produces when the
// archive is written (so that large parameters need not be in memory).
func (w *Writer) AddDataFunc(key string, metadata []byte, length uint64, write func(io.Writer) error) {
	w.entries = append(w.entries, writerEntry{key: key, metadata: metadata, length: length, data: write})
}

// AddSplat adds an entry of length bytes repeating pattern (1, 2, 4, 8 or
// 16 bytes dividing length); it takes no storage in the file.
func (w *Writer) AddSplat(key string, metadata, pattern []byte, length uint64) error {
	pl := uint64(len(pattern))
	if !ValidPattern(pl, length) {
		return status.Errorf(status.InvalidArgument, "irpa: splat '%s': the pattern is %d bytes; it must be 1, 2, 4, 8 or 16 bytes and divide the length %d", key, pl, length)
	}
	w.entries = append(w.entries, writerEntry{key: key, metadata: metadata, splat: append([]byte(nil), pattern...), length: length})
	return nil
}

// Len returns the number of entries added.
func (w *Writer) Len() int { return len(w.entries) }

// layout computes the segments and each data entry's storage offset.
func (w *Writer) layout() (table, meta, store Range, offs []uint64, total uint64) {
	align := w.Alignment
	if align == 0 {
		align = DefaultDataAlignment
	}
	falign := w.FileAlignment
	if falign == 0 {
		falign = DefaultFileAlignment
	}
	for _, e := range w.entries {
		sz := uint64(DataEntrySize)
		if e.splat != nil {
			sz = SplatEntrySize
		}
		table.N = AlignUp(table.N, EntryAlignment) + sz
		meta.N += uint64(len(e.key) + len(e.metadata))
		off := uint64(0)
		if e.splat == nil {
			off = AlignUp(store.N, align)
			store.N = off + e.length
		}
		offs = append(offs, off)
	}
	table.Off = AlignUp(HeaderSize, EntryAlignment)
	meta.Off = table.Off + table.N
	store.Off = AlignUp(meta.Off+meta.N, align)
	total = AlignUp(store.Off+store.N, falign)
	return
}

// WriteTo writes the archive to out.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	table, meta, store, offs, total := w.layout()
	head := make([]byte, store.Off)
	copy(head, Magic)
	binary.LittleEndian.PutUint64(head[8:], HeaderSize)
	binary.LittleEndian.PutUint64(head[32:], uint64(len(w.entries)))
	for i, r := range [3]Range{table, meta, store} {
		binary.LittleEndian.PutUint64(head[40+16*i:], r.Off)
		binary.LittleEndian.PutUint64(head[48+16*i:], r.N)
	}
	pos, moff := table.Off, uint64(0)
	for i, e := range w.entries {
		eh := head[pos:]
		typ, sz := uint32(EntryTypeData), uint64(DataEntrySize)
		if e.splat != nil {
			typ, sz = EntryTypeSplat, SplatEntrySize
		}
		binary.LittleEndian.PutUint64(eh[0:], sz)
		binary.LittleEndian.PutUint32(eh[8:], typ)
		binary.LittleEndian.PutUint64(eh[20:], moff)
		binary.LittleEndian.PutUint64(eh[28:], uint64(len(e.key)))
		copy(head[meta.Off+moff:], e.key)
		moff += uint64(len(e.key))
		if len(e.metadata) > 0 {
			binary.LittleEndian.PutUint64(eh[36:], moff)
			binary.LittleEndian.PutUint64(eh[44:], uint64(len(e.metadata)))
			copy(head[meta.Off+moff:], e.metadata)
			moff += uint64(len(e.metadata))
		}
		if e.splat != nil {
			binary.LittleEndian.PutUint64(eh[60:], e.length)
			copy(eh[68:84], e.splat)
			eh[84] = byte(len(e.splat))
		} else {
			align := w.Alignment
			if align == 0 {
				align = DefaultDataAlignment
			}
			binary.LittleEndian.PutUint64(eh[52:], align)
			binary.LittleEndian.PutUint64(eh[60:], offs[i])
			binary.LittleEndian.PutUint64(eh[68:], e.length)
		}
		pos = AlignUp(pos+sz, EntryAlignment)
	}
	cw := &countingWriter{w: out}
	if _, err := cw.Write(head); err != nil {
		return cw.n, err
	}
	for i, e := range w.entries {
		if e.splat != nil {
			continue
		}
		if err := pad(cw, store.Off+offs[i]); err != nil {
			return cw.n, err
		}
		before := cw.n
		if err := e.data(cw); err != nil {
			return cw.n, fmt.Errorf("irpa: writing entry '%s': %w", e.key, err)
		}
		if got := uint64(cw.n - before); got != e.length {
			return cw.n, status.Errorf(status.Internal, "irpa: entry '%s' wrote %d bytes, declared %d", e.key, got, e.length)
		}
	}
	return cw.n, pad(cw, total)
}

// WriteFile writes the archive to path (replacing it).
func (w *Writer) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return status.Errorf(status.PermissionDenied, "irpa: cannot create %s: %v", path, err)
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return status.Annotate(err, "irpa: writing %s", path)
	}
	if err := f.Close(); err != nil {
		return status.Errorf(status.Unavailable, "irpa: writing %s: %v", path, err)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var zeros [4096]byte

// pad writes zeros up to absolute offset to.
func pad(cw *countingWriter, to uint64) error {
	for uint64(cw.n) < to {
		n := min(to-uint64(cw.n), uint64(len(zeros)))
		if _, err := cw.Write(zeros[:n]); err != nil {
			return err
		}
	}
	return nil
}
