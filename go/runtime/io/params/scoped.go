package params

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// IndexProvider serves the parameters of one scope from an Index, as
// IREE's iree_io_parameter_index_provider: a program's
// #flow.parameter.named<"scope"::"key"> resolves to the entry named key
// of the index of the provider of that scope. The index is live: entries
// added to it later are served too. Reference counted; the provider holds
// a reference to its index.
type IndexProvider struct {
	scope string
	index *Index
	refs  atomic.Int64
}

// NewIndexProvider returns a provider of scope ("" is the global scope)
// over x, with one reference (the caller's).
func NewIndexProvider(scope string, x *Index) (*IndexProvider, error) {
	if x == nil {
		return nil, status.New(status.InvalidArgument, "a parameter provider needs an index")
	}
	if err := x.Retain(); err != nil {
		return nil, err
	}
	p := &IndexProvider{scope: scope, index: x}
	p.refs.Store(1)
	return p, nil
}

// Scope returns the scope the provider serves.
func (p *IndexProvider) Scope() string { return p.scope }

// Index returns the provider's index.
func (p *IndexProvider) Index() *Index { return p.index }

// Retain adds a reference; it fails once the provider was freed.
func (p *IndexProvider) Retain() error {
	for {
		n := p.refs.Load()
		if n <= 0 {
			return status.Errorf(status.FailedPrecondition, "the parameter provider of scope '%s' was released; it cannot be used again", p.scope)
		}
		if p.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops a reference; the last one releases the index.
func (p *IndexProvider) Release() {
	for {
		n := p.refs.Load()
		if n <= 0 {
			return
		}
		if p.refs.CompareAndSwap(n, n-1) {
			if n == 1 {
				p.index.Release()
			}
			return
		}
	}
}

// ProviderSet resolves parameters from providers, as IREE's io_parameters
// module: a (scope, key) is served by the first provider of that scope.
// It implements the runtime's parameter source (vm.ParameterSource).
type ProviderSet []*IndexProvider

// Parameter returns a copy of the bytes of key in scope, which must be
// exactly length bytes, aligned to 64 bytes (any align asked). The copy is memory
// the Go runtime owns: buffers made from it (a program's globals, results
// that alias them) keep it alive after the index and its file handles are
// released. A missing scope or key is NOT_FOUND, a length mismatch
// INVALID_ARGUMENT; a file that cannot be read is an error naming it and
// the entry.
func (s ProviderSet) Parameter(scope, key string, length, align int64) ([]byte, error) {
	var p *IndexProvider
	for _, c := range s {
		if c.scope == scope {
			p = c
			break
		}
	}
	if p == nil {
		return nil, status.Errorf(status.NotFound, "parameter %s: no parameter provider serves scope '%s' (%s)", describeKey(scope, key), scope, s.describeScopes())
	}
	e := p.index.Lookup(key)
	if e == nil {
		return nil, status.Errorf(status.NotFound, "parameter %s not found: the index of scope '%s' has no entry '%s' (%d entries)", describeKey(scope, key), scope, key, p.index.Len())
	}
	if uint64(length) != e.Length {
		return nil, status.Errorf(status.InvalidArgument, "parameter %s is %d bytes%s, but the program expects %d bytes", describeKey(scope, key), e.Length, describeType(&e.Entry), length)
	}
	buf, err := alignedBytes(length, fmt.Sprintf("parameter %s", describeKey(scope, key)))
	if err != nil {
		return nil, err
	}
	if e.Kind == StorageSplat {
		FillSplat(buf, e.Pattern)
		return buf, nil
	}
	if err := e.Handle.ReadAt(buf, e.Offset); err != nil {
		return nil, status.Annotate(err, "parameter %s", describeKey(scope, key))
	}
	return buf, nil
}

func (s ProviderSet) describeScopes() string {
	if len(s) == 0 {
		return "no providers were given"
	}
	var names []string
	for _, p := range s {
		if p.scope == "" {
			names = append(names, "'' (global)")
		} else {
			names = append(names, "'"+p.scope+"'")
		}
	}
	return "providers serve " + strings.Join(names, ", ")
}

// alignedBytes returns n zeroed bytes of Go memory whose start is aligned
// to 64 bytes, for what (in errors).
func alignedBytes(n int64, what string) ([]byte, error) {
	const align = 64
	if err := hal.CheckHostAllocation(n+align, what); err != nil {
		return nil, err
	}
	b := make([]byte, n+align)
	off := 0
	if r := uintptr(unsafe.Pointer(unsafe.SliceData(b))) % align; r != 0 {
		off = int(align - r)
	}
	return b[off : off+int(n) : off+int(n)], nil
}
