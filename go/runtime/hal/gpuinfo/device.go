package gpuinfo

import (
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// ContextDevice is a created GPU device that holds a retained primary
// context (CUDA and HIP both work this way): it knows its driver name, its
// DeviceInfo and total memory, and releases the context once on Close.
type ContextDevice struct {
	hal.Unexecuting
	driver      string
	info        hal.DeviceInfo
	totalMemory uint64
	release     func() error
	closeOnce   sync.Once
	closeErr    error
}

var _ hal.Device = (*ContextDevice)(nil)

// NewContextDevice wraps a retained context; release gives it back.
func NewContextDevice(driver string, info hal.DeviceInfo, totalMemory uint64, release func() error) *ContextDevice {
	return &ContextDevice{Unexecuting: hal.Unexecuting{Driver: driver}, driver: driver, info: info, totalMemory: totalMemory, release: release}
}

// ID returns the driver name, IREE's device identifier.
func (v *ContextDevice) ID() string { return v.driver }

// Info returns the device's DeviceInfo.
func (v *ContextDevice) Info() hal.DeviceInfo { return v.info }

// TotalMemory is the device memory in bytes.
func (v *ContextDevice) TotalMemory() uint64 { return v.totalMemory }

// Close releases the primary context; later calls do nothing.
func (v *ContextDevice) Close() error {
	v.closeOnce.Do(func() { v.closeErr = v.release() })
	return v.closeErr
}
