package main

/*
#include "internal.h"
*/
import "C"

import (
	"bytes"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/status"
)

// registryStrings keeps the C copies of driver names alive for the process:
// gree_driver_registry_get hands them out as static storage.
var (
	registryMu      sync.Mutex
	registryStrings = map[string]*C.char{}
)

func staticCString(s string) *C.char {
	registryMu.Lock()
	defer registryMu.Unlock()
	if p, ok := registryStrings[s]; ok {
		return p
	}
	p := C.CString(s)
	registryStrings[s] = p
	return p
}

//export gree_flags_parse
func gree_flags_parse(argc C.size_t, argv **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if argc > 0 && argv == nil {
		return invalidArg("argv must not be NULL when argc > 0")
	}
	rest, err := flags.Parse(goArgs(argc, argv), flags.UnknownIsError)
	if err != nil {
		return toStatus(err)
	}
	if len(rest) > 0 {
		return invalidArg("gree_flags_parse takes only --flags; got positional argument %q", rest[0])
	}
	return nil
}

//export gree_driver_registry_count
func gree_driver_registry_count() (n C.size_t) {
	defer guardVoid()
	return C.size_t(len(runtime.Drivers().Factories()))
}

//export gree_driver_registry_get
func gree_driver_registry_get(index C.size_t, outName, outFullName **C.char) (st C.gree_status_t) {
	defer guard(&st)
	fs := runtime.Drivers().Factories()
	if int(index) >= len(fs) {
		return toStatus(status.Errorf(status.OutOfRange, "driver index %d out of range; %d drivers are registered", index, len(fs)))
	}
	if outName != nil {
		*outName = staticCString(fs[index].Name)
	}
	if outFullName != nil {
		*outFullName = staticCString(fs[index].FullName)
	}
	return nil
}

func driverOf(d C.gree_driver_t) (hal.Driver, error) {
	if d == nil {
		return nil, status.New(status.InvalidArgument, "driver must not be NULL")
	}
	drv, ok := cgo.Handle(d.handle).Value().(hal.Driver)
	if !ok {
		return nil, status.New(status.InvalidArgument, "driver handle is not a driver (released already?)")
	}
	return drv, nil
}

//export gree_driver_create
func gree_driver_create(uri *C.char, outDriver *C.gree_driver_t) (st C.gree_status_t) {
	defer guard(&st)
	if uri == nil || outDriver == nil {
		return invalidArg("uri and out_driver must not be NULL")
	}
	*outDriver = nil
	d, err := runtime.CreateDriver(C.GoString(uri))
	if err != nil {
		return toStatus(err)
	}
	h := (*C.struct_gree_driver_s)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_gree_driver_s{}))))
	h.handle = C.uintptr_t(cgo.NewHandle(d))
	h.name = C.CString(d.Name())
	*outDriver = h
	return nil
}

//export gree_driver_release
func gree_driver_release(d C.gree_driver_t) {
	defer guardVoid()
	if d == nil {
		return
	}
	h := cgo.Handle(d.handle)
	if drv, ok := h.Value().(hal.Driver); ok {
		drv.Close()
	}
	h.Delete()
	C.free(unsafe.Pointer(d.name))
	C.free(unsafe.Pointer(d))
}

//export gree_driver_query_available_devices
func gree_driver_query_available_devices(d C.gree_driver_t, outList *C.gree_device_info_list_t) (st C.gree_status_t) {
	defer guard(&st)
	if outList == nil {
		return invalidArg("out_list must not be NULL")
	}
	*outList = nil
	drv, err := driverOf(d)
	if err != nil {
		return toStatus(err)
	}
	infos, err := drv.QueryAvailableDevices()
	if err != nil {
		return toStatus(err)
	}
	l := C.gree__device_info_list_new(C.size_t(len(infos)))
	for i, info := range infos {
		C.gree__device_info_list_set(l, C.size_t(i), C.int64_t(info.ID), C.CString(info.Path), C.CString(info.Name))
	}
	*outList = l
	return nil
}

//export gree_driver_dump_device_info
func gree_driver_dump_device_info(d C.gree_driver_t, id C.int64_t, outText **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if outText == nil {
		return invalidArg("out_text must not be NULL")
	}
	*outText = nil
	drv, err := driverOf(d)
	if err != nil {
		return toStatus(err)
	}
	text, err := drv.DumpDeviceInfo(hal.DeviceID(id))
	if err != nil {
		return toStatus(err)
	}
	*outText = C.CString(text)
	return nil
}

//export gree_devices_report
func gree_devices_report(what, driver *C.char, outText **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if what == nil || outText == nil {
		return invalidArg("what and out_text must not be NULL")
	}
	*outText = nil
	name := ""
	if driver != nil {
		name = C.GoString(driver)
	}
	var b bytes.Buffer
	var err error
	switch w := C.GoString(what); w {
	case "list_drivers":
		tooling.ListDrivers(&b, runtime.Drivers())
	case "list_devices":
		err = tooling.ListDevices(&b, runtime.Drivers(), name)
	case "dump_devices":
		err = tooling.DumpDevices(&b, runtime.Drivers(), name)
	default:
		return invalidArg("unknown report %q; expected list_drivers, list_devices or dump_devices", w)
	}
	if err != nil {
		return toStatus(err)
	}
	*outText = C.CString(b.String())
	return nil
}
