package vulkan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	tl "github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// TestRealTraceTimestamps records a fill, an update, a copy and two
// dispatches in one submission: each is a device-timed event on "queue
// 0", in command order, inside the host's submit→complete span.
func TestRealTraceTimestamps(t *testing.T) {
	dev := testDevice(t)
	if dev.ts.period == 0 {
		t.Skip("the device's queue has no timestamps")
	}
	exe := prepare(t, dev, axpb())
	const n = 256
	a := buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n)
	b := buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n)
	tl.Stop()
	must(t, "start", tl.Start(""))
	err := run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		must(t, "fill", cb.Fill(hal.WholeBuffer(a), []byte{1, 0, 0, 0}))
		must(t, "update", cb.Update(make([]byte, 64), hal.BufferRef{Buffer: b, Length: 64}))
		must(t, "copy", cb.Copy(hal.BufferRef{Buffer: a, Length: 128}, hal.BufferRef{Buffer: b, Offset: 128, Length: 128}))
		grid := [3]int64{n / 64, 1, 1}
		must(t, "dispatch", cb.Dispatch(exe, 0, grid, []int64{3, 7}, []hal.BufferRef{hal.WholeBuffer(a), hal.WholeBuffer(b)}))
		return cb.Dispatch(exe, 0, grid, []int64{2, 1}, []hal.BufferRef{hal.WholeBuffer(b), hal.WholeBuffer(a)})
	})
	r := tl.Stop()
	must(t, "run", err)
	var buf bytes.Buffer
	must(t, "write", r.WriteJSON(&buf))
	var f struct {
		TraceEvents []struct {
			Name, Ph, Cat string
			Ts, Dur       float64
			Pid, Tid      int
			Args          map[string]any
		}
	}
	must(t, "decode", json.Unmarshal(buf.Bytes(), &f))
	thread := map[[2]int]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			thread[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		}
	}
	var names []string
	var first, last, subStart, subEnd float64
	for _, e := range f.TraceEvents {
		switch {
		case e.Ph == "X" && thread[[2]int{e.Pid, e.Tid}] == "queue 0":
			if e.Args["clock"] != "device" || e.Dur < 0 {
				t.Errorf("event %+v", e)
			}
			if len(names) == 0 {
				first = e.Ts
			}
			names = append(names, e.Name)
			last = e.Ts + e.Dur
			if e.Cat == tl.CatDispatch && (e.Args["workgroups"] != float64(n/64) || e.Args["binding_bytes"] != float64(8*n)) {
				t.Errorf("dispatch args %v", e.Args)
			}
		case e.Name == "submission":
			subStart, subEnd = e.Ts, e.Ts+e.Dur
		}
	}
	want := []string{"fill", "update", "copy", "axpb", "axpb"}
	if len(names) != len(want) || names[0] != "fill" || names[3] != exe.EntryName(0) {
		t.Fatalf("device events %v, want %v\n%s", names, want, buf.String())
	}
	if first < subStart || last > subEnd+1 {
		t.Errorf("device events [%v, %v] outside the submission [%v, %v]", first, last, subStart, subEnd)
	}
}
