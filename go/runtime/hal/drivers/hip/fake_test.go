package hip

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/gpuinfo"
	"github.com/gree-ml/gree/go/runtime/hal/gpuinfo/gputest"
	"github.com/gree-ml/gree/go/status"
)

// fakeControl reaches into testdata/fake_libamdhip64.c.
type fakeControl struct {
	SetInitResult func(r int32)         `sym:"fake_set_init_result"`
	Retained      func(dev int32) int32 `sym:"fake_retained"`
}

// fakeHIP builds the fake library as dir/libamdhip64.so (with extra
// compiler flags) and returns the directory and its control functions.
// Each call builds a fresh copy with fresh state.
func fakeHIP(t *testing.T, cflags ...string) (string, *fakeControl) {
	t.Helper()
	dir := t.TempDir()
	path := gputest.BuildSharedLibrary(t, "testdata/fake_libamdhip64.c", dir, "libamdhip64.so", cflags...)
	lib, err := dylib.Open(dylib.Spec{What: "fake libamdhip64", Candidates: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	var ctl fakeControl
	if err := lib.Bind(&ctl); err != nil {
		t.Fatal(err)
	}
	return dir, &ctl
}

// createFake creates the driver the way Factory does, with
// --hip_dylib_path=dir.
func createFake(t *testing.T, dir string) *driver {
	t.Helper()
	d, err := create(librarySpec([]string{dir}, noEnv))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFakeHIPConformance(t *testing.T) {
	dir, _ := fakeHIP(t)
	cts.Run(t, hal.Factory{Name: Name, FullName: "hip driver on the fake libamdhip64", Create: func() (hal.Driver, error) {
		d, err := create(librarySpec([]string{dir}, noEnv))
		if err != nil {
			return nil, err
		}
		return d, nil
	}})
}

func TestFakeHIPFoundThroughFlagAndEnv(t *testing.T) {
	dir, _ := fakeHIP(t)
	saved := *flagDylibPath
	t.Cleanup(func() { *flagDylibPath = saved })

	*flagDylibPath = []string{"/nonexistent/first", dir}
	d, err := Factory.Create()
	if err != nil {
		t.Fatalf("--hip_dylib_path=%s: %v", dir, err)
	}
	d.Close()

	*flagDylibPath = nil
	t.Setenv("IREE_HIP_DYLIB_PATH", "/nonexistent;"+dir)
	t.Setenv("GREE_HIP_DYLIB_PATH", "")
	if d, err = Factory.Create(); err != nil {
		t.Fatalf("IREE_HIP_DYLIB_PATH: %v", err)
	}
	d.Close()
	t.Setenv("IREE_HIP_DYLIB_PATH", "")
	t.Setenv("GREE_HIP_DYLIB_PATH", "file:"+filepath.Join(dir, "libamdhip64.so"))
	if d, err = Factory.Create(); err != nil {
		t.Fatalf("GREE_HIP_DYLIB_PATH: %v", err)
	}
	d.Close()
}

func TestFakeHIPDevices(t *testing.T) {
	dir, _ := fakeHIP(t)
	d := createFake(t, dir)
	got, err := d.QueryAvailableDevices()
	if err != nil {
		t.Fatal(err)
	}
	want := []hal.DeviceInfo{
		{ID: 1, Path: "GPU-30313233-3435-3637-3839-616263646566", Name: "Fake Instinct 0"},
		{ID: 2, Path: "GPU-66656463-6261-3938-3736-353433323130", Name: "Fake Instinct 1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
}

// fakeAttrs is what the fake library answers for device dev.
type fakeAttrs struct {
	dev  int32
	arch string
}

func (f fakeAttrs) attribute(attr int32) (int32, error) { return 1000*f.dev + attr, nil }
func (f fakeAttrs) totalMemory() (uint64, error)        { return 64 << 30, nil }
func (f fakeAttrs) archName() (string, error)           { return f.arch, nil }

func TestFakeHIPDumpR0600(t *testing.T) {
	dir, _ := fakeHIP(t)
	d := createFake(t, dir)
	lib := filepath.Join(dir, "libamdhip64.so")
	for _, tc := range []struct {
		id   hal.DeviceID
		arch string
	}{{1, "gfx942:sramecc+:xnack-"}, {2, "gfx1100"}} {
		got, err := d.DumpDeviceInfo(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := formatDump(lib, fakeAttrs{dev: int32(tc.id - 1), arch: tc.arch})
		if got != want {
			t.Errorf("dump of device %d:\n%s\nwant:\n%s", tc.id, got, want)
		}
	}
	got, _ := d.DumpDeviceInfo(2)
	for _, line := range []string{
		"\n- amdhip64_dylib_path: " + lib + "\n",
		"\n- gpu-compute-capability: 1023.1061\n",
		"\n- gpu-arch-name: gfx1100\n",
		"\n- memory-total-global-memory-size: 65536 MB\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("dump lacks %q:\n%s", line, got)
		}
	}
	if _, err := d.DumpDeviceInfo(3); status.CodeOf(err) != status.NotFound {
		t.Errorf("DumpDeviceInfo(3) = %v, want NOT_FOUND", err)
	}
}

func TestFakeHIPDumpR0000(t *testing.T) {
	dir, _ := fakeHIP(t, "-DFAKE_R0000")
	d := createFake(t, dir)
	if d.hip.GetDevicePropertiesR0600 != nil || d.hip.GetDevicePropertiesR0000 == nil {
		t.Fatal("the ROCm 5 fake should export only hipGetDeviceProperties")
	}
	got, err := d.DumpDeviceInfo(1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "\n- gpu-arch-name: gfx942:sramecc+:xnack-\n") {
		t.Errorf("dump:\n%s", got)
	}
}

func TestFakeHIPDumpRejectsUnexpectedLayout(t *testing.T) {
	dir, _ := fakeHIP(t, "-DFAKE_BAD_LAYOUT")
	d := createFake(t, dir)
	if _, err := d.DumpDeviceInfo(1); status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "hipDeviceProp_t layout") {
		t.Errorf("err = %v, want INTERNAL about the layout", err)
	}
}

func TestFakeHIPDeviceRetainsAndReleasesContext(t *testing.T) {
	dir, ctl := fakeHIP(t)
	d := createFake(t, dir)
	dev, err := d.CreateDeviceByPath("1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if dev.ID() != "hip" || dev.Info().ID != 2 {
		t.Errorf("device = %q %+v", dev.ID(), dev.Info())
	}
	if got := dev.(*gpuinfo.ContextDevice).TotalMemory(); got != 64<<30 {
		t.Errorf("TotalMemory = %d", got)
	}
	if n := ctl.Retained(1); n != 1 {
		t.Errorf("retained %d, want 1", n)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := ctl.Retained(1); n != 0 {
		t.Errorf("after Close retained %d, want 0", n)
	}
	d.opts.defaultIndex = 1
	if dev, err = d.CreateDevice(0, nil); err != nil || dev.Info().ID != 2 {
		t.Errorf("CreateDevice(0) with --hip_default_index=1: %+v, %v", dev, err)
	} else {
		dev.Close()
	}
}

func TestFakeHIPMultiDevicePathIsUnimplemented(t *testing.T) {
	dir, ctl := fakeHIP(t)
	d := createFake(t, dir)
	_, err := d.CreateDeviceByPath("0,GPU-66656463-6261-3938-3736-353433323130", nil)
	if status.CodeOf(err) != status.Unimplemented {
		t.Fatalf("code = %v, want UNIMPLEMENTED (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"2 GPUs", "--device=hip://GPU-30313233-3435-3637-3839-616263646566 --device=hip://GPU-66656463-6261-3938-3736-353433323130"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := d.CreateDeviceByPath("0,7", nil); status.CodeOf(err) != status.OutOfRange {
		t.Errorf("0,7: %v, want OUT_OF_RANGE for the bad entry", err)
	}
	if _, err := d.CreateDeviceByPath("0,", nil); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("0,: %v, want INVALID_ARGUMENT", err)
	}
	if n := ctl.Retained(0) + ctl.Retained(1); n != 0 {
		t.Errorf("%d contexts retained by failed creations", n)
	}
}

func TestFakeHIPInitFailureIsUnavailable(t *testing.T) {
	dir, ctl := fakeHIP(t)
	ctl.SetInitResult(hipErrorNoDevice)
	_, err := create(librarySpec([]string{dir}, noEnv))
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "hipInit failed: hipErrorNoDevice (100)") {
		t.Errorf("err = %v", err)
	}
}

func TestFakeHIPErrorNames(t *testing.T) {
	dir, _ := fakeHIP(t)
	d := createFake(t, dir)
	if err := d.hip.check(hipErrorInvalidDevice, "hipDeviceGet"); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "hipDeviceGet failed: hipErrorInvalidDevice (101)") {
		t.Errorf("err = %v", err)
	}
	if _, err := (&source{hip: &d.hip}).attribute(999); !strings.Contains(err.Error(), "hipDeviceGetAttribute(999) failed: hipErrorInvalidValue (1)") {
		t.Errorf("bad attribute: %v", err)
	}
}
