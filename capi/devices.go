package main

/*
#include "internal.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// deviceEntry is what a gree_device_t names: the device and the C copies
// of its strings.
type deviceEntry struct {
	dev  hal.Device
	id   *C.char
	info C.gree_device_info_t
}

// newDevice wraps dev in a handle the caller owns.
func newDevice(dev hal.Device, out *C.gree_device_t) {
	info := dev.Info()
	e := &deviceEntry{dev: dev, id: C.CString(dev.ID())}
	e.info.device_id = C.int64_t(info.ID)
	e.info.path = C.CString(info.Path)
	e.info.name = C.CString(info.Name)
	*out = (C.gree_device_t)(newHandle(kindDevice, e, e.id, e.info.path, e.info.name))
}

func deviceEntryOf(d C.gree_device_t) (*deviceEntry, error) {
	return objOf[*deviceEntry](unsafe.Pointer(d), kindDevice)
}

func deviceOf(d C.gree_device_t) (hal.Device, error) {
	e, err := deviceEntryOf(d)
	if err != nil {
		return nil, err
	}
	return e.dev, nil
}

func createDevice(d C.gree_driver_t, out *C.gree_device_t, create func(hal.Driver) (hal.Device, error)) C.gree_status_t {
	if out == nil {
		return invalidArg("out_device must not be NULL")
	}
	*out = nil
	drv, err := driverOf(d)
	if err != nil {
		return toStatus(err)
	}
	dev, err := create(drv)
	if err != nil {
		return toStatus(err)
	}
	newDevice(dev, out)
	return nil
}

//export gree_driver_create_device
func gree_driver_create_device(d C.gree_driver_t, id C.int64_t, out *C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	return createDevice(d, out, func(drv hal.Driver) (hal.Device, error) {
		return drv.CreateDevice(hal.DeviceID(id), nil)
	})
}

//export gree_driver_create_device_by_uri
func gree_driver_create_device_by_uri(d C.gree_driver_t, uri *C.char, out *C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	if uri == nil {
		return invalidArg("uri must not be NULL")
	}
	return createDevice(d, out, func(drv hal.Driver) (hal.Device, error) {
		u, err := hal.ParseURI(C.GoString(uri))
		if err != nil {
			return nil, err
		}
		if u.Driver != drv.Name() {
			return nil, status.Errorf(status.InvalidArgument, "device URI '%s' names driver '%s' but was given to driver '%s'", C.GoString(uri), u.Driver, drv.Name())
		}
		return drv.CreateDeviceByPath(u.Path, u.Params)
	})
}

//export gree_driver_create_default_device
func gree_driver_create_default_device(d C.gree_driver_t, out *C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	return createDevice(d, out, func(drv hal.Driver) (hal.Device, error) {
		return drv.CreateDeviceByPath("", nil)
	})
}

//export gree_device_release
func gree_device_release(d C.gree_device_t) {
	defer guardVoid()
	if e, ok := dropHandle(unsafe.Pointer(d), kindDevice).(*deviceEntry); ok {
		e.dev.Close()
	}
}

//export gree_device_id
func gree_device_id(d C.gree_device_t) *C.char {
	defer guardVoid()
	e, err := deviceEntryOf(d)
	if err != nil {
		return emptyCString
	}
	return e.id
}

//export gree_device_info
func gree_device_info(d C.gree_device_t, out *C.gree_device_info_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_info must not be NULL")
	}
	e, err := deviceEntryOf(d)
	if err != nil {
		return toStatus(err)
	}
	*out = e.info
	return nil
}

//export gree_device_configure_allocators
func gree_device_configure_allocators(d C.gree_device_t, specs **C.char, count C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	if count > 0 && specs == nil {
		return invalidArg("specs must not be NULL when count > 0")
	}
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(runtime.ConfigureAllocators(dev, goArgs(count, specs)))
}

//export gree_context_create_with_devices
func gree_context_create_with_devices(devices *C.gree_device_t, count C.size_t, out *C.gree_context_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_context must not be NULL")
	}
	*out = nil
	if count == 0 || devices == nil {
		return invalidArg("a context needs at least one device (devices must not be NULL, count > 0)")
	}
	var devs []hal.Device
	for i, d := range unsafe.Slice(devices, int(count)) {
		dev, err := deviceOf(d)
		if err != nil {
			return toStatus(status.Annotate(err, "devices[%d]", i))
		}
		devs = append(devs, dev)
	}
	*out = (C.gree_context_t)(newHandle(kindContext, &context{s: runtime.NewSessionOnDevices(devs)}))
	return nil
}
