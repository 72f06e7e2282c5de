package timeline

import (
	"math"
	"time"
)

// Clock maps one device's timestamps (nanoseconds on the device's own
// clock) onto the recording's host timeline. The offset is learnt from
// the host times around each submission: work cannot start on the device
// before the host submitted it, nor end after the host saw it complete.
// Writing uses the largest lower bound (the tightest causal placement),
// within the smallest upper bound when the bounds agree.
type Clock struct {
	lo, hi float64 // offset bounds, host ns minus device ns
}

// Clock returns the device clock of t's device, created on first use; nil
// when r is nil.
func (r *Recorder) Clock(t Track) *Clock {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.procLocked(t)
	c := p.clocks[t.Key]
	if c == nil {
		c = &Clock{lo: math.Inf(-1), hi: math.Inf(1)}
		p.clocks[t.Key] = c
	}
	return c
}

// Observe bounds c with one submission: the host submitted it at submit
// and saw it done at done; the device stamped its start and end (device
// nanoseconds).
func (r *Recorder) Observe(c *Clock, submit, done time.Time, devStart, devEnd float64) {
	if r == nil || c == nil {
		return
	}
	lo := float64(submit.Sub(r.base).Nanoseconds()) - devStart
	hi := float64(done.Sub(r.base).Nanoseconds()) - devEnd
	r.mu.Lock()
	c.lo = max(c.lo, lo)
	c.hi = min(c.hi, hi)
	r.mu.Unlock()
}

// offset returns the device-to-host offset in nanoseconds (r.mu held).
func (c *Clock) offset() float64 {
	switch {
	case !math.IsInf(c.lo, 0) && (math.IsInf(c.hi, 0) || c.lo <= c.hi):
		return c.lo
	case !math.IsInf(c.hi, 0):
		return c.hi
	}
	return 0
}

// DeviceEvent records a complete event timed by the device: start and
// end are device nanoseconds on c, placed on t's queue (lane 0: a device
// queue runs its work in order).
func (r *Recorder) DeviceEvent(t Track, c *Clock, cat, name string, start, end float64, args ...Arg) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, tid, l, i := r.laneLocked(t, math.Inf(1))
	l.busy[i] = false
	r.appendLocked(event{ph: 'X', name: name, cat: cat, pid: pid, tid: tid, ts: start, dur: end - start, clock: c, args: args})
}

// HostEvent records a complete event from host times on t's first free
// lane (for work whose device timing is unknown).
func (r *Recorder) HostEvent(t Track, cat, name string, start, end time.Time, args ...Arg) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ts, te := r.since(start), r.since(end)
	pid, tid, l, i := r.laneLocked(t, ts)
	l.busy[i], l.until[i] = false, te
	r.appendLocked(event{ph: 'X', name: name, cat: cat, pid: pid, tid: tid, ts: ts, dur: te - ts, args: args})
}
