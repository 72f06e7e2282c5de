package module

import "strings"

// AttrDevices is the module attribute naming the devices a module places
// work on, comma-separated in ordinal order (IREE's
// --iree-hal-target-device=a=… --iree-hal-target-device=b=…: device 0 is
// a, device 1 is b). A module without it uses one device. A runtime
// resolves device i to the i-th device it was given and rejects a module
// that names more devices than it has.
const AttrDevices = "hal.devices"

// Devices returns the names of the devices the module places work on
// (AttrDevices), nil when it uses one device.
func (m *Module) Devices() []string {
	for _, a := range m.Attrs {
		if a.Key == AttrDevices && strings.TrimSpace(a.Value) != "" {
			names := strings.Split(a.Value, ",")
			for i := range names {
				names[i] = strings.TrimSpace(names[i])
			}
			return names
		}
	}
	return nil
}

// DeviceCount returns how many devices the module needs: len(Devices()),
// and 1 for a module that does not name its devices.
func (m *Module) DeviceCount() int {
	return max(len(m.Devices()), 1)
}
