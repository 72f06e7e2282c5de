package hal

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal/timeline"
	"github.com/gree-ml/gree/go/status"
)

// Semaphore is a timeline semaphore (IREE's iree_hal_semaphore_t): a
// monotonically increasing 64-bit value that queue operations and the host
// wait on and signal, or a failure that every waiter sees. Its methods are
// safe for concurrent use.
type Semaphore interface {
	// Query returns the current value, or the failure.
	Query() (uint64, error)
	// Signal raises the value to v (greater than the current value).
	Signal(v uint64) error
	// Fail puts the semaphore in the failed state with err (the first
	// failure is kept); every wait, past and future, returns it.
	Fail(err error)
	// Wait blocks until the value reaches v, the semaphore fails, or the
	// deadline passes: DEADLINE_EXCEEDED then. A zero deadline waits
	// forever; one in the past only polls.
	Wait(v uint64, deadline time.Time) error
}

// Immediate is a deadline in the past: a wait with it only polls.
var Immediate = time.Unix(0, 0)

// NoDeadline is the zero deadline: a wait with it waits forever.
var NoDeadline = time.Time{}

// HostSemaphore is a Semaphore that lives in host memory, used by the
// local devices and by GPU drivers that emulate timelines on the host.
type HostSemaphore struct {
	mu      sync.Mutex
	value   uint64
	err     error
	changed chan struct{} // closed, and replaced, on every change
}

var _ Semaphore = (*HostSemaphore)(nil)

// NewHostSemaphore returns a semaphore at initial.
func NewHostSemaphore(initial uint64) *HostSemaphore {
	return &HostSemaphore{value: initial, changed: make(chan struct{})}
}

// Query returns the value, or the failure.
func (s *HostSemaphore) Query() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	return s.value, nil
}

// Signal raises the value to v.
func (s *HostSemaphore) Signal(v uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if v <= s.value {
		return status.Errorf(status.OutOfRange, "semaphore values must increase: signaling %d at value %d", v, s.value)
	}
	s.value = v
	s.notifyLocked()
	return nil
}

// Fail puts the semaphore in the failed state.
func (s *HostSemaphore) Fail(err error) {
	if err == nil {
		err = status.New(status.Unknown, "semaphore failed")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	s.err = failure(err)
	s.notifyLocked()
}

func (s *HostSemaphore) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// failure keeps err's status code (UNKNOWN for an error without one).
func failure(err error) error {
	var se *status.Error
	if errors.As(err, &se) {
		return err
	}
	return status.New(status.Unknown, err.Error())
}

// state returns whether the value has reached v, the failure, and the
// channel that the next change closes.
func (s *HostSemaphore) state(v uint64) (bool, error, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value >= v, s.err, s.changed
}

// Wait blocks until the value reaches v, the semaphore fails or the
// deadline passes.
func (s *HostSemaphore) Wait(v uint64, deadline time.Time) error {
	return s.waitCancel(v, deadline, nil)
}

// waitCancel is Wait that also returns CANCELLED when cancel closes.
func (s *HostSemaphore) waitCancel(v uint64, deadline time.Time, cancel <-chan struct{}) error {
	var timer *time.Timer
	var sp *timeline.Span // a wait that blocks, when a trace is recorded
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if sp != nil {
			sp.End(timeline.Int("value", int64(v)))
		}
	}()
	for {
		ok, err, changed := s.state(v)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if sp == nil {
			sp = traceWait(cancel != nil)
		}
		var expired <-chan time.Time
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				return status.Errorf(status.DeadlineExceeded, "semaphore wait for value %d timed out", v)
			}
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			expired = timer.C
		}
		select {
		case <-changed:
		case <-expired:
		case <-cancel:
			return status.New(status.Cancelled, "the wait was cancelled: the device was closed")
		}
	}
}

// traceWait starts the timeline span of a semaphore wait that blocks: a
// queue's (cancellable: the queue waits before running work) or the
// host's (a caller waiting for results). nil when no trace is recorded.
func traceWait(queue bool) *timeline.Span {
	r := timeline.Active()
	if r == nil {
		return nil
	}
	if queue {
		return r.Begin(timeline.HostTrack("queue waits"), timeline.CatWait, "queue wait")
	}
	return r.Begin(timeline.HostTrack("host waits"), timeline.CatWait, "semaphore wait")
}

// Timepoint is a semaphore reaching a value.
type Timepoint struct {
	Semaphore Semaphore
	Value     uint64
}

// SemaphoreList is the timepoints a queue operation waits on or signals.
type SemaphoreList []Timepoint

