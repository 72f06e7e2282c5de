package parser

import (
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// ParseFunc parses the custom assembly of one operation: everything after
// the op name up to (not including) an optional trailing loc(…). It fills
// st (operands, result types, attributes, regions, successors) through the
// OpParser API; st.Name and st.Loc are already set. The number of results
// must match the names the user bound (OpParser.NumResults) when there are
// any; the parser checks that afterwards.
type ParseFunc func(p *OpParser, st *ir.OperationState) error

// Registry maps operation names ("arith.addf") to their custom syntax.
// It is safe for concurrent use.
type Registry struct {
	mu  sync.RWMutex
	ops map[string]ParseFunc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{ops: map[string]ParseFunc{}} }

var defaultRegistry = NewRegistry()

// Default returns the process-wide registry that Parse uses, holding the
// syntaxes of this package (builtin, func, arith, math, tensor, util and
// check ops) and whatever other packages add with Register.
func Default() *Registry { return defaultRegistry }

// Register adds (or replaces) the custom syntax of the op called name in
// the default registry. Dialect packages call it from init.
func Register(name string, fn ParseFunc) { defaultRegistry.Register(name, fn) }

// Register adds (or replaces) the custom syntax of the op called name.
func (r *Registry) Register(name string, fn ParseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops[name] = fn
}

// Lookup returns the syntax registered for name.
func (r *Registry) Lookup(name string) (ParseFunc, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	fn, ok := r.ops[name]
	return fn, ok
}

// Clone returns a copy of r, to extend without touching r.
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := NewRegistry()
	for k, v := range r.ops {
		c.ops[k] = v
	}
	return c
}

// Names returns the registered op names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedKeys(r.ops)
}

// defaultDialects are tried, in order, for op names written without a
// dialect prefix ("module", "return", "call").
var defaultDialects = []string{"builtin.", "func."}

// resolve returns the full name and syntax of the op written as name.
func (r *Registry) resolve(name string) (string, ParseFunc) {
	if fn, ok := r.Lookup(name); ok {
		return name, fn
	}
	if !strings.Contains(name, ".") {
		for _, d := range defaultDialects {
			if fn, ok := r.Lookup(d + name); ok {
				return d + name, fn
			}
		}
	}
	return "", nil
}

// registerOwn registers one of this package's syntaxes and, unless ir
// already knows the op, records it in ir as a registered op with no
// special traits, so the verifier knows it is not a terminator.
func registerOwn(name string, fn ParseFunc) {
	Register(name, fn)
	if _, ok := ir.LookupOp(name); !ok {
		ir.RegisterOp(name, ir.OpInfo{})
	}
}
