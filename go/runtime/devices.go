package runtime

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/allocators"
)

// DeviceOptions name the devices a session runs on.
type DeviceOptions struct {
	// URIs are the devices, in ordinal order: host programs run on the
	// first, and a module compiled for several devices places work on
	// device i on the i-th (none: DefaultDevice).
	URIs []string
	// Allocators are allocator specs (--device_allocator: "caching",
	// "debug", …; see the allocators package) applied to every device.
	Allocators []string
}

// CreateDevice creates the device uri names ("" = DefaultDevice) with its
// allocator wrapped in the allocator specs, in order.
func CreateDevice(uri string, allocatorSpecs []string) (hal.Device, error) {
	if uri == "" {
		uri = DefaultDevice
	}
	dev, err := Drivers().CreateDeviceByURI(uri)
	if err != nil {
		return nil, err
	}
	if err := ConfigureAllocators(dev, allocatorSpecs); err != nil {
		dev.Close()
		return nil, err
	}
	return dev, nil
}

// NewSessionFor creates o's devices and a context on them; the session
// closes them.
func NewSessionFor(o DeviceOptions) (*Session, error) {
	uris := o.URIs
	if len(uris) == 0 {
		uris = []string{DefaultDevice}
	}
	var devs []hal.Device
	for _, uri := range uris {
		dev, err := CreateDevice(uri, o.Allocators)
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			return nil, err
		}
		devs = append(devs, dev)
	}
	s := NewSessionOnDevices(devs)
	s.owns = true
	return s, nil
}

// ConfigureAllocators wraps dev's allocator in allocator specs, in order
// (see the allocators package): call it right after creating the device.
func ConfigureAllocators(dev hal.Device, specs []string) error {
	return allocators.Configure(dev, specs)
}
