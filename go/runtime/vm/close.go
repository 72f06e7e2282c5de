package vm

import (
	"io"

	"github.com/gree-ml/gree/go/status"
)

// Releasing a context. A context owns what registering its modules made on
// its device: the executables prepared for it (an llvm-cpu executable is a
// loaded shared object and a memory file), a view of each module constant
// and the values of the module globals (one reference each), and the
// device's own state (the bridge's buffer cache). Close gives all of it
// back at once, as IREE's iree_vm_context_release does with the last
// reference; the garbage collector only catches what nobody closed.

// errClosed is the error of a use of a closed context.
func errClosed() error {
	return status.New(status.FailedPrecondition, "the VM context is closed; create a new context to call its modules again")
}

// Closed reports whether Close was called.
func (c *Context) Closed() bool { return c.closed.Load() }

// Close waits for the device work the context's calls made, then closes
// every executable prepared for its modules, drops its references to
// module constants and globals, frees the state of each host module
// registered in it (dropping its reference to the module), and closes the
// device bridge when it is an io.Closer. Results a caller holds stay valid (they hold references of
// their own). No call may be in progress; later calls and registrations
// are FAILED_PRECONDITION errors. Closing twice does nothing. The error
// is the first failure among the pending work and the closes.
func (c *Context) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if c.dev != nil {
		keep(c.dev.Sync())
	}
	h, _ := c.dev.(Holder)
	for _, inst := range c.mods {
		for _, e := range inst.execs {
			if cl, ok := e.(io.Closer); ok {
				keep(cl.Close())
			}
		}
		if h != nil {
			for i := range inst.globals {
				if v := inst.globals[i].load(); v.Kind == KindRef && v.Ref != nil {
					h.Drop(v.Ref)
				}
			}
			for _, ref := range inst.consts {
				h.Drop(ref)
			}
		}
		inst.execs, inst.globals, inst.consts = nil, nil, nil
		inst.frames = nil
	}
	c.closeHosts() // see host_context.go
	if cl, ok := c.dev.(io.Closer); ok {
		keep(cl.Close())
	}
	return first
}
