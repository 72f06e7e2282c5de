package hal

import "github.com/gree-ml/gree/go/runtime/hal/timeline"

// DeviceTrack is where d's work goes on a timeline: d's process (named
// after its ID) and the thread called queue.
func DeviceTrack(d Device, queue string) timeline.Track {
	return timeline.Track{Key: d, Device: d.ID(), Queue: queue}
}

// traceTransfer starts the timeline span of a host-initiated transfer
// between host memory and a buffer of d; nil when no trace is recorded
// or d is nil (a buffer of no device: a host-memory copy).
func traceTransfer(d Device, name string) *timeline.Span {
	r := timeline.Active()
	if r == nil || d == nil {
		return nil
	}
	return r.Begin(DeviceTrack(d, "host transfers"), timeline.CatTransfer, name)
}

// traceQueue starts the timeline span of a queue request made by the
// host on d (the time to enqueue it; the work itself is traced by the
// driver when it runs); nil when no trace is recorded.
func traceQueue(d Device, cat, name string) *timeline.Span {
	r := timeline.Active()
	if r == nil {
		return nil
	}
	return r.Begin(DeviceTrack(d, "queue requests"), cat, name)
}

// TraceHostCall returns fn, or when a trace is recorded fn traced as a
// "host call" on d's thread "queue 0 host calls" (apart from the
// device-timed commands): the drivers' QueueHostCall wrap their work in it.
func TraceHostCall(d Device, fn func() error) func() error {
	r := timeline.Active()
	if r == nil {
		return fn
	}
	return func() error {
		sp := r.Begin(DeviceTrack(d, "queue 0 host calls"), timeline.CatQueue, "host call")
		defer sp.End()
		return fn()
	}
}

// CommandTraceName returns the timeline name and category of a recorded
// command of kind k (a dispatch: its entry point, entry), as every driver
// names them; ok is false for kinds that are not traced (barriers).
func CommandTraceName(k CommandKind, entry string) (name, cat string, ok bool) {
	switch k {
	case CommandFill:
		return "fill", timeline.CatTransfer, true
	case CommandUpdate:
		return "update", timeline.CatTransfer, true
	case CommandCopy:
		return "copy", timeline.CatTransfer, true
	case CommandDispatch:
		return entry, timeline.CatDispatch, true
	}
	return "command", timeline.CatQueue, false
}

// DispatchTraceArgs are a dispatch's timeline arguments: its workgroup
// count and grid, and its bindings' number and total bytes.
func DispatchTraceArgs(grid [3]int64, bindings int, bindingBytes int64) []timeline.Arg {
	return []timeline.Arg{timeline.Int("workgroups", grid[0]*grid[1]*grid[2]),
		{Key: "workgroup_count", Value: []int64{grid[0], grid[1], grid[2]}},
		timeline.Int("bindings", int64(bindings)), timeline.Int("binding_bytes", bindingBytes)}
}

// RecordedCommandTrace describes a command a GPU driver recorded, as the
// drivers name them on a timeline: bytes is the target's length (fill,
// update, copy); a dispatch is named after entry() (called only for
// dispatches) with its grid and its bindings' count and total length.
// Untraced kinds (barriers) return "command" without args.
func RecordedCommandTrace(k CommandKind, entry func() string, bytes int64, grid [3]uint32, bindings int, bindingBytes int64) (name, cat string, args []timeline.Arg) {
	e := ""
	if k == CommandDispatch {
		e = entry()
	}
	name, cat, ok := CommandTraceName(k, e)
	switch {
	case !ok:
		return name, cat, nil
	case k != CommandDispatch:
		return name, cat, []timeline.Arg{timeline.Int("bytes", bytes)}
	}
	return name, cat, DispatchTraceArgs([3]int64{int64(grid[0]), int64(grid[1]), int64(grid[2])}, bindings, bindingBytes)
}
