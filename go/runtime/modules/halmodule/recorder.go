package halmodule

import (
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// recorder is one queue of the bridge's work: a pending command buffer
// and the timeline semaphore its submissions signal, each waiting for the
// one before it. Every call of a host program gets a recorder of its own
// (Device.Scope), so that calls running at once on one context record
// into command buffers of their own and each waits only for its own work;
// the Device's own recorder (its base) takes what happens outside calls
// (module registration's clones of globals, Adopt, releases by the
// caller). A call's recorder is used by that call's goroutine only; the
// base by any, under mu.
type recorder struct {
	d *Device
	// base is set on the Device's own recorder (see Device.baseDirty).
	base bool

	mu       sync.Mutex
	cb       *hal.CommandBuffer // pending commands, nil when none
	timeline hal.Semaphore
	value    uint64 // the timeline value the last submission signals
	// waited is the timeline value the last Sync saw reached.
	waited uint64
	// wait is what the next submission waits for besides the timeline
	// (the wait fence of a coarse-fences call, and the unfinished work of
	// calls that ended before this one began).
	wait hal.SemaphoreList
	// pending counts the commands of cb.
	pending int
}

// flushEvery is how many commands a call's recorder holds before it
// submits them without waiting for the host to need a result: a loop of
// dispatches that never reads a value back (an endless one included)
// then runs as it goes, in bounded memory, and a cancelled call has at
// most two such batches to wait for.
const flushEvery = 32

var (
	_ vm.Device      = (*recorder)(nil)
	_ vm.AsyncDevice = (*recorder)(nil)
	_ vm.Holder      = (*recorder)(nil)
	_ vm.Mover       = (*recorder)(nil)
	_ vm.Adopter     = (*recorder)(nil)
)

// record runs rec on the pending command buffer, beginning one if none is
// pending.
func (r *recorder) record(rec func(cb *hal.CommandBuffer) error) error {
	r.mu.Lock()
	if r.base {
		r.d.baseDirty.Store(true)
	}
	if r.cb == nil {
		cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot|hal.CommandBufferAllowInlineExecution, hal.CommandCategoryAny, 0)
		if err == nil {
			err = cb.Begin()
		}
		if err == nil && !r.base {
			cb.Reserve(flushEvery)
		}
		if err != nil {
			r.mu.Unlock()
			return err
		}
		r.cb = cb
	}
	err := rec(r.cb)
	r.pending++
	flush := err == nil && !r.base && r.pending >= flushEvery
	r.mu.Unlock()
	if flush {
		return r.flush()
	}
	return err
}

// flush submits the pending commands and then waits for the submission
// before them, so that at most two batches are in flight.
func (r *recorder) flush() error {
	r.mu.Lock()
	prev, at := r.timeline, r.value
	r.mu.Unlock()
	if _, err := r.Submit(nil); err != nil {
		return err
	}
	if prev == nil || at == 0 {
		return nil
	}
	if err := prev.Wait(at, hal.NoDeadline); err != nil {
		// As Sync: the failure is this call's; later work starts on a
		// new timeline.
		r.mu.Lock()
		if r.timeline == prev {
			r.timeline = nil
		}
		r.mu.Unlock()
		return err
	}
	return nil
}

// fill records a fill of b with pattern (the cache's zeroing and
// poisoning); a failure to record surfaces at the next submission.
func (r *recorder) fill(b *hal.Buffer, pattern byte) {
	r.record(func(cb *hal.CommandBuffer) error { return cb.Fill(hal.WholeBuffer(b), []byte{pattern}) })
}

// position returns the timepoint at which the work recorded so far will
// be complete: the value the pending commands' submission will signal,
// or the last submission's (nil when the recorder has submitted nothing
// and has nothing pending).
func (r *recorder) position() (hal.Semaphore, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// The timeline the pending commands will be submitted on (a failed
	// one is replaced now, not at the submission).
	if err := r.ensureTimeline(); err != nil {
		return nil, 0
	}
	v := r.value
	if r.cb != nil {
		v++
	}
	if v == 0 || v <= r.waited {
		return nil, 0
	}
	return r.timeline, v
}

