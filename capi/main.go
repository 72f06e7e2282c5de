package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}
#include "internal.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/status"
)

func main() {}

// apiVersion is GREE_API_VERSION of the header this library implements.
const apiVersion = 1

var versionCString = C.CString(runtime.Version)

//export gree_version
func gree_version() *C.char { return versionCString }

//export gree_api_version
func gree_api_version() C.int32_t { return apiVersion }

// toStatus converts a Go error into a C status the caller owns.
func toStatus(err error) C.gree_status_t {
	if err == nil {
		return nil
	}
	msg := C.CString(err.Error())
	defer C.free(unsafe.Pointer(msg))
	return C.gree__status_new(C.uint32_t(status.CodeOf(err)), msg)
}

// guard recovers a panic in an export into an INTERNAL status in *st.
// Every export that returns a status defers it first.
func guard(st *C.gree_status_t) {
	if p := recover(); p != nil {
		*st = toStatus(panicError(p))
	}
}

// panicError is the INTERNAL error a recovered panic p becomes: one line
// (GREE_DEBUG=1 writes the stack to stderr).
func panicError(p any) error {
	return status.FromPanic(p, "libgree")
}

// offThread runs f on a goroutine of its own and waits for it. An export
// runs on its C caller's thread, to which Go locks its goroutine: when a
// native kernel call outlasts a scheduler tick and the runtime hands the
// goroutine's processor to another thread, the caller's thread must sleep
// until a processor is free and be woken for it, as no other thread may
// run the goroutine. An invocation on its own goroutine resumes on
// whichever thread is free (MobileNetV2 from Python: 20 times the context
// switches of iree-benchmark-module, and 1.4-2 times its latency, before).
// A panic in f comes back as an INTERNAL error.
func offThread[T any](f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.err = panicError(p)
			}
			done <- r
		}()
		r.v, r.err = f()
	}()
	r := <-done
	return r.v, r.err
}

// guardVoid recovers a panic in an export that returns nothing; the panic
// is reported on stderr, since there is no status to carry it.
func guardVoid() {
	if p := recover(); p != nil {
		fmt.Fprintf(stderr(), "gree: %v\n", status.FromPanic(p, "libgree"))
	}
}

func invalidArg(format string, args ...any) C.gree_status_t {
	return toStatus(status.Errorf(status.InvalidArgument, format, args...))
}

// cbytes copies b into C memory the caller frees with gree_free, with a NUL
// after the end.
func cbytes(b []byte) (*C.uint8_t, C.size_t) {
	p := (*C.uint8_t)(C.malloc(C.size_t(len(b) + 1)))
	if len(b) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)), b)
	}
	*(*byte)(unsafe.Add(unsafe.Pointer(p), len(b))) = 0
	return p, C.size_t(len(b))
}

// goArgs copies a C argv.
func goArgs(argc C.size_t, argv **C.char) []string {
	args := make([]string, 0, int(argc))
	for i := C.size_t(0); i < argc; i++ {
		args = append(args, C.GoString(C.gree__argv_at(argv, i)))
	}
	return args
}