// Signal signals every timepoint; the first error is returned.
func (l SemaphoreList) Signal() error {
	var first error
	for _, p := range l {
		if err := p.Semaphore.Signal(p.Value); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Fail fails every semaphore of the list with err.
func (l SemaphoreList) Fail(err error) {
	for _, p := range l {
		p.Semaphore.Fail(err)
	}
}

// Ready reports whether every timepoint has been reached, or returns the
// failure of one that failed.
func (l SemaphoreList) Ready() (bool, error) {
	ready := true
	for _, p := range l {
		v, err := p.Semaphore.Query()
		if err != nil {
			return false, err
		}
		ready = ready && v >= p.Value
	}
	return ready, nil
}

// Wait waits for every timepoint, until the deadline (zero: forever).
func (l SemaphoreList) Wait(deadline time.Time) error { return l.WaitCancel(deadline, nil) }

// WaitCancel is Wait that returns CANCELLED when cancel closes. Host
// semaphores are waited on directly; others are polled between short waits
// so that the cancellation is seen.
func (l SemaphoreList) WaitCancel(deadline time.Time, cancel <-chan struct{}) error {
	for _, p := range l {
		if p.Semaphore == nil {
			return status.New(status.InvalidArgument, "semaphore list has a null semaphore")
		}
		if hs, ok := p.Semaphore.(*HostSemaphore); ok {
			if err := hs.waitCancel(p.Value, deadline, cancel); err != nil {
				return err
			}
			continue
		}
		for {
			step := time.Now().Add(10 * time.Millisecond)
			if !deadline.IsZero() && deadline.Before(step) {
				step = deadline
			}
			err := p.Semaphore.Wait(p.Value, step)
			if status.CodeOf(err) != status.DeadlineExceeded || (!deadline.IsZero() && !time.Now().Before(deadline)) {
				if err != nil {
					return err
				}
				break
			}
			select {
			case <-cancel:
				return status.New(status.Cancelled, "the wait was cancelled: the device was closed")
			default:
			}
		}
	}
	return nil
}

// Fence is a set of timepoints, at most one per semaphore (IREE's
// iree_hal_fence_t): what a function's async invocation waits on and
// signals. Its methods are safe for concurrent use.
type Fence struct {
	mu       sync.Mutex
	capacity int
	points   []Timepoint
}

// NewFence returns an empty fence for up to capacity semaphores.
func NewFence(capacity int) *Fence { return &Fence{capacity: capacity} }

// FenceAt returns a fence of one timepoint.
func FenceAt(s Semaphore, v uint64) *Fence {
	return &Fence{capacity: 1, points: []Timepoint{{s, v}}}
}

// JoinFences returns a fence with every timepoint of fences (the greatest
// value per semaphore). Nil fences are skipped.
func JoinFences(fences ...*Fence) *Fence {
	out := &Fence{}
	for _, f := range fences {
		if f == nil {
			continue
		}
		for _, p := range f.Timepoints() {
			out.capacity++
			out.Insert(p.Semaphore, p.Value)
		}
	}
	return out
}

// Insert adds a timepoint; a semaphore already in the fence keeps the
// greater value. A fence at capacity takes no new semaphore.
func (f *Fence) Insert(s Semaphore, v uint64) error {
	if s == nil {
		return status.New(status.InvalidArgument, "cannot insert a null semaphore into a fence")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.points {
		if f.points[i].Semaphore == s {
			f.points[i].Value = max(f.points[i].Value, v)
			return nil
		}
	}
	if len(f.points) >= f.capacity {
		return status.Errorf(status.ResourceExhausted, "fence of capacity %d is full", f.capacity)
	}
	f.points = append(f.points, Timepoint{s, v})
	return nil
}

// Extend inserts every timepoint of o.
func (f *Fence) Extend(o *Fence) error {
	for _, p := range o.Timepoints() {
		f.mu.Lock()
		f.capacity = max(f.capacity, len(f.points)+1)
		f.mu.Unlock()
		if err := f.Insert(p.Semaphore, p.Value); err != nil {
			return err
		}
	}
	return nil
}

// Timepoints returns a copy of the fence's timepoints (nil fence: none).
func (f *Fence) Timepoints() SemaphoreList {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(SemaphoreList(nil), f.points...)
}

// Len returns the number of timepoints.
func (f *Fence) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.points)
}

// Signal signals every timepoint from the host.
func (f *Fence) Signal() error { return f.Timepoints().Signal() }

// Fail fails every semaphore of the fence.
func (f *Fence) Fail(err error) { f.Timepoints().Fail(err) }

// Wait waits for every timepoint until the deadline (zero: forever).
func (f *Fence) Wait(deadline time.Time) error { return f.Timepoints().Wait(deadline) }

// Query reports whether every timepoint has been reached, or the failure.
func (f *Fence) Query() (bool, error) { return f.Timepoints().Ready() }

// String is "fence(N)", N the number of timepoints, as IREE prints one.
func (f *Fence) String() string { return fmt.Sprintf("fence(%d)", f.Len()) }
