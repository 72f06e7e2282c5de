package main

/*
#include "internal.h"

// Go cannot call C function pointers: these call a host module's
// callbacks. User data and states travel as integers on the Go side (a
// caller may pass any value, which Go must never take for a pointer).
static inline gree_status_t gree__host_alloc_state(gree_host_alloc_state_fn_t fn, uintptr_t user, uintptr_t* out_state) {
  void* state = NULL;
  gree_status_t st = fn((void*)user, &state);
  *out_state = (uintptr_t)state;
  return st;
}
static inline void gree__host_free_state(gree_host_free_state_fn_t fn, uintptr_t user, uintptr_t state) {
  if (fn) fn((void*)user, (void*)state);
}
static inline gree_status_t gree__host_call(gree_host_call_fn_t fn, uintptr_t user, uintptr_t state, size_t function, gree_value_list_t args, gree_value_list_t results) {
  return fn((void*)user, (void*)state, function, args, results);
}
static inline void gree__host_destroy(gree_host_destroy_fn_t fn, uintptr_t user) {
  if (fn) fn((void*)user);
}
static inline const char* gree__host_string_at(const char* const* list, size_t i) { return list[i]; }
*/
import "C"

import (
	"runtime"
	"slices"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// Host modules (gree_host_module_create): a vm.HostModule whose functions
// and lifecycle hooks call the C callbacks. A gree_module_t names it like a
// loaded module (the handle holds one reference to it).

// hostGlue is the C side of one host module: its callbacks and user data.
type hostGlue struct {
	name string
	cb   C.gree_host_module_callbacks_t
	user C.uintptr_t
}

// hostState is the module's state in one context: the C state and the
// context (whose device the calls hand buffers over to).
type hostState struct {
	c     C.uintptr_t
	vmctx *vm.Context
}

//export gree_host_module_create
func gree_host_module_create(name *C.char, count C.size_t, names, cconvs **C.char, cb *C.gree_host_module_callbacks_t, user unsafe.Pointer, out *C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || name == nil || cb == nil || (count > 0 && (names == nil || cconvs == nil)) {
		return invalidArg("name, callbacks and out_module (and function_names and calling_conventions when function_count > 0) must not be NULL")
	}
	*out = nil
	if cb.call == nil && count > 0 {
		return invalidArg("callbacks->call must not be NULL")
	}
	if count > 1<<20 {
		return invalidArg("%d functions is more than a module may export", count)
	}
	g := &hostGlue{name: C.GoString(name), cb: *cb, user: C.uintptr_t(uintptr(user))}
	var funcs []vm.HostFunc
	for i := 0; i < int(count); i++ {
		n, cc := C.gree__host_string_at(names, C.size_t(i)), C.gree__host_string_at(cconvs, C.size_t(i))
		if n == nil || cc == nil {
			return invalidArg("function %d: name and calling convention must not be NULL", i)
		}
		args, results, err := vm.ParseCConv(C.GoString(cc))
		if err != nil {
			return toStatus(status.Annotate(err, "host module '%s', function '%s'", g.name, C.GoString(n)))
		}
		f := vm.HostFunc{Name: C.GoString(n), Args: args, Results: results}
		f.Call = g.caller(i, f)
		funcs = append(funcs, f)
	}
	h, err := vm.NewHostModule(g.name, funcs, vm.HostHooks{NewState: g.newState, FreeState: g.freeState, Destroy: g.destroy})
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_module_t)(newHostModuleHandle(h))
	return nil
}

// newHostModuleHandle returns a module handle for h, with the C strings
// gree_module_function_info hands out; the handle holds the reference
// NewHostModule returned.
func newHostModuleHandle(h *vm.HostModule) unsafe.Pointer {
	sigs := h.Signatures()
	// An empty bytecode module stands in for the module's file, so that
	// the accessors of a module's file see a module without executables.
	mod := &module{m: h.Module(), host: h, name: C.CString(h.Name())}
	strs := []*C.char{mod.name}
	for i := range sigs {
		mod.names = append(mod.names, C.CString(sigs[i].Name))
		mod.cconv = append(mod.cconv, C.CString(ireeCConv(sigs[i].CConv())))
		mod.decl = append(mod.decl, C.CString(""))
		mod.refl = append(mod.refl, nil)
	}
	for _, l := range [][]*C.char{mod.names, mod.cconv, mod.decl} {
		strs = append(strs, l...)
	}
	return newHandle(kindModule, mod, strs...)
}

