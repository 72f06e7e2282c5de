package halmodule

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
	"github.com/gree-ml/gree/go/status"
)

func TestDeviceList(t *testing.T) {
	a, err := local.NewDriver("local-sync", 1).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := local.NewDriver("local-task", 2).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d := NewWithDevices([]hal.Device{a, b})
	defer d.Close()
	if d.HAL() != a || len(d.Devices()) != 2 {
		t.Fatal("host programs do not run on the first device of the list")
	}
	for i, want := range []hal.Device{a, b} {
		if got, err := d.DeviceAt(i); err != nil || got != want {
			t.Errorf("DeviceAt(%d) = %v, %v", i, got, err)
		}
	}
	if _, err := d.DeviceAt(2); status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "device ordinal 2 is out of range: the HAL module was given 2 device(s) (local-sync, local-task)") {
		t.Errorf("DeviceAt(2): %v", err)
	}
	if err := d.RequireDevices("m", nil); err != nil {
		t.Error(err)
	}
	if err := d.RequireDevices("m", []string{"x", "y"}); err != nil {
		t.Error(err)
	}
	err = d.RequireDevices("m", []string{"x", "y", "z"})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "module 'm' places work on 3 devices (x, y, z) but the HAL module was given 2 (local-sync, local-task)") {
		t.Errorf("3 devices on 2: %v", err)
	}
	if one := New(a); len(one.Devices()) != 1 || one.RequireDevices("m", []string{"x", "y"}) == nil {
		t.Error("New makes a one-device list")
	}
}
