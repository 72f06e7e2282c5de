package cuda

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// TestFakeTrace records a dispatch on the fake libcuda: its submission
// is on the device's host-timed queue thread with the entry point, the
// workgroups and the bytes, and the staging transfers are there.
func TestFakeTrace(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	exe := prepare(t, dev, scaleExecutable(t))
	timeline.Stop()
	if err := timeline.Start(""); err != nil {
		t.Fatal(err)
	}
	grid := [3]int64{7, 5, 3}
	in := cts.ScaleInput(grid[0] * grid[1] * grid[2])
	_, err := runScale(t, dev, exe, grid, in, int64(len(in)))
	r := timeline.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []struct {
			Name, Ph string
			Ts       float64
			Dur      float64
			Pid, Tid int
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	var dispatch, up, down bool
	for _, e := range f.TraceEvents {
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
		t.Errorf("dispatch %v, upload %v, download %v in\n%s", dispatch, up, down, buf.String())
	}
}