// own returns the semaphore whose order the recorder's work follows: a
// buffer released at a timepoint of it may be reused by this recorder
// at once (see cache).
func (r *recorder) own() hal.Semaphore {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timeline
}

// ensureTimeline makes sure the recorder has a timeline that has not
// failed: a failure of earlier work was reported to whoever waited for it
// (a Sync, or a coarse-fences call's signal fence), and later work starts
// on a new timeline. Called with mu held.
func (r *recorder) ensureTimeline() error {
	if r.timeline != nil {
		if _, err := r.timeline.Query(); err != nil {
			r.timeline = nil
		}
	}
	if r.timeline == nil {
		sem, err := r.d.dev.CreateSemaphore(0)
		if err != nil {
			return err
		}
		r.timeline, r.value, r.waited = sem, 0, 0
	}
	return nil
}

// Submit submits the pending commands, if any, signaling signal too, and
// returns the timeline value that marks their completion.
func (r *recorder) Submit(signal hal.SemaphoreList) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensureTimeline(); err != nil {
		return 0, err
	}
	if r.cb == nil && len(signal) == 0 && len(r.wait) == 0 {
		return r.value, nil
	}
	cb := r.cb
	r.cb, r.pending = nil, 0
	if cb != nil {
		defer cb.Release()
		if err := cb.End(); err != nil {
			return 0, err
		}
	}
	wait := append(hal.SemaphoreList{{Semaphore: r.timeline, Value: r.value}}, r.wait...)
	next := append(hal.SemaphoreList{{Semaphore: r.timeline, Value: r.value + 1}}, signal...)
	if err := r.d.dev.QueueExecute(wait, next, cb, nil); err != nil {
		return 0, err
	}
	clear(r.wait)
	r.wait = r.wait[:0]
	r.value++
	return r.value, nil
}

// fenceOf returns the fence a coarse-fences argument holds (nil for null).
func fenceOf(ref any) (*hal.Fence, error) {
	switch f := ref.(type) {
	case nil:
		return nil, nil
	case *hal.Fence:
		return f, nil
	}
	return nil, status.Errorf(status.InvalidArgument, "expected a fence, got %T", ref)
}

// WaitFor makes the work recorded next wait for fence (a coarse-fences
// call's wait fence): it joins the next submission's wait list.
func (r *recorder) WaitFor(fence any) error {
	f, err := fenceOf(fence)
	if err != nil || f == nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wait = append(r.wait, f.Timepoints()...)
	return nil
}

// SignalWhenDone submits the pending work (and any wait) so that fence is
// signaled when it completes; it does not wait.
func (r *recorder) SignalWhenDone(fence any) error {
	f, err := fenceOf(fence)
	if err != nil {
		return err
	}
	_, err = r.Submit(f.Timepoints())
	return err
}

// Fail fails fence with err (the call failed before its work was
// submitted).
func (r *recorder) Fail(fence any, err error) {
	if f, _ := fenceOf(fence); f != nil {
		f.Fail(err)
	}
}

// Sync submits the pending commands and waits for them. A failure of the
// work is returned once; the recorder then starts a new timeline.
func (r *recorder) Sync() error {
	v, err := r.Submit(nil)
	if err != nil {
		return err
	}
	r.mu.Lock()
	sem, done := r.timeline, r.waited >= v
	r.mu.Unlock()
	if done {
		return nil
	}
	if err := sem.Wait(v, hal.NoDeadline); err != nil {
		r.mu.Lock()
		if r.timeline == sem {
			r.timeline = nil
		}
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	if r.timeline == sem && v > r.waited {
		r.waited = v
	}
	r.mu.Unlock()
	return nil
}

// finished reports whether all the work the recorder submitted is
// complete (or failed: nothing of it runs any more), and returns the
// timepoint to wait for when it is not.
func (r *recorder) finished() (hal.Semaphore, uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.value <= r.waited || r.timeline == nil {
		return nil, 0, true
	}
	v, err := r.timeline.Query()
	if err != nil || v >= r.value {
		return nil, 0, true
	}
	return r.timeline, r.value, false
}
