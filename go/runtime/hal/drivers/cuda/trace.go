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
// submission's events are created without timing (CU_EVENT_DISABLE_TIMING
// keeps cuEventSynchronize cheap), so the commands are not timed one by one.

// submissionTrace is a traced submission's state.
type submissionTrace struct {
	rec      *timeline.Recorder
	enqueued time.Time
}

// traceEnqueue notes when the submission goes on the stream, when a trace
// is recorded.
func (s *submission) traceEnqueue() {
	if s.trace.rec = timeline.Active(); s.trace.rec != nil {
		s.trace.enqueued = time.Now()
	}
}

// traceDone records the completed submission (before it is released):
// done is when the completer saw its event.
func (s *submission) traceDone(done time.Time) {
	r := s.trace.rec
	if r == nil {
		return
	}
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
}
