package local

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// defaultDevice is the one device a local driver has.
var defaultDevice = hal.DeviceInfo{ID: 0, Path: "", Name: "default"}

// Driver is a local CPU driver; name is "local-sync" or "local-task".
type Driver struct {
	name    string
	workers int
}

var _ hal.Driver = (*Driver)(nil)

// NewDriver returns the local driver called name.
// workers is how many goroutines run the workgroups of a dispatch; 1 or
// less runs them inline in the caller (local-sync).
func NewDriver(name string, workers int) *Driver { return &Driver{name: name, workers: workers} }

// Name returns the driver name.
func (d *Driver) Name() string { return d.name }

// QueryAvailableDevices returns the host CPU as the single device "default".
func (d *Driver) QueryAvailableDevices() ([]hal.DeviceInfo, error) {
	return []hal.DeviceInfo{defaultDevice}, nil
}

// DumpDeviceInfo has nothing to add for the host CPU, as in IREE.
func (d *Driver) DumpDeviceInfo(id hal.DeviceID) (string, error) {
	if _, err := hal.FindDevice(d.name, []hal.DeviceInfo{defaultDevice}, id); err != nil {
		return "", err
	}
	return "", nil
}

// CreateDevice creates the CPU device; its only id is 0.
func (d *Driver) CreateDevice(id hal.DeviceID, params map[string]string) (hal.Device, error) {
	if _, err := hal.FindDevice(d.name, []hal.DeviceInfo{defaultDevice}, id); err != nil {
		return nil, err
	}
	return &Device{driver: d.name, workers: d.workers}, nil
}

// CreateDeviceByPath creates the CPU device; local devices take no path.
func (d *Driver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	if path != "" {
		return nil, status.Errorf(status.NotFound, "device paths not yet implemented: '%s://%s' names a path, but the %s driver has one device; use '%s' or '%s://'", d.name, path, d.name, d.name, d.name)
	}
	return &Device{driver: d.name, workers: d.workers}, nil
}

// Close releases nothing: the driver holds no resources.
func (d *Driver) Close() error { return nil }

// Device is the host CPU.
type Device struct {
	driver  string
	workers int
}

var _ hal.Device = (*Device)(nil)

// ID returns the driver name, as IREE's device identifier.
func (d *Device) ID() string { return d.driver }

// Info returns the device's DeviceInfo.
func (d *Device) Info() hal.DeviceInfo { return defaultDevice }

// Close releases the device.
func (d *Device) Close() error { return nil }
