package cuda

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/status"
)

// The tests here need an NVIDIA GPU and its driver's libcuda.so.1 (or
// GREE_LIBCUDA); without them they skip with the reason printed.

// hardwareDevice opens the default device of the real libcuda.
func hardwareDevice(t *testing.T) *device {
	t.Helper()
	d, err := Factory.Create()
	if status.CodeOf(err) == status.Unavailable {
		t.Skipf("no CUDA device here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dev, err := d.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev.(*device)
}

func TestHardwareDispatchScale(t *testing.T) {
	dev := hardwareDevice(t)
	t.Logf("running on %s", dev.describe())
	exe := prepare(t, dev, cts.ScalePTX())
	grid := [3]int64{70, 5, 3}
	in := cts.ScaleInput(grid[0] * grid[1] * grid[2])
	got, err := runScale(t, dev, exe, grid, in, int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, cts.ScaleExpected(in)) {
		t.Error("dispatch results differ from the kernel's definition")
	}
	_, err = runScale(t, dev, exe, [3]int64{4, 1, 1}, in[:4*64], 4*64-64)
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "load or store outside binding 1 (check 2)") {
		t.Errorf("a dispatch storing out of bounds: %v", err)
	}
}

func TestHardwareJITErrorLog(t *testing.T) {
	dev := hardwareDevice(t)
	ptx := ".version 7.0\n.target sm_60\n.address_size 64\n.visible .entry k()\n{\n\tnot_an_instruction %r1;\n\tret;\n}\n"
	data, err := cudaschema.Encode(&cudaschema.Executable{Variants: []cudaschema.Variant{{Arch: "sm_60", PTXVersion: 70, PTX: []byte(ptx),
		Entries: []cudaschema.Entry{{Name: "k", Symbol: "k", BlockSize: [3]int{1, 1, 1}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = dev.PrepareExecutable(cudaschema.Format, data)
	if err == nil || !strings.Contains(err.Error(), "cuModuleLoadDataEx failed") || !strings.Contains(err.Error(), "JIT error log") {
		t.Errorf("invalid PTX: %v, want the JIT's error log", err)
	}
}

func TestHardwareOutOfMemoryIsRecoverable(t *testing.T) {
	dev := hardwareDevice(t)
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	_, err := dev.Allocator().Allocate(params, int64(dev.TotalMemory()))
	if status.CodeOf(err) != status.ResourceExhausted {
		t.Errorf("allocating all of the device's memory: %v, want RESOURCE_EXHAUSTED", err)
	}
	b, err := dev.Allocator().Allocate(params, 1<<20)
	if err != nil {
		t.Fatalf("allocating after running out: %v", err)
	}
	b.Release()
}

// TestHardwareTraceDeviceTimes traces submissions on the GPU: their
// commands are timed by the device (CUDA timing events), in order inside
// their submissions.
func TestHardwareTraceDeviceTimes(t *testing.T) {
	dev := hardwareDevice(t)
	if dev.cu.EventElapsedTime == nil || !dev.opts.useStreams {
		t.Skip("this libcuda lacks cuEventElapsedTime, or submissions are captured into graphs (--cuda_use_streams=false): commands are timed on the host only")
	}
	events, n := traceCommands(t, dev)
	checkDeviceTimes(t, events, n)
}
