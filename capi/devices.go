package main

/*
#include "internal.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// newDevice wraps dev in a C handle the caller owns.
func newDevice(dev hal.Device, out *C.gree_device_t) {
	h := (*C.struct_gree_device_s)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_gree_device_s{}))))
	h.handle = C.uintptr_t(cgo.NewHandle(dev))
	h.id = C.CString(dev.ID())
	info := dev.Info()
	h.info.device_id = C.int64_t(info.ID)
	h.info.path = C.CString(info.Path)
	h.info.name = C.CString(info.Name)
	*out = h
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
	if d == nil {
		return
	}
	h := cgo.Handle(d.handle)
	if dev, ok := h.Value().(hal.Device); ok {
		dev.Close()
	}
	h.Delete()
	C.free(unsafe.Pointer(d.id))
	C.free(unsafe.Pointer(d.info.path))
	C.free(unsafe.Pointer(d.info.name))
	C.free(unsafe.Pointer(d))
}
