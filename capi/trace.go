package main

/*
#include "internal.h"
*/
import "C"

import (
	"github.com/gree-ml/gree/go/runtime"
)

//export gree_trace_begin
func gree_trace_begin(path *C.char) (st C.gree_status_t) {
	defer guard(&st)
	if path == nil || *path == 0 {
		return invalidArg("gree_trace_begin needs the path of the trace file to write (e.g. \"run.json\")")
	}
	return toStatus(runtime.TraceBegin(C.GoString(path)))
}

//export gree_trace_end
func gree_trace_end() (st C.gree_status_t) {
	defer guard(&st)
	return toStatus(runtime.TraceEnd())
}

//export gree_trace_active
func gree_trace_active() (active C.int) {
	defer guardVoid()
	if runtime.TraceActive() {
		return 1
	}
	return 0
}
