package cuda

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// traceEvent is one event of a written trace.
type traceEvent struct {
	Name, Ph, Cat string
	Ts, Dur       float64
	Pid, Tid      int
	Args          map[string]any
}

// recordTrace records run in memory and returns the written events.
func recordTrace(t *testing.T, run func() error) []traceEvent {
	t.Helper()
	timeline.Stop()
	if err := timeline.Start(""); err != nil {
		t.Fatal(err)
	}
	err := run()
	r := timeline.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var f struct{ TraceEvents []traceEvent }
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	return f.TraceEvents
}

// TestFakeTrace records a dispatch on the fake libcuda: its submission
// is on the device's host-timed queue thread with the entry point, the
// workgroups and the bytes, and the staging transfers are there.
func TestFakeTrace(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	exe := prepare(t, dev, scaleExecutable(t))
	grid := [3]int64{7, 5, 3}
	in := cts.ScaleInput(grid[0] * grid[1] * grid[2])
	events := recordTrace(t, func() error {
		_, err := runScale(t, dev, exe, grid, in, int64(len(in)))
		return err
	})
	var dispatch, up, down bool
	for _, e := range events {
		switch {
		case e.Name == "submission" && e.Args["workgroups"] == float64(7*5*3):
			ds, _ := e.Args["dispatches"].([]any)
			if len(ds) != 1 || ds[0] != "scale" || e.Args["binding_bytes"] != float64(2*len(in)) || e.Args["clock"] != "host" || e.Dur <= 0 {
				t.Errorf("dispatch submission %+v", e)
			}
			dispatch = true
		case e.Name == "transfer host->device" && e.Args["bytes"] == float64(len(in)):
			up = true
		case e.Name == "transfer device->host" && e.Args["bytes"] == float64(len(in)):
			down = true
		}
	}
	if !dispatch || !up || !down {
		t.Errorf("dispatch %v, upload %v, download %v in\n%+v", dispatch, up, down, events)
	}
}

// traceCommands records two submissions of an update, a fill, a dispatch
// of scale and a copy on dev and returns the trace and the bytes each
// command moves.
func traceCommands(t *testing.T, dev hal.Device) ([]traceEvent, int) {
	t.Helper()
	exe := prepare(t, dev, scaleExecutable(t))
	grid := [3]int64{3, 2, 1}
	in := cts.ScaleInput(grid[0] * grid[1] * grid[2])
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	var bufs [3]*hal.Buffer
	for i := range bufs {
		b, err := dev.Allocator().Allocate(params, int64(len(in)))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		bufs[i] = b
	}
	src, dst, out := hal.WholeBuffer(bufs[0]), hal.WholeBuffer(bufs[1]), hal.WholeBuffer(bufs[2])
	return recordTrace(t, func() error {
		for range 2 { // two submissions: the second is placed after the first
			err := execute(t, dev, func(cb *hal.CommandBuffer) error {
				if err := cb.Update(in, src); err != nil {
					return err
				}
				if err := cb.Fill(dst, []byte{1, 2, 3, 4}); err != nil {
					return err
				}
				if err := cb.Dispatch(exe, 0, grid, nil, []hal.BufferRef{src, dst}); err != nil {
					return err
				}
				return cb.Copy(dst, out)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}), len(in)
}

// TestFakeTraceDeviceTimes checks the commands timed by the device
// (events around each command, cuEventElapsedTime; checkDeviceTimes) and
// that the timing events are destroyed.
func TestFakeTraceDeviceTimes(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	events0, records0 := ctl.LiveEvents(), ctl.EventRecords()
	events, n := traceCommands(t, dev)
	if n := ctl.LiveEvents(); n != events0 {
		t.Errorf("%d live events after the trace, %d before: the timing events leak", n, events0)
	}
	if n := ctl.EventRecords() - records0; n < 2*8 {
		t.Errorf("%d events recorded, want at least 16 (two a command)", n)
	}
	checkDeviceTimes(t, events, n)
}

// checkDeviceTimes checks the trace of traceCommands for its commands
// timed by the device: each submission's update, fill, dispatch and copy
// on one thread of the device, in order, named and sized, each inside its
// host-timed submission.
func checkDeviceTimes(t *testing.T, events []traceEvent, n int) {
	t.Helper()
	var subs, cmds []traceEvent
	for _, e := range events {
		switch {
		case e.Ph == "X" && e.Name == "submission" && e.Args["commands"] == float64(4):
			subs = append(subs, e)
		case e.Ph == "X" && e.Args["clock"] == "device":
			cmds = append(cmds, e)
		}
	}
	if len(subs) != 2 || len(cmds) != 8 {
		t.Fatalf("%d submissions of 4 commands and %d device-timed commands, want 2 and 8:\n%+v", len(subs), len(cmds), events)
	}
	want := []string{"update", "fill", "scale", "copy"}
	const eps = 1e-3 // µs: the JSON's rounding
	for i, c := range cmds {
		sub := subs[i/4]
		if c.Name != want[i%4] || c.Tid != cmds[0].Tid || c.Tid == sub.Tid || c.Pid != sub.Pid {
			t.Errorf("command %d: %s on %d/%d, want %s on one device-timed thread of process %d", i, c.Name, c.Pid, c.Tid, want[i%4], sub.Pid)
		}
		if c.Dur < 0 || c.Ts < sub.Ts-eps || c.Ts+c.Dur > sub.Ts+sub.Dur+eps {
			t.Errorf("%s [%g, +%g] is not inside its submission [%g, +%g]", c.Name, c.Ts, c.Dur, sub.Ts, sub.Dur)
		}
		if i > 0 && c.Ts < cmds[i-1].Ts+cmds[i-1].Dur-eps {
			t.Errorf("%s starts at %g, before %s ends at %g", c.Name, c.Ts, cmds[i-1].Name, cmds[i-1].Ts+cmds[i-1].Dur)
		}
	}
	if d := cmds[2]; d.Args["workgroups"] != float64(6) || d.Args["bindings"] != float64(2) || d.Cat != timeline.CatDispatch {
		t.Errorf("dispatch %+v", d)
	}
	for _, c := range []traceEvent{cmds[0], cmds[1], cmds[3]} {
		if c.Args["bytes"] != float64(n) || c.Cat != timeline.CatTransfer {
			t.Errorf("%s %+v, want %d bytes", c.Name, c, n)
		}
	}
}

// TestFakeTraceGraphsHostTimed: a submission captured into a CUDA graph
// (--cuda_use_streams=false) is timed on the host only, as is one on a
// libcuda without cuEventElapsedTime; neither leaves events behind.
func TestFakeTraceGraphsHostTimed(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	for name, setup := range map[string]func(d *driver){
		"graphs":                func(d *driver) { d.opts.useStreams = false },
		"no cuEventElapsedTime": func(d *driver) { d.cu.EventElapsedTime = nil },
	} {
		d := createFake(t, spec)
		setup(d)
		dev := openFake(t, d)
		events0 := ctl.LiveEvents()
		var subs, cmds int
		events, _ := traceCommands(t, dev)
		for _, e := range events {
			switch {
			case e.Ph == "X" && e.Name == "submission" && e.Args["commands"] == float64(4) && e.Args["clock"] == "host":
				subs++
			case e.Ph == "X" && e.Args["clock"] == "device":
				cmds++
			}
		}
		if subs != 2 || cmds != 0 {
			t.Errorf("%s: %d host-timed submissions and %d device-timed commands, want 2 and 0", name, subs, cmds)
		}
		if n := ctl.LiveEvents(); n != events0 {
			t.Errorf("%s: %d live events after the trace, %d before", name, n, events0)
		}
	}
}
