package vm

import (
	"strings"
	"sync/atomic"

	"github.com/gree-ml/gree/go/schemas/module"

	"github.com/gree-ml/gree/go/status"
)

// Calls at once. Several goroutines may invoke functions of one context at
// the same time (registering modules and closing the context may not
// overlap calls). Each call has a stack of its own (registers, scratch,
// cancellation checks, the failures native functions record: Call), and a
// device that implements Scoper gives each call a recorder of its own, so
// that calls neither share pending device work nor wait for each other's.
// What calls share is the modules' state: each module global is one
// atomic slot (global), so a call reading a global while another stores
// it sees the old value or the new one, never a torn mix; two calls that
// update the same global would race, so calls of functions that use
// mutable globals are ordered by the context's state lock: a function
// that stores one (itself or through the functions it calls) runs alone
// among those, one that only loads them alongside other readers, and
// every other function (one that reads only immutable globals, or none:
// the common case) takes no lock at all. A call therefore never sees a
// global change under it, nor loses an update.

// Scoper is implemented by devices that record each call's work apart:
// Invoke calls Scope at the start of every call, makes every operation of
// the call (Alloc, Dispatch, Load, Sync, Release, …) on the device it
// returns, and calls end once the call is over (its device work then
// submitted, or waited for when the call waited). Devices without it are
// used as they are, by one call at a time.
type Scoper interface {
	Scope() (dev Device, end func())
}

// Call is one outermost invocation as the native functions it calls see
// it (NativeFunc.CallIn).
type Call struct {
	failures []string
}

// Fail records a failure that does not stop the call (a failed
// expectation of the check module): the call runs to its end and then
// returns a FAILED_PRECONDITION error whose cause is a *CallFailures
// listing every failure, in order.
func (c *Call) Fail(msg string) { c.failures = append(c.failures, msg) }

// reset forgets the failures of a finished call.
func (c *Call) reset() {
	clear(c.failures)
	c.failures = c.failures[:0]
}

// CallFailures is the cause of the error of a call during which native
// functions recorded failures (Call.Fail): its messages, in order, and the
// call's own error when it failed as well.
type CallFailures struct {
	Messages []string
	Err      error
}

// Error joins the messages (and the call's own error) by lines.
func (f *CallFailures) Error() string {
	msg := strings.Join(f.Messages, "\n")
	if f.Err != nil {
		msg += "\n" + f.Err.Error()
	}
	return msg
}

// Unwrap returns the call's own error, if any.
func (f *CallFailures) Unwrap() error { return f.Err }

// failed returns the error of a call that ended with err (nil when it
// succeeded), given the failures its native functions recorded: err
// itself when there are none.
func (c *Call) failed(err error) error {
	if len(c.failures) == 0 {
		return err
	}
	f := &CallFailures{Messages: append([]string(nil), c.failures...), Err: err}
	code := status.FailedPrecondition
	if err != nil {
		code = status.CodeOf(err)
	}
	return &status.Error{Code: code, Msg: f.Error(), Err: f}
}

// global is the slot of one module global: a pointer to a Value never
// written after it is published, swapped whole by a store.
type global struct{ p atomic.Pointer[Value] }

// load returns the global's value.
func (g *global) load() Value {
	if v := g.p.Load(); v != nil {
		return *v
	}
	return Value{Kind: KindNull}
}

// store makes v the global's value; with a Holder the global holds a
// reference to v's buffer (taken before v is visible) and drops the one
// it held to the value it replaces (once: a swap returns each replaced
// value to exactly one store).
func (g *global) store(v Value, h Holder) {
	if h != nil && v.Kind == KindRef && v.Ref != nil {
		h.Hold(v.Ref)
	}
	old := g.p.Swap(&v)
	if h != nil && old != nil && old.Kind == KindRef && old.Ref != nil {
		h.Drop(old.Ref)
	}
}

// newGlobals returns slots holding vals.
func newGlobals(vals []Value) []global {
	gs := make([]global, len(vals))
	for i := range vals {
		v := vals[i]
		gs[i].p.Store(&v)
	}
	return gs
}

// scope points st at the device of one call (a scoped one where the
// device is a Scoper) and returns what ends the call's scope.
func (c *Context) scope(st *stack) (end func()) {
	if sc, ok := c.dev.(Scoper); ok {
		d, done := sc.Scope()
		st.dev = d
		return func() {
			done()
			st.dev = nil
		}
	}
	st.dev = c.dev
	return func() { st.dev = nil }
}

// State use of a function, transitively through the functions it calls.
const (
	stateNone  uint8 = iota // no mutable global
	stateRead               // loads mutable globals only
	stateWrite              // stores a mutable global
)

// stateUse computes, per function of m, how it uses mutable module state
// (see stateNone…), following calls within the module (to a fixed point:
// functions may recurse) and imports of the instances registered before
// it.
func stateUse(m *module.Module, imports []resolved) []uint8 {
	use := make([]uint8, len(m.Functions))
	for changed := true; changed; {
		changed = false
		for fi := range m.Functions {
			u := use[fi]
			for i := range m.Functions[fi].Code {
				in := &m.Functions[fi].Code[i]
				switch in.Op {
				case module.OpGlobalLoad:
					if int(in.Index) < len(m.Globals) && m.Globals[in.Index].Mutable {
						u = max(u, stateRead)
					}
				case module.OpGlobalStore:
					u = stateWrite
				case module.OpCall:
					if int(in.Index) < len(use) {
						u = max(u, use[in.Index])
					}
				case module.OpCallImport:
					if int(in.Index) < len(imports) {
						if r := imports[in.Index]; r.inst != nil {
							u = max(u, r.inst.state[r.fn])
						}
					}
				}
			}
			if u != use[fi] {
				use[fi], changed = u, true
			}
		}
	}
	return use
}

// lockState takes the context's state lock as function fi of inst needs
// (see stateUse) and returns its unlock.
func (c *Context) lockState(inst *instance, fi int) (unlock func()) {
	switch inst.state[fi] {
	case stateWrite:
		c.state.Lock()
		return c.state.Unlock
	case stateRead:
		c.state.RLock()
		return c.state.RUnlock
	}
	return func() {}
}
