package allocators

import "github.com/gree-ml/gree/go/runtime/hal"

// WithSpecs returns a driver factory like f whose drivers create every
// device with its allocator wrapped in specs (Configure): the conformance
// suite runs on the wrapped allocators through it.
func WithSpecs(f hal.Factory, specs ...string) hal.Factory {
	create := f.Create
	f.Create = func() (hal.Driver, error) {
		d, err := create()
		if err != nil {
			return nil, err
		}
		return specDriver{d, specs}, nil
	}
	return f
}

// specDriver creates its devices with allocator specs applied.
type specDriver struct {
	hal.Driver
	specs []string
}

func (d specDriver) configured(dev hal.Device, err error) (hal.Device, error) {
	if err != nil {
		return nil, err
	}
	if err := Configure(dev, d.specs); err != nil {
		dev.Close()
		return nil, err
	}
	return dev, nil
}

// CreateDevice creates the device and wraps its allocator.
func (d specDriver) CreateDevice(id hal.DeviceID, params map[string]string) (hal.Device, error) {
	return d.configured(d.Driver.CreateDevice(id, params))
}

// CreateDeviceByPath creates the device and wraps its allocator.
func (d specDriver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	return d.configured(d.Driver.CreateDeviceByPath(path, params))
}
