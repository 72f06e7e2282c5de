package params

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/schemas/irpa"
	"github.com/gree-ml/gree/go/status"
)

// IndexEntry is one parameter of an Index: a key, a length and metadata,
// with its bytes either a range [Offset, Offset+Length) of Handle
// (StorageFile) or a repeated Pattern (StorageSplat).
type IndexEntry struct {
	Entry
	// Handle holds a StorageFile entry's bytes (the index holds a
	// reference to it).
	Handle *FileHandle
}

// Index is an in-memory list of parameters, as IREE's
// iree_io_parameter_index_t: entries added one by one (a splat, a range
// of a file handle) or by parsing a parameter file. Entries are never
// changed or removed; keys may repeat (lookups find the first). It is
// reference counted: the last Release releases the file handles of its
// entries. Safe for concurrent use.
type Index struct {
	mu      sync.RWMutex
	entries []*IndexEntry
	refs    atomic.Int64
}

// NewIndex returns an empty index with one reference (the caller's).
func NewIndex() *Index {
	x := &Index{}
	x.refs.Store(1)
	return x
}

// Retain adds a reference; it fails once the index was freed.
func (x *Index) Retain() error {
	for {
		n := x.refs.Load()
		if n <= 0 {
			return status.New(status.FailedPrecondition, "the parameter index was released; it cannot be used again")
		}
		if x.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops a reference; the last one releases the file handles of
// the entries. Releasing more than was retained does nothing.
func (x *Index) Release() {
	for {
		n := x.refs.Load()
		if n <= 0 {
			return
		}
		if x.refs.CompareAndSwap(n, n-1) {
			if n == 1 {
				x.mu.Lock()
				entries := x.entries
				x.entries = nil
				x.mu.Unlock()
				releaseHandles(entries)
			}
			return
		}
	}
}

// Reserve makes room for n entries in all.
func (x *Index) Reserve(n int) error {
	if n < 0 || n > 1<<32 {
		return status.Errorf(status.InvalidArgument, "cannot reserve %d parameter index entries", n)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if n > len(x.entries) {
		x.entries = slices.Grow(x.entries, n-len(x.entries))
	}
	return nil
}

// Len returns the number of entries.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// Entry returns entry i; past the end is OUT_OF_RANGE.
func (x *Index) Entry(i int) (*IndexEntry, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if i < 0 || i >= len(x.entries) {
		return nil, status.Errorf(status.OutOfRange, "entry %d out of range (have %d entries in the index)", i, len(x.entries))
	}
	return x.entries[i], nil
}

// Entries returns the entries added so far.
func (x *Index) Entries() []*IndexEntry {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return slices.Clone(x.entries)
}

// Lookup returns the first entry named key, or nil.
func (x *Index) Lookup(key string) *IndexEntry {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, e := range x.entries {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// AddSplat adds an entry of length bytes repeating pattern (1, 2, 4, 8 or
// 16 bytes dividing length). pattern and metadata are copied.
func (x *Index) AddSplat(key string, pattern []byte, length uint64, metadata []byte) error {
	if !irpa.ValidPattern(uint64(len(pattern)), length) {
		return status.Errorf(status.InvalidArgument, "parameter '%s': a splat pattern of %d bytes cannot fill %d bytes: the pattern must be 1, 2, 4, 8 or 16 bytes and divide the length", key, len(pattern), length)
	}
	return x.add(&IndexEntry{Entry: Entry{Key: key, Length: length, Kind: StorageSplat, Pattern: slices.Clone(pattern), Metadata: slices.Clone(metadata)}})
}

// AddFile adds an entry whose bytes are [offset, offset+length) of h,
// which must lie within it; the index takes a reference to h. metadata is
// copied.
func (x *Index) AddFile(key string, h *FileHandle, offset, length uint64, metadata []byte) error {
	if h == nil {
		return status.Errorf(status.InvalidArgument, "parameter '%s': no file handle", key)
	}
	size, err := h.Size()
	if err != nil {
		return err
	}
	if !inFile(offset, length, size) {
		return status.Errorf(status.OutOfRange, "parameter '%s': [%d, +%d) lies outside the %d bytes of %s", key, offset, length, size, h.Name())
	}
	if err := h.Retain(); err != nil {
		return err
	}
	e := &IndexEntry{Entry: Entry{Key: key, Length: length, Kind: StorageFile, Offset: offset, Metadata: slices.Clone(metadata)}, Handle: h}
	if err := x.add(e); err != nil {
		h.Release()
		return err
	}
	return nil
}

func (x *Index) add(entries ...*IndexEntry) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.refs.Load() <= 0 {
		return status.New(status.FailedPrecondition, "the parameter index was released; it cannot be used again")
	}
	x.entries = append(x.entries, entries...)
	return nil
}

// ParseFormat returns the format a format name given by a caller names
// ("irpa", ".gguf", "safetensors"; "" is detected from the file).
func ParseFormat(name string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimPrefix(name, ".")))
	switch f {
	case "", FormatIRPA, FormatSafetensors, FormatGGUF:
		return f, nil
	}
	return "", status.Errorf(status.InvalidArgument, "no parser for parameter file format '%s' (gree reads irpa, safetensors and gguf)", name)
}

// Load parses the parameter file h holds and adds its entries (ranges of
// h). format "" detects it from the file's first bytes or the handle's
// name. A malformed or truncated file is an error naming the file and
// the entry, and adds nothing.
func (x *Index) Load(h *FileHandle, format Format) error {
	return x.loadAt(h, format, 0)
}

// loadAt parses the file that starts at base in h.
func (x *Index) loadAt(h *FileHandle, format Format, base uint64) error {
	if h == nil {
		return status.New(status.InvalidArgument, "no file handle to load parameters from")
	}
	return h.view(func(data []byte) error {
		if base > uint64(len(data)) {
			return status.Errorf(status.OutOfRange, "params: %s: offset %d lies past its %d bytes", h.Name(), base, len(data))
		}
		data = data[base:]
		if format == "" {
			if format = DetectFormat(filepath.Base(h.Name()), data[:min(len(data), 16)]); format == "" {
				return status.Errorf(status.InvalidArgument, "params: %s is not a parameter file gree reads (.irpa, .safetensors or .gguf; neither its first bytes nor its name say which; give the format)", h.Name())
			}
		}
		parsed, _, err := parseFormat(format, data)
		if err != nil {
			return status.Errorf(status.CodeOf(err), "params: %s (%s): %s", h.Name(), format, message(err))
		}
		entries := make([]*IndexEntry, 0, len(parsed))
		for _, e := range parsed {
			ie := &IndexEntry{Entry: *e}
			// The metadata may point into a mapping made for this call.
			ie.Metadata, ie.file = slices.Clone(e.Metadata), nil
			if e.Kind == StorageFile {
				if err := h.Retain(); err != nil {
					releaseHandles(entries)
					return err
				}
				ie.Handle, ie.Offset = h, e.Offset+base
			}
			entries = append(entries, ie)
		}
		if err := x.add(entries...); err != nil {
			releaseHandles(entries)
			return err
		}
		return nil
	})
}

// releaseHandles drops the references entries hold to their handles.
func releaseHandles(entries []*IndexEntry) {
	for _, e := range entries {
		if e.Handle != nil {
			e.Handle.Release()
		}
	}
}

// Dump prints the index as IREE's iree_io_parameter_index_dump does (see
// DumpIndex), under scope ("" is the global scope).
func (x *Index) Dump(w io.Writer, scope string) {
	entries := x.Entries()
	list := make([]*Entry, len(entries))
	for i, e := range entries {
		list[i] = &e.Entry
	}
	DumpIndex(w, scope, list)
}
