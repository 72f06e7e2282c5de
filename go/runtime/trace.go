package runtime

import "github.com/gree-ml/gree/go/runtime/hal/timeline"

// TraceBegin starts recording a timeline of the devices' work (every
// dispatch, transfer, queue allocation and blocking wait) that TraceEnd
// writes to path as Chrome trace-event JSON; see package timeline. It is
// what --trace_output starts. FAILED_PRECONDITION while one is recorded.
func TraceBegin(path string) error { return timeline.Start(path) }

// TraceEnd ends the recording in progress and writes its file; nil, doing
// nothing, when none is in progress.
func TraceEnd() error { return timeline.Finish() }

// TraceActive reports whether a timeline is being recorded.
func TraceActive() bool { return timeline.Active() != nil }
