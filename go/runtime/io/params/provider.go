package params

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Provider resolves parameters by scope and key over the files given to
// it, as IREE's --parameters flags build one index per scope: a file added
// without a scope serves the global ("") scope, and several files may
// serve one scope (the first that has a key wins). It owns the files and
// any splat values it materializes; Close releases them.
type Provider struct {
	mu     sync.Mutex
	scopes []*scopeIndex
	frees  []func()
	// made holds the buffers made for splats and copied entries, shared
	// by every later request (the runtime never writes them).
	made map[*Entry][]byte
	// Preload copies file entries into memory instead of using the
	// mapping (IREE's --parameter_mode=preload).
	Preload bool
	// Copied counts the file entries Parameter copied because their
	// bytes in the file were not aligned as asked.
	Copied int
}

type scopeIndex struct {
	name  string
	files []*File
	byKey map[string]*Entry
}

// ParseFlag splits a --parameters value "[scope=]path".
func ParseFlag(v string) (scope, path string) {
	if i := strings.IndexByte(v, '='); i >= 0 {
		return v[:i], v[i+1:]
	}
	return "", v
}

// AddFlag opens the file a --parameters value names and adds it.
func (p *Provider) AddFlag(v string) error {
	scope, path := ParseFlag(v)
	if path == "" {
		return status.Errorf(status.InvalidArgument, "--parameters=%s names no file (the form is [scope=]file.irpa|.safetensors|.gguf)", v)
	}
	f, err := Open(path)
	if err != nil {
		return err
	}
	p.Add(scope, f)
	return nil
}

// Add adds an open file to scope; the provider closes it.
func (p *Provider) Add(scope string, f *File) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.scope(scope)
	if s == nil {
		s = &scopeIndex{name: scope, byKey: map[string]*Entry{}}
		p.scopes = append(p.scopes, s)
	}
	s.files = append(s.files, f)
	for _, e := range f.Entries {
		if _, dup := s.byKey[e.Key]; !dup {
			s.byKey[e.Key] = e
		}
	}
}

func (p *Provider) scope(name string) *scopeIndex {
	for _, s := range p.scopes {
		if s.name == name {
			return s
		}
	}
	return nil
}

// Empty reports whether no file was added.
func (p *Provider) Empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.scopes) == 0
}

// Lookup returns the entry of key in scope. A missing key is NOT_FOUND
// naming the scope, the key and the files given.
func (p *Provider) Lookup(scope, key string) (*Entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.scope(scope); s != nil {
		if e := s.byKey[key]; e != nil {
			return e, nil
		}
	}
	return nil, status.Errorf(status.NotFound, "parameter %s not found in %s", describeKey(scope, key), p.describeFiles())
}

func describeKey(scope, key string) string {
	if scope == "" {
		return fmt.Sprintf("'%s' (global scope)", key)
	}
	return fmt.Sprintf("'%s::%s'", scope, key)
}

func (p *Provider) describeFiles() string {
	if len(p.scopes) == 0 {
		return "no parameter files (give them with --parameters=[scope=]file)"
	}
	var parts []string
	for _, s := range p.scopes {
		for _, f := range s.files {
			if s.name == "" {
				parts = append(parts, f.Path)
			} else {
				parts = append(parts, s.name+"="+f.Path)
			}
		}
	}
	return "the parameter files given: " + strings.Join(parts, ", ")
}

