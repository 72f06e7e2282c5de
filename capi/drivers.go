package main

/*
#include "internal.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
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
	// --help prints every flag and parsing goes on, as IREE's library
	// parsing does (IREE_FLAGS_PARSE_MODE_CONTINUE_AFTER_HELP).
	var args []string
	for _, a := range goArgs(argc, argv) {
		if a == "--help" || a == "-help" {
			fmt.Fprint(os.Stdout, flags.Default.Help())
			continue
		}
		args = append(args, a)
	}
	rest, err := flags.Parse(args, flags.UnknownIsError)
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

// driverEntry is what a gree_driver_t names: the driver and its name as
// a C string.
type driverEntry struct {
	d    hal.Driver
	name *C.char
}

func driverOf(d C.gree_driver_t) (hal.Driver, error) {
	e, err := objOf[*driverEntry](unsafe.Pointer(d), kindDriver)
	if err != nil {
		return nil, err
	}
	return e.d, nil
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
	name := C.CString(d.Name())
	*outDriver = (C.gree_driver_t)(newHandle(kindDriver, &driverEntry{d, name}, name))
	return nil
}

//export gree_driver_release
func gree_driver_release(d C.gree_driver_t) {
	defer guardVoid()
	if e, ok := dropHandle(unsafe.Pointer(d), kindDriver).(*driverEntry); ok {
		e.d.Close()
	}
}

//export gree_driver_name
func gree_driver_name(d C.gree_driver_t) *C.char {
	defer guardVoid()
	e, err := objOf[*driverEntry](unsafe.Pointer(d), kindDriver)
	if err != nil {
		return emptyCString
	}
	return e.name
}

// emptyCString is "" for accessors whose handle is bad.
var emptyCString = C.CString("")

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
