package vm

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// Host modules. A host module is a module whose functions the program
// embedding the runtime implements (IREE's native modules, and the Python
// modules of iree.runtime.PyModuleInterface): its functions are callbacks
// with IREE calling-convention signatures. It is registered in a context
// beside bytecode modules, which import its functions as they import the
// check module's; its functions can also be invoked directly.
//
// Life cycle, as IREE's iree_vm_module_t: the module is reference counted
// (NewHostModule returns it with one reference, each context it is
// registered in holds one more until the context is closed). Each context
// it is registered in gets a state of its own (HostHooks.NewState), passed
// to every call made in that context and freed when the context closes
// (FreeState); once the last reference goes, Destroy runs. No function of
// a context's state is called after its FreeState, nor any callback after
// Destroy.

// HostFunc is one exported function of a host module.
type HostFunc struct {
	// Name is the function's export name.
	Name string
	// Args and Results are its signature (see ParseCConv).
	Args, Results []module.Kind
	// Call runs the function for the state of the context it is called
	// in. args match Args; it returns values matching Results (a null
	// reference is allowed for a ref; integers and floats of the other
	// width are converted). Call may run on any goroutine,
	// several at once when calls run at once on a context.
	Call func(state any, args []Value) ([]Value, error)
}

// HostHooks are a host module's lifecycle callbacks; each may be nil.
type HostHooks struct {
	// NewState returns the module's state in context c, once per context
	// it is registered in; an error fails the registration.
	NewState func(c *Context) (any, error)
	// FreeState frees a state NewState returned, when its context closes.
	FreeState func(state any)
	// Destroy runs once, when the module's last reference is released.
	Destroy func()
}

// HostModule is a module implemented by host callbacks.
type HostModule struct {
	name  string
	funcs []HostFunc
	// sigs holds each function's name and signature as a module function
	// (for argument checks and calling conventions).
	sigs  []module.Function
	index map[string]int
	hooks HostHooks
	refs  atomic.Int64
}

// NewHostModule returns a host module named name exporting funcs, with one
// reference (the caller's). Names must be non-empty, without '.', and
// unique.
func NewHostModule(name string, funcs []HostFunc, hooks HostHooks) (*HostModule, error) {
	if name == "" || strings.ContainsAny(name, ". \t\n") {
		return nil, status.Errorf(status.InvalidArgument, "host module name %q must be non-empty, without dots or spaces (imports name functions module.function)", name)
	}
	h := &HostModule{name: name, index: map[string]int{}, hooks: hooks}
	for i, f := range funcs {
		if f.Name == "" {
			return nil, status.Errorf(status.InvalidArgument, "host module '%s': function %d has no name", name, i)
		}
		if _, dup := h.index[f.Name]; dup {
			return nil, status.Errorf(status.AlreadyExists, "host module '%s': function '%s' is defined twice", name, f.Name)
		}
		if f.Call == nil {
			return nil, status.Errorf(status.InvalidArgument, "host module '%s': function '%s' has no implementation", name, f.Name)
		}
		h.index[f.Name] = i
		h.funcs = append(h.funcs, f)
		h.sigs = append(h.sigs, module.Function{Name: f.Name, Args: f.Args, Results: f.Results})
	}
	h.refs.Store(1)
	return h, nil
}

// Name returns the module name.
func (h *HostModule) Name() string { return h.name }

// Signatures returns each function's name and signature, in export order
// (the function's Code is empty).
func (h *HostModule) Signatures() []module.Function {
	return append([]module.Function(nil), h.sigs...)
}

// Module returns an empty bytecode module named as h (no functions,
// imports or executables): what code that reads a module's file sees of a
// host module.
func (h *HostModule) Module() *Module {
	return &Module{Def: &module.Module{Name: h.name}}
}

// Retain adds a reference; it fails once the module was destroyed.
func (h *HostModule) Retain() error {
	for {
		n := h.refs.Load()
		if n <= 0 {
			return status.Errorf(status.FailedPrecondition, "host module '%s' was released; create it again", h.name)
		}
		if h.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops a reference; the last one runs the Destroy hook.
// Releasing more than was retained does nothing.
func (h *HostModule) Release() {
	for {
		n := h.refs.Load()
		if n <= 0 {
			return
		}
		if h.refs.CompareAndSwap(n, n-1) {
			if n == 1 && h.hooks.Destroy != nil {
				h.hooks.Destroy()
			}
			return
		}
	}
}

// Destroyed reports whether the last reference was released.
func (h *HostModule) Destroyed() bool { return h.refs.Load() <= 0 }

// ParseCConv parses an IREE calling convention into argument and result
// kinds: after the version '0' come the arguments, then, after '_', the
// results (none when there is no '_'); 'v' is void (no value) and i, I, f,
// F and r an i32, i64, f32, f64 and a reference ("0ii_i", "0v_v", "0rr",
// "0v_rr"). Variadic segments (C…D) are not supported.
func ParseCConv(cc string) (args, results []module.Kind, err error) {
	if !strings.HasPrefix(cc, "0") {
		return nil, nil, status.Errorf(status.InvalidArgument, "calling convention %q must start with the version 0 (e.g. \"0ii_i\")", cc)
	}
	a, r, _ := strings.Cut(cc[1:], "_")
	if args, err = cconvKinds(cc, a); err != nil {
		return nil, nil, err
	}
	if results, err = cconvKinds(cc, r); err != nil {
		return nil, nil, err
	}
	return args, results, nil
}

// cconvKinds returns the kinds of one fragment of calling convention cc.
func cconvKinds(cc, frag string) ([]module.Kind, error) {
	var out []module.Kind
	for i := 0; i < len(frag); i++ {
		switch c := frag[i]; c {
		case 'v':
		case 'i':
			out = append(out, module.KindI32)
		case 'I':
			out = append(out, module.KindI64)
		case 'f':
			out = append(out, module.KindF32)
		case 'F':
			out = append(out, module.KindF64)
		case 'r':
			out = append(out, module.KindRef)
		case 'C', 'D':
			return nil, status.Errorf(status.Unimplemented, "calling convention %q: variadic arguments and results (C…D) are not supported by host modules", cc)
		default:
			return nil, status.Errorf(status.InvalidArgument, "calling convention %q: unknown type %s (use v, i, I, f, F or r)", cc, fmt.Sprintf("%q", c))
		}
	}
	return out, nil
}
