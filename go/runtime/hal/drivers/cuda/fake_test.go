package cuda

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	"github.com/gree-ml/gree/go/status"
)

// fakeControl reaches into the fake libcuda.
type fakeControl = cudatest.Control

// fakeLibcuda builds the fake library (cudatest) and returns a spec
// loading it and its controls. Each call builds a fresh copy with fresh
// state, with a launch hook that runs kernels on the PTX simulator.
func fakeLibcuda(t *testing.T) (dylib.Spec, *fakeControl) {
	t.Helper()
	path, ctl := cudatest.Open(t)
	spec := libcuda
	spec.Candidates = []string{path}
	return spec, ctl
}

func createFake(t *testing.T, spec dylib.Spec) *driver {
	t.Helper()
	d, err := create(spec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFakeLibcudaConformance runs the hal suite on the fake libcuda with
// device memory mapped for the host (the fake's device memory is host
// memory, so it can be); TestFakeLibcudaConformanceDeviceLocal runs it on
// memory the host cannot map, as on a real GPU, where transfers stage.
func TestFakeLibcudaConformance(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	cts.Run(t, hal.Factory{Name: Name, FullName: "cuda driver on the fake libcuda", Create: func() (hal.Driver, error) {
		d, err := create(spec)
		if err != nil {
			return nil, err
		}
		d.mapDevice = true
		return d, nil
	}})
}

func TestFakeLibcudaConformanceDeviceLocal(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	cts.Run(t, hal.Factory{Name: Name, FullName: "cuda driver on the fake libcuda", Create: func() (hal.Driver, error) {
		d, err := create(spec)
		if err != nil {
			return nil, err
		}
		return d, nil
	}})
}

func TestFakeLibcudaDevices(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	if n := ctl.InitCalls(); n != 1 {
		t.Errorf("cuInit called %d times by create, want 1", n)
	}
	got, err := d.QueryAvailableDevices()
	if err != nil {
		t.Fatal(err)
	}
	want := []hal.DeviceInfo{
		{ID: 1, Path: "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf", Name: "Fake GPU 0"},
		{ID: 2, Path: "GPU-b0b1b2b3-b4b5-b6b7-b8b9-babbbcbdbebf", Name: "Fake GPU 1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
}

// fakeAttrs is what the fake library answers for device dev.
type fakeAttrs struct {
	ctl *fakeControl
	dev int32
}

func (f fakeAttrs) attribute(attr int32) (int32, error) { return f.ctl.Attribute(f.dev, attr), nil }
func (f fakeAttrs) driverVersion() (int32, error)       { return 12040, nil }

func TestFakeLibcudaDump(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	got, err := d.DumpDeviceInfo(2)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := formatDump(fakeAttrs{ctl: ctl, dev: 1})
	if got != want {
		t.Errorf("dump of device 2:\n%s\nwant:\n%s", got, want)
	}
	for _, line := range []string{"\n- gpu-compute-capability: 8.0\n", "\n- launch-max-block-dims: (1024, 1024, 64)\n", "\n- driver-max-cuda-version: 12.4\n", "\n- sync-mem-domain-count: 1126\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("dump lacks %q", line)
		}
	}
	if _, err := d.DumpDeviceInfo(3); status.CodeOf(err) != status.NotFound {
		t.Errorf("DumpDeviceInfo(3) = %v, want NOT_FOUND", err)
	}
	if _, err := d.DumpDeviceInfo(0); status.CodeOf(err) != status.NotFound {
		t.Errorf("DumpDeviceInfo(0) = %v, want NOT_FOUND", err)
	}
}

func TestFakeLibcudaDeviceRetainsAndReleasesContext(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	dev, err := d.CreateDeviceByPath("GPU-B0B1B2B3-B4B5-B6B7-B8B9-BABBBCBDBEBF", nil)
	if err != nil {
		t.Fatal(err)
	}
	if dev.ID() != "cuda" || dev.Info().ID != 2 || dev.Info().Name != "Fake GPU 1" {
		t.Errorf("device = %q %+v", dev.ID(), dev.Info())
	}
	if got := dev.(*device).TotalMemory(); got != 80<<30 {
		t.Errorf("TotalMemory = %d", got)
	}
	if n := ctl.Retained(1); n != 1 {
		t.Errorf("primary context retained %d times, want 1", n)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := ctl.Retained(1); n != 0 {
		t.Errorf("after Close the context is retained %d times, want 0", n)
	}
}

func TestFakeLibcudaDefaultDevice(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	d.opts.defaultIndex = 1
	for name, create := range map[string]func() (hal.Device, error){
		"path ''": func() (hal.Device, error) { return d.CreateDeviceByPath("", nil) },
		"id 0":    func() (hal.Device, error) { return d.CreateDevice(0, nil) },
	} {
		dev, err := create()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if dev.Info().ID != 2 {
			t.Errorf("%s: got device %+v, want id 2 (default index 1)", name, dev.Info())
		}
		dev.Close()
	}
	d.opts.defaultIndex = 5
	if _, err := d.CreateDeviceByPath("", nil); status.CodeOf(err) != status.OutOfRange {
		t.Errorf("default index 5 of 2: %v", err)
	}
	if n := ctl.Retained(0) + ctl.Retained(1); n != 0 {
		t.Errorf("%d contexts left retained", n)
	}
}

func TestFakeLibcudaInitFailureIsUnavailable(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	ctl.SetInitResult(cudaErrorNoDevice)
	_, err := create(spec)
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	if !strings.Contains(err.Error(), "cuInit failed: CUDA_ERROR_NO_DEVICE (100); no NVIDIA GPU is visible") {
		t.Errorf("err = %v", err)
	}
}

func TestFakeLibcudaErrorNames(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	d := createFake(t, spec)
	if err := d.cu.check(cudaErrorInvalidDevice, "cuDeviceGet"); !strings.Contains(err.Error(), "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101)") {
		t.Errorf("err = %v", err)
	}
	if got := d.cu.errorName(12345); got != "unknown CUresult" {
		t.Errorf("errorName(12345) = %q", got)
	}
	if _, err := (&source{cu: &d.cu, dev: 0}).attribute(999); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "cuDeviceGetAttribute(999) failed: CUDA_ERROR_INVALID_VALUE (1)") {
		t.Errorf("bad attribute: %v", err)
	}
}
