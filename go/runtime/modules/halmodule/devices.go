package halmodule

import (
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Devices returns the device list the bridge was made with (device
// ordinal i is element i).
func (d *Device) Devices() []hal.Device { return d.devs }

// DeviceAt resolves device ordinal i: the i-th device given, or an error
// naming the devices there are.
func (d *Device) DeviceAt(i int) (hal.Device, error) {
	if i < 0 || i >= len(d.devs) {
		return nil, status.Errorf(status.OutOfRange, "device ordinal %d is out of range: the HAL module was given %d device(s) (%s)", i, len(d.devs), d.deviceIDs())
	}
	return d.devs[i], nil
}

// RequireDevices checks that a module placing work on the named devices
// (in ordinal order; none: one device) can run on the bridge's list.
func (d *Device) RequireDevices(module string, names []string) error {
	if len(names) <= len(d.devs) {
		return nil
	}
	return status.Errorf(status.FailedPrecondition, "module '%s' places work on %d devices (%s) but the HAL module was given %d (%s): give one device per module device, in order (--device= once per device; create_hal_module(devices=[...]))",
		module, len(names), strings.Join(names, ", "), len(d.devs), d.deviceIDs())
}

func (d *Device) deviceIDs() string {
	ids := make([]string, len(d.devs))
	for i, dev := range d.devs {
		ids[i] = dev.ID()
	}
	return strings.Join(ids, ", ")
}
