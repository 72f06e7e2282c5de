package cts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Run runs the suite on the driver f makes. The driver is created once;
// when creation fails with UNAVAILABLE (library or device missing) the
// suite skips with the error as its reason.
func Run(t *testing.T, f hal.Factory) {
	t.Helper()
	if f.Name == "" || f.FullName == "" {
		t.Fatalf("factory must have a name and a full name: %+v", f)
	}
	d, err := f.Create()
	if status.CodeOf(err) == status.Unavailable {
		t.Skipf("driver %s unavailable here: %v", f.Name, err)
	}
	if err != nil {
		t.Fatalf("creating driver %s: %v", f.Name, err)
	}
	t.Cleanup(func() { d.Close() })
	if d.Name() != f.Name {
		t.Errorf("driver name %q, factory name %q", d.Name(), f.Name)
	}
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		t.Fatalf("querying devices: %v", err)
	}
	t.Run("Enumeration", func(t *testing.T) { testEnumeration(t, d, devices) })
	if len(devices) == 0 {
		t.Logf("driver %s has no devices; device tests skipped", f.Name)
		return
	}
	t.Run("Dump", func(t *testing.T) { testDump(t, d, devices) })
	t.Run("CreateByID", func(t *testing.T) { testCreateByID(t, d, devices) })
	t.Run("CreateByPath", func(t *testing.T) { testCreateByPath(t, d, devices) })
	t.Run("BadIDs", func(t *testing.T) { testBadIDs(t, d, devices) })
	t.Run("Execution", func(t *testing.T) { runExecution(t, d) })
}

func testEnumeration(t *testing.T, d hal.Driver, devices []hal.DeviceInfo) {
	ids := map[hal.DeviceID]bool{}
	paths := map[string]bool{}
	for i, info := range devices {
		t.Logf("%s://%s  id=%d  name=%q", d.Name(), info.Path, info.ID, info.Name)
		if info.Name == "" {
			t.Errorf("device %d has no name", i)
		}
		if ids[info.ID] {
			t.Errorf("device id %d repeated", info.ID)
		}
		ids[info.ID] = true
		if paths[info.Path] {
			t.Errorf("device path %q repeated", info.Path)
		}
		paths[info.Path] = true
		if strings.ContainsAny(info.Path, " ?/") {
			t.Errorf("device path %q cannot be used in a URI", info.Path)
		}
	}
}

func testDump(t *testing.T, d hal.Driver, devices []hal.DeviceInfo) {
	for _, info := range devices {
		text, err := d.DumpDeviceInfo(info.ID)
		if err != nil {
			t.Errorf("dump %d: %v", info.ID, err)
			continue
		}
		t.Logf("dump of %s://%s:\n%s", d.Name(), info.Path, text)
	}
}

func testCreateByID(t *testing.T, d hal.Driver, devices []hal.DeviceInfo) {
	for _, info := range devices {
		dev, err := d.CreateDevice(info.ID, nil)
		if err != nil {
			t.Errorf("create %d: %v", info.ID, err)
			continue
		}
		if dev.ID() != d.Name() {
			t.Errorf("device ID() = %q, want the driver name %q", dev.ID(), d.Name())
		}
		if dev.Info() != info {
			t.Errorf("device Info() = %+v, want %+v", dev.Info(), info)
		}
		if err := dev.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

func testCreateByPath(t *testing.T, d hal.Driver, devices []hal.DeviceInfo) {
	paths := []string{""}
	for _, info := range devices {
		paths = append(paths, info.Path)
	}
	for _, p := range paths {
		dev, err := d.CreateDeviceByPath(p, nil)
		if err != nil {
			t.Errorf("create by path %q: %v", p, err)
			continue
		}
		if p != "" && dev.Info().Path != p {
			t.Errorf("path %q created device %+v", p, dev.Info())
		}
		dev.Close()
	}
}

func testBadIDs(t *testing.T, d hal.Driver, devices []hal.DeviceInfo) {
	if _, err := d.CreateDevice(5555, nil); status.CodeOf(err) != status.NotFound {
		t.Errorf("CreateDevice(5555) = %v, want NOT_FOUND", err)
	}
	if _, err := d.DumpDeviceInfo(5555); err == nil {
		t.Errorf("DumpDeviceInfo(5555) succeeded")
	}
	bad := fmt.Sprintf("no-such-device-%d", len(devices))
	if _, err := d.CreateDeviceByPath(bad, nil); err == nil {
		t.Errorf("CreateDeviceByPath(%q) succeeded", bad)
	}
}
