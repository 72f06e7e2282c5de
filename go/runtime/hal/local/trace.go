package local

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// track is where the device's queue work goes on a timeline.
func (d *Device) track() timeline.Track {
	return hal.DeviceTrack(d, "queue 0")
}

// traceCommand runs one command (run) inside the queue operation's span
// sp as a timeline event of its own, named after the command (a
// dispatch: its entry point) with its size in args.
func traceCommand(sp *timeline.Span, c *hal.Command, table []hal.BufferRef, run func() error) error {
	entry := ""
	if c.Kind == hal.CommandDispatch {
		entry = entryName(c.Executable, c.Entry)
	}
	name, cat, ok := hal.CommandTraceName(c.Kind, entry)
	if !ok {
		if c.Kind == hal.CommandBarrier {
			return nil
		}
		return run()
	}
	var args []timeline.Arg
	switch c.Kind {
	case hal.CommandFill:
		args = []timeline.Arg{timeline.Int("bytes", refLength(c.Target, table)), timeline.Int("pattern_bytes", int64(len(c.Pattern)))}
	case hal.CommandUpdate:
		args = []timeline.Arg{timeline.Int("bytes", int64(len(c.Data)))}
	case hal.CommandCopy:
		args = []timeline.Arg{timeline.Int("bytes", refLength(c.Target, table))}
	case hal.CommandDispatch:
		var bytes int64
		for _, r := range c.Bindings {
			bytes += refLength(r, table)
		}
		args = hal.DispatchTraceArgs(c.Workgroups, len(c.Bindings), bytes)
	}
	s := sp.Begin(cat, name)
	err := run()
	s.End(args...)
	return err
}

// refLength is the byte length r names (0 when it does not resolve; the
// command then fails with the reason).
func refLength(r hal.BufferRef, table []hal.BufferRef) int64 {
	_, _, n, err := r.Resolve(table)
	if err != nil {
		return 0
	}
	return n
}
