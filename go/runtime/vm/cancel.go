package vm

import (
	"sync/atomic"
	"time"

	"github.com/gree-ml/gree/go/status"
)

// Cancellation and deadlines. A call made with InvokeOptions watches a
// cancel token, an interrupt and a deadline at its check points: every
// loop back-edge (a branch to an earlier instruction), and before every
// dispatch and every call (of a function of its own or another module, or
// of a native module). A check is an atomic load or two; the clock is read
// at every dispatch and every clockEvery other check points, so a call
// stuck in an endless host loop stops within microseconds of the request.
// What the interpreter waits for without passing a check point (a
// dispatch or a Sync already running on the device, a native function) is
// not interrupted: the call stops at the next check point after it.
//
// A stopped call fails with CANCELLED or DEADLINE_EXCEEDED naming the
// call; the device work it had recorded is waited for before Invoke
// returns, so the next call on the context starts from a quiet device.

// CancelToken cancels the calls that watch it from any goroutine. It is
// sticky: a call started with a token already cancelled fails at once.
// The zero value is a token not cancelled.
type CancelToken struct{ cancelled atomic.Bool }

// NewCancelToken returns a token not cancelled.
func NewCancelToken() *CancelToken { return &CancelToken{} }

// Cancel makes every call watching t stop at its next check point, and
// calls started with t later fail at once. Cancelling twice is harmless.
func (t *CancelToken) Cancel() { t.cancelled.Store(true) }

// Cancelled reports whether Cancel was called.
func (t *CancelToken) Cancelled() bool { return t.cancelled.Load() }

// Interrupt cancels the calls watching it that are running when it is
// raised, but not those that start afterwards (Ctrl-C: the calls a
// process's main thread is making when SIGINT arrives). The zero value is
// ready to use.
type Interrupt struct{ gen atomic.Uint64 }

// Raise stops every call that watches i and started before this Raise.
func (i *Interrupt) Raise() { i.gen.Add(1) }

// InvokeOptions bound one call (see Context.InvokeWith). The zero value
// bounds nothing.
type InvokeOptions struct {
	// Cancel, when not nil, stops the call with CANCELLED once cancelled.
	Cancel *CancelToken
	// Interrupt, when not nil, stops the call with CANCELLED when raised
	// while the call runs.
	Interrupt *Interrupt
	// Deadline, when not zero, stops the call with DEADLINE_EXCEEDED once
	// passed.
	Deadline time.Time
}

// clockEvery is how many check points pass between two readings of the
// clock when a call has a deadline (besides every dispatch): an
// interpreted loop iteration takes tens of nanoseconds, a reading of the
// clock about as long.
const clockEvery = 64

// watch is the per-call state of the checks, kept in the call's stack (so
// that calls running at once on one context each have their own).
type watch struct {
	on       bool // any of token, intr, deadline is set
	token    *CancelToken
	intr     *Interrupt
	gen      uint64 // intr's generation when the call started
	deadline time.Time
	start    time.Time
	ticks    uint32
	mod, fn  string
}

// begin arms w for a call of mod.fn with opts (nil: no checks) and
// checks once: a cancelled token or a passed deadline fail the call before
// it runs.
func (w *watch) begin(opts *InvokeOptions, mod, fn string) error {
	*w = watch{}
	if opts == nil || (opts.Cancel == nil && opts.Interrupt == nil && opts.Deadline.IsZero()) {
		return nil
	}
	*w = watch{on: true, token: opts.Cancel, intr: opts.Interrupt, deadline: opts.Deadline, mod: mod, fn: fn}
	if w.intr != nil {
		w.gen = w.intr.gen.Load()
	}
	if !w.deadline.IsZero() {
		w.start = time.Now()
	}
	return w.poll(true)
}

// end disarms w (it keeps nothing of the call alive).
func (w *watch) end() { *w = watch{} }

// poll is the check at a check point; clock forces a reading of the clock
// when the call has a deadline. Only called when w.on.
func (w *watch) poll(clock bool) error {
	if w.token != nil && w.token.cancelled.Load() {
		return status.Errorf(status.Cancelled, "call to %s.%s cancelled", w.mod, w.fn)
	}
	if w.intr != nil && w.intr.gen.Load() != w.gen {
		return status.Errorf(status.Cancelled, "call to %s.%s cancelled by an interrupt (SIGINT)", w.mod, w.fn)
	}
	if w.deadline.IsZero() {
		return nil
	}
	w.ticks++
	if !clock && w.ticks%clockEvery != 0 {
		return nil
	}
	if now := time.Now(); !now.Before(w.deadline) {
		return status.Errorf(status.DeadlineExceeded, "call to %s.%s passed its deadline (%s, %v after the call started; it stopped %v after)",
			w.mod, w.fn, w.deadline.UTC().Format("15:04:05.000000 UTC"), w.deadline.Sub(w.start).Round(time.Microsecond), now.Sub(w.start).Round(time.Microsecond))
	}
	return nil
}

// Stopped reports whether err is the failure of a call that a cancel
// token, an interrupt or a deadline stopped.
func Stopped(err error) bool {
	c := status.CodeOf(err)
	return c == status.Cancelled || c == status.DeadlineExceeded
}

// InvokeWith is Invoke bounded by opts (nil: unbounded, as Invoke). A call
// that opts stop fails with CANCELLED or DEADLINE_EXCEEDED after the device
// work it recorded has completed; the context stays usable.
func (c *Context) InvokeWith(mod, fn string, args []Value, opts *InvokeOptions) ([]Value, error) {
	return c.invoke(mod, fn, args, opts)
}

// drain waits for the device work of a call that was stopped (err),
// recorded but perhaps not submitted, so that the next call starts on a
// quiet device; the failure the work itself may report belongs to the
// stopped call, whose error is err.
func (c *Context) drain(st *stack, err error) {
	if st.w.on && st.dev != nil && Stopped(err) {
		_ = st.dev.Sync() // the call's own device (see Scoper)
	}
}
