package tooling

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localsync"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localtask"
	"github.com/gree-ml/gree/go/status"
)

func testRegistry() *hal.Registry {
	r := &hal.Registry{}
	r.Register(hal.Factory{Name: "cuda", FullName: "NVIDIA CUDA HAL driver (via dylib)", Create: func() (hal.Driver, error) {
		return nil, status.New(status.Unavailable, "libcuda.so.1 could not be loaded")
	}})
	r.Register(localsync.Factory)
	r.Register(localtask.Factory)
	return r
}

func TestListDriversText(t *testing.T) {
	var b bytes.Buffer
	ListDrivers(&b, testRegistry())
	want := `# ============================================================================
# Available HAL drivers
# ============================================================================
# Use --list_devices={driver name} to enumerate available devices.

            cuda: NVIDIA CUDA HAL driver (via dylib)
      local-sync: Local execution using a lightweight inline synchronous queue
      local-task: Local execution using the IREE multithreading task system
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestListDevicesSkipsUnavailableDrivers(t *testing.T) {
	var b bytes.Buffer
	if err := ListDevices(&b, testRegistry(), ""); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("local-sync://\nlocal-task://\n", b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b.Reset()
	err := ListDevices(&b, testRegistry(), "cuda")
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Errorf("naming an unavailable driver: %v", err)
	}
	if err := ListDevices(&b, testRegistry(), "nope"); status.CodeOf(err) != status.NotFound {
		t.Errorf("unknown driver: %v", err)
	}
}

func TestDumpDevicesText(t *testing.T) {
	var b bytes.Buffer
	if err := DumpDevices(&b, testRegistry(), ""); err != nil {
		t.Fatal(err)
	}
	want := `# ============================================================================
# Enumerated devices for driver 'local-sync'
# ============================================================================

# ===----------------------------------------------------------------------===
# --device=local-sync://
#   default
# ===----------------------------------------------------------------------===

# ============================================================================
# Enumerated devices for driver 'local-task'
# ============================================================================

# ===----------------------------------------------------------------------===
# --device=local-task://
#   default
# ===----------------------------------------------------------------------===
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
