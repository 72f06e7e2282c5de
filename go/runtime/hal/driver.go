package hal

// DeviceID identifies a device within its driver. As in IREE it is 0 for the
// single local CPU device and ordinal+1 for GPUs, so 0 never names a GPU.
type DeviceID int64

// DeviceInfo describes one device a driver can create.
type DeviceInfo struct {
	// ID is passed back to Driver.CreateDevice.
	ID DeviceID
	// Path is what follows "driver://" in a device URI ("" for local
	// devices, "GPU-<uuid>" for CUDA and HIP, the UUID for Vulkan).
	Path string
	// Name is the human-readable device name ("default" for local devices).
	Name string
}

// Driver enumerates and creates the devices of one HAL backend.
type Driver interface {
	// Name is the registered driver name, e.g. "cuda".
	Name() string
	// QueryAvailableDevices lists the devices in the driver's order.
	QueryAvailableDevices() ([]DeviceInfo, error)
	// DumpDeviceInfo returns the --dump_devices text for the device (empty
	// for drivers that have nothing to say).
	DumpDeviceInfo(id DeviceID) (string, error)
	// CreateDevice creates the device with the given id.
	CreateDevice(id DeviceID, params map[string]string) (Device, error)
	// CreateDeviceByPath creates the device a URI path names; "" is the
	// driver's default device.
	CreateDeviceByPath(path string, params map[string]string) (Device, error)
	// Close releases what the driver holds. Devices it created stay valid
	// until they are closed themselves.
	Close() error
}

// Factory registers a driver.
type Factory struct {
	// Name is the driver name used in URIs and --device flags.
	Name string
	// FullName is the one-line description printed by --list_drivers.
	FullName string
	// Create makes a driver; it loads the driver's native library, if any,
	// and returns UNAVAILABLE naming it when it cannot.
	Create func() (Driver, error)
}