func (g *hostGlue) newState(c *vm.Context) (any, error) {
	var cs C.uintptr_t
	if g.cb.alloc_state != nil {
		if err := fromStatus(C.gree__host_alloc_state(g.cb.alloc_state, g.user, &cs), g.name+" alloc_state"); err != nil {
			return nil, err
		}
	}
	return &hostState{c: cs, vmctx: c}, nil
}

func (g *hostGlue) freeState(state any) {
	if s, ok := state.(*hostState); ok {
		C.gree__host_free_state(g.cb.free_state, g.user, s.c)
	}
}

func (g *hostGlue) destroy() { C.gree__host_destroy(g.cb.destroy, g.user) }

// caller returns the implementation of function i (f): the arguments go
// to the callback in a list it borrows; the results it pushes are checked
// against f's signature.
func (g *hostGlue) caller(i int, f vm.HostFunc) func(state any, args []vm.Value) ([]vm.Value, error) {
	what := g.name + "." + f.Name
	return func(state any, args []vm.Value) ([]vm.Value, error) {
		s := state.(*hostState)
		handOver(s.vmctx, args)
		in := newList(&vm.List{Items: slices.Clone(args)})
		defer gree_value_list_release(in)
		out := newList(&vm.List{})
		defer gree_value_list_release(out)
		if err := fromStatus(C.gree__host_call(g.cb.call, g.user, s.c, C.size_t(i), in, out), what); err != nil {
			return nil, err
		}
		l, err := listOf(out)
		if err != nil {
			return nil, err
		}
		return hostResults(what, len(f.Results), l.Items)
	}
}

// hostResults checks the count of the values a host function pushed and
// gives each reference one the VM holds while it uses it (see
// holdWhileReachable): the result list's own go when the list is
// released. The VM converts the values to the signature's kinds.
func hostResults(what string, want int, vals []vm.Value) ([]vm.Value, error) {
	if len(vals) != want {
		return nil, status.Errorf(status.InvalidArgument, "%s pushed %d results; its signature has %d", what, len(vals), want)
	}
	out := make([]vm.Value, len(vals))
	for i, v := range vals {
		if v.Kind == vm.KindRef {
			v = holdWhileReachable(v)
		}
		out[i] = v
	}
	return out, nil
}

// holdWhileReachable takes a reference to the buffers of v that goes when
// the object v refers to is no longer reachable: the VM keeps no count of
// the references its registers hold, so a buffer a host function returned
// (perhaps its only holder) lives as long as the VM or anyone else can
// reach it. A bare buffer is replaced by a subspan over all of it (whose
// reachability decides).
func holdWhileReachable(v vm.Value) vm.Value {
	switch r := v.Ref.(type) {
	case *hal.BufferView:
		if r != nil && r.Buffer != nil && r.Buffer.Retain() == nil {
			runtime.AddCleanup(r, func(b *hal.Buffer) { b.Release() }, r.Buffer)
		}
	case *vm.List:
		if r != nil {
			items := slices.Clone(r.Items)
			for _, it := range items {
				retainValue(it)
			}
			runtime.AddCleanup(r, func(items []vm.Value) {
				for _, it := range items {
					releaseValue(it)
				}
			}, items)
		}
	case *hal.Buffer:
		if r != nil {
			if sub, err := r.Subspan(0, r.ByteLength()); err == nil {
				runtime.AddCleanup(sub, func(b *hal.Buffer) { b.Release() }, r)
				return vm.RefValue(sub)
			}
		}
	}
	return v
}

// disowner is the device bridge's hand-over of buffers it allocated
// (halmodule.Device.Disown).
type disowner interface {
	Disown(refs, keep []any)
	Recyclable(ref any) bool
}

// handOver gives the host the buffer views among args that the context's
// device would otherwise recycle once the program is done with them: a
// host function may keep what it is given (Python may store it), so those
// buffers leave the device's cache and are held while reachable instead.
func handOver(c *vm.Context, args []vm.Value) {
	d, ok := c.Device().(disowner)
	if !ok {
		return
	}
	for _, a := range args {
		if bv, ok := a.Ref.(*hal.BufferView); ok && bv != nil && d.Recyclable(bv) {
			holdWhileReachable(a)
			d.Disown([]any{bv}, nil)
		}
	}
}
