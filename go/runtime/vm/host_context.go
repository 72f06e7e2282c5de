package vm

import (
	"fmt"
	"math"
	"sync"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// hostInstance is a host module registered in one context, with the
// state it has there. Bytecode modules import its functions as they
// import a native module's (it is one of the context's natives).
type hostInstance struct {
	h     *HostModule
	state any
	// mu orders calls (read side) before the state is freed (write side):
	// no function runs with a freed state.
	mu    sync.RWMutex
	freed bool
}

var _ NativeModule = (*hostInstance)(nil)

// Name returns the host module's name.
func (hi *hostInstance) Name() string { return hi.h.name }

// Lookup returns function name of the host module bound to the context's
// state.
func (hi *hostInstance) Lookup(name string) (NativeFunc, bool) {
	fi, ok := hi.h.index[name]
	if !ok {
		return NativeFunc{}, false
	}
	sig := &hi.h.sigs[fi]
	return NativeFunc{Args: sig.Args, Results: sig.Results, Call: func(args []Value) ([]Value, error) {
		return hi.call(fi, args)
	}}, true
}

// call runs function fi: its arguments are checked against its signature
// before, its results after.
func (hi *hostInstance) call(fi int, args []Value) ([]Value, error) {
	sig := &hi.h.sigs[fi]
	if err := checkArgs(sig, args); err != nil {
		return nil, err
	}
	hi.mu.RLock()
	defer hi.mu.RUnlock()
	if hi.freed {
		return nil, status.Errorf(status.FailedPrecondition, "%s.%s called after its context was closed", hi.h.name, sig.Name)
	}
	res, err := hi.h.funcs[fi].Call(hi.state, args)
	if err != nil {
		return nil, err
	}
	if len(res) != len(sig.Results) {
		return nil, status.Errorf(status.InvalidArgument, "%s.%s returned %d results; its signature %s has %d", hi.h.name, sig.Name, len(res), sig.CConv(), len(sig.Results))
	}
	for i, k := range sig.Results {
		v, err := toKind(k, res[i], fmt.Sprintf("%s.%s result %d", hi.h.name, sig.Name, i))
		if err != nil {
			return nil, err
		}
		res[i] = v
	}
	return res, nil
}

// toKind converts a host function's result v (what) to kind k: integers between
// i32 and i64 (an i64 outside [-2^31, 2^32) does not fit an i32) and
// floats between f32 and f64, as calls convert arguments; any other
// mismatch is an error.
func toKind(k module.Kind, v Value, what string) (Value, error) {
	switch {
	case kindMatches(k, v):
		return v, nil
	case k == module.KindI32 && v.Kind == KindI64:
		if v.I < math.MinInt32 || v.I > math.MaxUint32 {
			return Value{}, status.Errorf(status.OutOfRange, "%s: %d does not fit in an i32", what, v.I)
		}
		return I32(int32(v.I)), nil
	case k == module.KindI64 && v.Kind == KindI32:
		return I64(v.I), nil
	case k == module.KindF32 && v.Kind == KindF64:
		return F32(float32(v.F)), nil
	case k == module.KindF64 && v.Kind == KindF32:
		return F64(v.F), nil
	}
	return Value{}, status.Errorf(status.InvalidArgument, "%s: must be %s, got %s", what, kindText(k), v.kindText())
}

// free frees the context's state (once) and drops the context's reference
// to the module; calls in progress finish first.
func (hi *hostInstance) free() {
	hi.mu.Lock()
	if hi.freed {
		hi.mu.Unlock()
		return
	}
	hi.freed = true
	state := hi.state
	hi.state = nil
	hi.mu.Unlock()
	if hi.h.hooks.FreeState != nil {
		hi.h.hooks.FreeState(state)
	}
	hi.h.Release()
}

// RegisterHost adds a host module: the context takes a reference to it
// and makes its state for this context (HostHooks.NewState). Bytecode
// modules registered later import its functions.
func (c *Context) RegisterHost(h *HostModule) error {
	if c.closed.Load() {
		return errClosed()
	}
	if c.HasModule(h.name) {
		return status.Errorf(status.AlreadyExists, "a module named '%s' is already registered", h.name)
	}
	if err := h.Retain(); err != nil {
		return err
	}
	var state any
	if h.hooks.NewState != nil {
		s, err := h.hooks.NewState(c)
		if err != nil {
			h.Release()
			return status.Annotate(err, "making the state of module '%s' for the context", h.name)
		}
		state = s
	}
	c.natives[h.name] = &hostInstance{h: h, state: state}
	return nil
}

// HostFunction returns the signature of function fn of the host module
// registered as mod, or false.
func (c *Context) HostFunction(mod, fn string) (*module.Function, bool) {
	hi, ok := c.natives[mod].(*hostInstance)
	if !ok {
		return nil, false
	}
	fi, ok := hi.h.index[fn]
	if !ok {
		return nil, false
	}
	return &hi.h.sigs[fi], true
}

// invokeHost calls function fn of host module hi directly (Invoke of a
// host module's export): a cancelled token or a passed deadline fail the
// call before it runs, as any call's.
func (c *Context) invokeHost(hi *hostInstance, fn string, args []Value, opts *InvokeOptions) ([]Value, error) {
	fi, ok := hi.h.index[fn]
	if !ok {
		return nil, status.Errorf(status.NotFound, "module '%s' has no exported function '%s'", hi.h.name, fn)
	}
	var w watch
	if err := w.begin(opts, hi.h.name, fn); err != nil {
		return nil, err
	}
	return hi.call(fi, args)
}

// closeHosts frees the state of every host module registered in the
// context and drops the context's references to them.
func (c *Context) closeHosts() {
	for _, n := range c.natives {
		if hi, ok := n.(*hostInstance); ok {
			hi.free()
		}
	}
}

// Device returns the device the context runs on (the one NewContext was
// given): host functions use it to hand buffers over for good.
func (c *Context) Device() Device { return c.dev }
