package params

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gree-ml/gree/go/schemas/irpa"
	"github.com/gree-ml/gree/go/status"
)

// Format names a parameter file format.
type Format string

// The formats Open reads.
const (
	FormatIRPA        Format = "irpa"
	FormatSafetensors Format = "safetensors"
	FormatGGUF        Format = "gguf"
)

// StorageKind says where an entry's bytes come from.
type StorageKind uint8

// Storage kinds.
const (
	// StorageFile entries are a range of the file.
	StorageFile StorageKind = iota
	// StorageSplat entries repeat a pattern of 1–16 bytes; they have no
	// storage in the file.
	StorageSplat
)

// Entry is one named parameter of a file.
type Entry struct {
	Key    string
	Length uint64
	Kind   StorageKind
	// Offset is the absolute byte offset of a StorageFile entry's data in
	// its file.
	Offset uint64
	// Pattern is a StorageSplat entry's little-endian pattern.
	Pattern []byte
	// Metadata is the entry's opaque metadata blob (.irpa), or nil.
	Metadata []byte
	// DType and Shape are the element type and dimensions the file
	// declares (.safetensors dtype names such as "F32"; GGUF type names
	// such as "F32" or "Q4_0"); empty for .irpa, which has none.
	DType string
	Shape []int64

	file *File
}

// File is an open, memory-mapped parameter file.
type File struct {
	Path    string
	Format  Format
	Entries []*Entry
	// Metadata holds a GGUF file's key/value pairs and a safetensors
	// file's __metadata__ strings, as text.
	Metadata map[string]string

	data   []byte // the read-only mapping (nil for an empty file)
	mapped bool
}

// Open maps path read-only and indexes its entries. The format comes from
// the file's magic bytes (IRPA, GGUF) or else its extension
// (.safetensors); an unknown format, or a malformed or truncated file, is
// an error naming the file.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, status.Errorf(status.NotFound, "params: cannot open parameter file: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, status.Errorf(status.Unavailable, "params: %s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, status.Errorf(status.InvalidArgument, "params: %s is not a regular file", path)
	}
	pf := &File{Path: path}
	if pf.data, err = mapReadOnly(int(f.Fd()), st.Size(), path); err != nil {
		return nil, err
	}
	pf.mapped = pf.data != nil
	if err := pf.index(); err != nil {
		pf.Close()
		return nil, err
	}
	return pf, nil
}

// FromBytes indexes a parameter file already in memory (name is used in
// errors and to pick the format by extension). data must stay unchanged
// while the File is used.
func FromBytes(name string, data []byte) (*File, error) {
	pf := &File{Path: name, data: data}
	if err := pf.index(); err != nil {
		return nil, err
	}
	return pf, nil
}

// DetectFormat returns the format of a file from its first bytes and its
// name, or "" when neither says.
func DetectFormat(name string, head []byte) Format {
	switch {
	case len(head) >= 4 && string(head[:4]) == irpa.Magic:
		return FormatIRPA
	case len(head) >= 4 && string(head[:4]) == ggufMagic:
		return FormatGGUF
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".irpa":
		return FormatIRPA
	case ".gguf":
		return FormatGGUF
	case ".safetensors":
		return FormatSafetensors
	}
	if len(head) >= 9 && head[8] == '{' {
		return FormatSafetensors
	}
	return ""
}

func (pf *File) index() error {
	pf.Format = DetectFormat(pf.Path, pf.data[:min(len(pf.data), 16)])
	if pf.Format == "" {
		return status.Errorf(status.InvalidArgument, "params: %s is not a parameter file gree reads (.irpa, .safetensors or .gguf; neither its first bytes nor its extension name one)", pf.Path)
	}
	var err error
	if pf.Entries, pf.Metadata, err = parseFormat(pf.Format, pf.data); err != nil {
		return status.Errorf(status.CodeOf(err), "params: %s (%s): %s", pf.Path, pf.Format, message(err))
	}
	for _, e := range pf.Entries {
		e.file = pf
	}
	return nil
}

// parseFormat indexes data as a file of format (the caller names the file
// in errors).
func parseFormat(format Format, data []byte) ([]*Entry, map[string]string, error) {
	switch format {
	case FormatIRPA:
		e, err := parseIRPA(data)
		return e, nil, err
	case FormatSafetensors:
		return parseSafetensors(data)
	case FormatGGUF:
		return parseGGUF(data)
	}
	return nil, nil, status.Errorf(status.InvalidArgument, "no parser for parameter file format '%s' (gree reads irpa, safetensors and gguf)", format)
}

// mapReadOnly maps the size bytes of the file open as fd (named path in
// errors) read-only; an empty file maps to nil.
func mapReadOnly(fd int, size int64, path string) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if size != int64(int(size)) {
		return nil, status.Errorf(status.OutOfRange, "params: %s: %d bytes do not fit in this process's address space", path, size)
	}
	d, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, status.Errorf(status.ResourceExhausted, "params: %s: mapping %d bytes: %v", path, size, err)
	}
	return d, nil
}

// Close unmaps the file. Byte slices from Data must not be used after it.
func (pf *File) Close() error {
	if pf.mapped && pf.data != nil {
		d := pf.data
		pf.data, pf.mapped = nil, false
		return unix.Munmap(d)
	}
	pf.data = nil
	return nil
}

// Lookup returns the first entry named key, or nil.
func (pf *File) Lookup(key string) *Entry {
	for _, e := range pf.Entries {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// File returns the file the entry belongs to.
func (e *Entry) File() *File { return e.file }

// Data returns a StorageFile entry's bytes: a slice of the file's mapping,
// not a copy, valid until the file is closed. A splat entry has no bytes
// in the file: use Materialize.
func (e *Entry) Data() ([]byte, error) {
	if e.Kind != StorageFile {
		return nil, status.Errorf(status.FailedPrecondition, "params: %s: entry '%s' is a splat with no storage in the file", e.path(), e.Key)
	}
	if e.file == nil || e.file.data == nil && e.Length > 0 {
		return nil, status.Errorf(status.FailedPrecondition, "params: %s: entry '%s': the file is closed", e.path(), e.Key)
	}
	return e.file.data[e.Offset : e.Offset+e.Length : e.Offset+e.Length], nil
}

// FillSplat writes a splat entry's pattern repeated over dst.
func FillSplat(dst, pattern []byte) {
	if len(pattern) == 0 {
		clear(dst)
		return
	}
	if len(dst) < len(pattern) {
		copy(dst, pattern)
		return
	}
	n := copy(dst, pattern)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// String describes the entry for listings and errors.
func (e *Entry) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "'%s' (%d bytes", e.Key, e.Length)
	if e.Kind == StorageSplat {
		fmt.Fprintf(&b, ", splat 0x%x", e.Pattern)
	}
	if e.DType != "" {
		fmt.Fprintf(&b, ", %s %v", e.DType, e.Shape)
	}
	b.WriteString(")")
	return b.String()
}

func (e *Entry) path() string {
	if e.file == nil {
		return "<no file>"
	}
	return e.file.Path
}

// corrupt is the error of a malformed file (the caller adds the path).
func corrupt(format string, args ...any) error {
	return status.Errorf(status.DataLoss, format, args...)
}

// message returns err's text without its status code prefix.
func message(err error) string {
	var se *status.Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

// inFile reports whether [off, off+n) lies within a file of size bytes,
// without overflow.
func inFile(off, n, size uint64) bool {
	return off <= size && n <= size-off
}
