package cuda

import (
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// The --trace_output timeline (package timeline). The driver records each
// submission as the host saw it, from putting its work on the stream to
// the completer seeing its event, on the thread "queue 0 (host
// submit→complete)", with its commands: the dispatches by entry point,
// workgroup count and binding bytes, and the transfer bytes. The
// submission's own event is created without timing
// (CU_EVENT_DISABLE_TIMING keeps cuEventSynchronize cheap).
//
// While a trace is recorded, a submission run on the stream also records
// a timing event (cuEventCreate with default flags) before and after each
// command; when it completes, the completer reads cuEventElapsedTime from
// the first of them to each, and records every command as an event timed
// by the device on the thread "queue 0" (clock "device"), placed within
// the submission's host submit and completion times (traceCommands). A
// submission captured into a CUDA graph (--cuda_use_streams=false), or
// one on a libcuda without cuEventElapsedTime, is timed on the host only:
// the fake libcuda's graphs have no event nodes to test them with.

// submissionTrace is a traced submission's state.
type submissionTrace struct {
	rec      *timeline.Recorder
	enqueued time.Time
	// events are the timing events around the commands: 2i before and
	// 2i+1 after command i; nil when the commands are not timed.
	events []uintptr
	failed bool // recording a timing event failed: no device times
}

// traceEnqueue notes when the submission goes on the stream, when a trace
// is recorded, and creates its timing events when its commands run on the
// stream and libcuda can time them.
func (s *submission) traceEnqueue() {
	if s.trace.rec = timeline.Active(); s.trace.rec == nil {
		return
	}
	s.trace.enqueued = time.Now()
	cu := s.d.cu
	if len(s.ops) == 0 || !s.d.opts.useStreams || cu.EventElapsedTime == nil {
		return
	}
	s.trace.events = make([]uintptr, 0, 2*len(s.ops))
	for range 2 * len(s.ops) {
		var e uintptr
		if cu.EventCreate(&e, 0) != cudaSuccess {
			s.dropTraceEvents()
			return
		}
		s.trace.events = append(s.trace.events, e)
	}
}

// stamp records timing event i on the stream, when the commands are timed.
func (s *submission) stamp(i int) {
	if s.trace.events != nil && !s.trace.failed && s.d.cu.EventRecord(s.trace.events[i], s.d.stream) != cudaSuccess {
		s.trace.failed = true
	}
}

// dropTraceEvents destroys the timing events (the submission failed to
// enqueue, or its times were read).
func (s *submission) dropTraceEvents() {
	for _, e := range s.trace.events {
		s.d.cu.EventDestroy(e)
	}
	s.trace.events = nil
}

// traceDone records the completed submission (before it is released):
// done is when the completer saw its event.
func (s *submission) traceDone(done time.Time) {
	r := s.trace.rec
	if r == nil {
		return
	}
	defer s.dropTraceEvents()
	var dispatches []string
	var workgroups, bindingBytes, transferBytes int64
	for i := range s.ops {
		o := &s.ops[i]
		switch o.kind {
		case hal.CommandDispatch:
			dispatches = append(dispatches, o.exe.EntryName(o.entry))
			workgroups += int64(o.grid[0]) * int64(o.grid[1]) * int64(o.grid[2])
			for _, b := range o.bindings {
				bindingBytes += b.n
			}
		case hal.CommandFill, hal.CommandUpdate, hal.CommandCopy:
			transferBytes += o.target.n
		}
	}
	name := "submission"
	if s.alloca != nil {
		name = "queue alloca"
	}
	r.HostEvent(hal.DeviceTrack(s.d, "queue 0 (host submit→complete)"), timeline.CatQueue, name, s.trace.enqueued, done,
		timeline.Int("commands", int64(len(s.ops))), timeline.Str("clock", "host"),
		timeline.Arg{Key: "dispatches", Value: dispatches}, timeline.Int("workgroups", workgroups),
		timeline.Int("binding_bytes", bindingBytes), timeline.Int("transfer_bytes", transferBytes))
	s.traceCommands(r, done)
}

// traceCommands records each command timed by its events, when all were
// recorded and libcuda can tell the times between them. The events'
// times are relative to the submission's first, so the submission is
// placed on the host timeline as early as causality allows: not before
// it was enqueued nor before the previous timed command ended (the stream
// runs in order), and not so late that it ends after its completion was
// seen.
func (s *submission) traceCommands(r *timeline.Recorder, done time.Time) {
	ev := s.trace.events
	if ev == nil || s.trace.failed {
		return
	}
	cu := s.d.cu
	at := make([]time.Duration, len(ev))
	for i := 1; i < len(ev); i++ {
		var ms float32
		if cu.EventElapsedTime(&ms, ev[0], ev[i]) != cudaSuccess {
			return
		}
		at[i] = max(time.Duration(float64(ms)*1e6), at[i-1])
	}
	start := s.trace.enqueued
	if s.d.traceEnd.After(start) {
		start = s.d.traceEnd
	}
	if end := start.Add(at[len(at)-1]); end.After(done) {
		start = done.Add(-at[len(at)-1])
	}
	if start.Before(s.trace.enqueued) {
		start = s.trace.enqueued
	}
	clamp := func(d time.Duration) time.Time {
		if t := start.Add(d); t.Before(done) {
			return t
		}
		return done
	}
	track := hal.DeviceTrack(s.d, "queue 0")
	for i := range s.ops {
		name, cat, args := describeOp(&s.ops[i])
		args = append(args, timeline.Str("clock", "device"))
		r.HostEvent(track, cat, name, clamp(at[2*i]), clamp(at[2*i+1]), args...)
	}
	s.d.traceEnd = clamp(at[len(at)-1])
}

// describeOp names a command for the timeline, with its size in args (as
// the Vulkan driver names its commands).
func describeOp(o *op) (name, cat string, args []timeline.Arg) {
	var bytes int64
	for _, b := range o.bindings {
		bytes += b.n
	}
	return hal.RecordedCommandTrace(o.kind, func() string { return o.exe.EntryName(o.entry) }, o.target.n, o.grid, len(o.bindings), bytes)
}