// Parameter returns the bytes of key in scope, which must be exactly
// length bytes: for a file entry whose bytes in the mapping are aligned to
// align a slice of the mapping (no copy; valid until Close); for a splat,
// a misaligned entry or in preload mode a buffer the provider fills and
// keeps until Close.
func (p *Provider) Parameter(scope, key string, length, align int64) ([]byte, error) {
	e, err := p.Lookup(scope, key)
	if err != nil {
		return nil, err
	}
	if uint64(length) != e.Length {
		return nil, status.Errorf(status.InvalidArgument, "parameter %s in %s is %d bytes%s, but the program expects %d bytes", describeKey(scope, key), e.path(), e.Length, describeType(e), length)
	}
	if e.Kind == StorageFile && !p.Preload {
		d, err := e.Data()
		if err != nil || len(d) == 0 || align <= 1 || uintptr(unsafe.Pointer(&d[0]))%uintptr(align) == 0 {
			return d, err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.made[e]; ok {
		return b, nil
	}
	var d []byte
	if e.Kind == StorageFile {
		if d, err = e.Data(); err != nil {
			return nil, err
		}
		if !p.Preload {
			p.Copied++
		}
	}
	buf, free, err := hal.AllocHost(int64(e.Length), fmt.Sprintf("parameter %s", describeKey(scope, key)))
	if err != nil {
		return nil, err
	}
	p.frees = append(p.frees, free)
	if e.Kind == StorageSplat {
		FillSplat(buf, e.Pattern)
	} else {
		copy(buf, d)
	}
	if p.made == nil {
		p.made = map[*Entry][]byte{}
	}
	p.made[e] = buf
	return buf, nil
}

func describeType(e *Entry) string {
	if e.DType != "" {
		return fmt.Sprintf(" (%s %v)", e.DType, e.Shape)
	}
	if e.Kind == StorageSplat {
		return " (a splat)"
	}
	return ""
}

// Close unmaps every file and frees materialized values. Nothing the
// provider returned may be used afterwards.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, s := range p.scopes {
		for _, f := range s.files {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	for _, f := range p.frees {
		f()
	}
	p.scopes, p.frees, p.made = nil, nil, nil
	return first
}

// Dump prints each scope's index as IREE's iree-dump-parameters does: a
// banner with the scope, entry count and total bytes, then each entry's
// start, end and length in its file (splats have none) and key.
func (p *Provider) Dump(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.scopes {
		var entries []*Entry
		for _, f := range s.files {
			entries = append(entries, f.Entries...)
		}
		DumpIndex(w, s.name, entries)
	}
}

// DumpFile prints the entries of the parameter file at path in IREE's
// format (the tools that write an archive list it so).
func DumpFile(w io.Writer, path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	DumpIndex(w, "", f.Entries)
	return nil
}

// DumpIndex prints one scope's entries in IREE's format.
func DumpIndex(w io.Writer, scope string, entries []*Entry) {
	total := uint64(0)
	for _, e := range entries {
		total += e.Length
	}
	fmt.Fprintln(w, "//===--------------------------------------------------------------------------------------------------------------===//")
	name := "<global>"
	if scope != "" {
		name = "`" + scope + "`"
	}
	fmt.Fprintf(w, "// Parameter scope %s (%d entries, %d total bytes)\n", name, len(entries), total)
	fmt.Fprintln(w, "//===------------+------------------+------------------+-----------------------------------------------------------===//")
	fmt.Fprintln(w, "//         Start |              End |           Length | Key")
	fmt.Fprintln(w, "//---------------+------------------+------------------+--------------------------------------------------------------//")
	for _, e := range entries {
		if e.Kind == StorageSplat {
			fmt.Fprintf(w, "               - |                - | %16d | `%s`\n", e.Length, e.Key)
		} else {
			fmt.Fprintf(w, "%16d | %16d | %16d | `%s`\n", e.Offset, e.Offset+e.Length, e.Length, e.Key)
		}
	}
	fmt.Fprintln(w)
}

// Each calls fn for every entry of every file, scope by scope in the
// order given.
func (p *Provider) Each(fn func(scope string, e *Entry) error) error {
	p.mu.Lock()
	scopes := append([]*scopeIndex(nil), p.scopes...)
	p.mu.Unlock()
	for _, s := range scopes {
		for _, f := range s.files {
			for _, e := range f.Entries {
				if err := fn(s.name, e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
