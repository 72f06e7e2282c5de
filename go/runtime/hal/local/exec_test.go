package local

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/status"
)

// scaleExe is the conformance suite's vmvx kernel (see cts.ScaleVMVX).
func scaleExe() []byte { return cts.ScaleVMVX() }

func floats(b []byte) []float32 {
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func newTestDevice(t *testing.T, name string, workers int) *Device {
	t.Helper()
	dev, err := NewDriver(name, workers).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev.(*Device)
}

func TestDispatchSameOnEveryDevice(t *testing.T) {
	grid := [3]int64{7, 5, 3}
	n := grid[0] * grid[1] * grid[2]
	in := make([]byte, 4*16*n)
	for i := int64(0); i < 16*n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i%97)*0.25-3))
	}
	var outs [][]byte
	for _, d := range []*Device{newTestDevice(t, "local-sync", 1), newTestDevice(t, "local-task", 2), newTestDevice(t, "local-task", 5)} {
		exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 10; rep++ {
			out := make([]byte, len(in))
			if err := d.Dispatch(exe, 0, grid, nil, [][]byte{in, out}); err != nil {
				t.Fatalf("%s (%d workers): %v", d.driver, d.workers, err)
			}
			outs = append(outs, out)
		}
	}
	got, src := floats(outs[0]), floats(in)
	for i := range got {
		if want := src[i]*3 + float32(i/16); got[i] != want {
			t.Fatalf("element %d: %g, want %g", i, got[i], want)
		}
	}
	for i, out := range outs {
		if !bytes.Equal(out, outs[0]) {
			t.Fatalf("dispatch %d differs from local-sync's", i)
		}
	}
}

func TestDispatchReportsWorkgroupError(t *testing.T) {
	grid := [3]int64{40, 1, 1}
	in := make([]byte, 4*16*40)
	for _, d := range []*Device{newTestDevice(t, "local-sync", 1), newTestDevice(t, "local-task", 2)} {
		exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 10; rep++ {
			short := make([]byte, 4*16*39) // the last workgroup stores out of bounds
			err := d.Dispatch(exe, 0, grid, nil, [][]byte{in, short})
			if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), `"scale"`) {
				t.Fatalf("%s: error %v, want OUT_OF_RANGE naming the entry", d.driver, err)
			}
		}
	}
}

func TestDispatchAfterClose(t *testing.T) {
	d := newTestDevice(t, "local-task", 2)
	exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4*16*8)
	if err := d.Dispatch(exe, 0, [3]int64{8, 1, 1}, nil, [][]byte{in, make([]byte, len(in))}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	err = d.Dispatch(exe, 0, [3]int64{8, 1, 1}, nil, [][]byte{in, make([]byte, len(in))})
	if status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("dispatch on a closed device: %v, want FAILED_PRECONDITION", err)
	}
}
