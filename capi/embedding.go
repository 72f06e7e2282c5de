package main

/*
#include "embed_internal.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/compiler/cli"
	"github.com/gree-ml/gree/go/compiler/embed"
)

// IREE's compiler embedding API (include/iree/compiler/embedding_api.h)
// over go/compiler/embed. Its objects are pointers to one-byte C
// allocations (distinct, never reused while live) that name a Go object in
// embedObjects; a pointer that names none, or one of another type, is
// reported on stderr and ignored, or returned as an error where the
// function returns one.

var embedObjects = struct {
	sync.Mutex
	m map[uintptr]any
}{m: map[uintptr]any{}}

func embedNew(obj any) unsafe.Pointer {
	p := C.malloc(1)
	embedObjects.Lock()
	embedObjects.m[uintptr(p)] = obj
	embedObjects.Unlock()
	return p
}

func embedGet[T any](p unsafe.Pointer, what string) (T, error) {
	var zero T
	if p == nil {
		return zero, fmt.Errorf("the %s must not be NULL", what)
	}
	embedObjects.Lock()
	obj, ok := embedObjects.m[uintptr(p)]
	embedObjects.Unlock()
	t, isT := obj.(T)
	if !ok || !isT {
		return zero, fmt.Errorf("%p is not a live %s of this library", p, what)
	}
	return t, nil
}

// embedFree forgets p and frees it; it returns the object it named.
func embedFree(p unsafe.Pointer) any {
	if p == nil {
		return nil
	}
	embedObjects.Lock()
	obj, ok := embedObjects.m[uintptr(p)]
	delete(embedObjects.m, uintptr(p))
	embedObjects.Unlock()
	if !ok {
		fmt.Fprintf(stderr(), "gree: ignoring the destruction of %p, which is not a live compiler object\n", p)
		return nil
	}
	C.free(p)
	return obj
}

// embedUse reports a misuse of a void function on stderr (it has no other
// way to say it).
func embedUse[T any](p unsafe.Pointer, what, fn string) (T, bool) {
	t, err := embedGet[T](p, what)
	if err != nil {
		fmt.Fprintf(stderr(), "gree: %s: %v\n", fn, err)
		return t, false
	}
	return t, true
}

// An error is its message, a C string (ireeCompilerErrorGetMessage returns
// the pointer itself).
func embedError(err error) unsafe.Pointer {
	if err == nil {
		return nil
	}
	return unsafe.Pointer(C.CString(err.Error()))
}

// embedGuard turns a panic into the function's error result (functions
// without one defer guardVoid): a Go panic never crosses the C ABI.
func embedGuard(out *unsafe.Pointer) {
	if p := recover(); p != nil {
		*out = embedError(panicError(p))
	}
}

//export ireeCompilerErrorDestroy
func ireeCompilerErrorDestroy(e unsafe.Pointer) { C.free(e) }

//export ireeCompilerErrorGetMessage
func ireeCompilerErrorGetMessage(e unsafe.Pointer) *C.char { return (*C.char)(e) }

// embedAPIVersion is (major << 16) | minor of the API gree implements.
const embedAPIVersion = 1<<16 | 4

//export ireeCompilerGetAPIVersion
func ireeCompilerGetAPIVersion() C.int { return embedAPIVersion }

var embedRevision = C.CString("gree-" + cli.Version)

//export ireeCompilerGetRevision
func ireeCompilerGetRevision() *C.char { return embedRevision }

//export ireeCompilerGlobalInitialize
func ireeCompilerGlobalInitialize() {}

//export ireeCompilerGlobalShutdown
func ireeCompilerGlobalShutdown() {}

// globalCL holds ireeCompilerSetupGlobalCL's arguments: C copies for
// ireeCompilerGetProcessCLArgs, and the flags new sessions start with.
var globalCL struct {
	sync.Mutex
	argv  **C.char
	argc  C.int
	flags []string
}

//export ireeCompilerSetupGlobalCL
func ireeCompilerSetupGlobalCL(argc C.int, argv **C.char, banner *C.char, installSignalHandlers C.bool) {
	defer guardVoid()
	args := goArgs(C.size_t(argc), argv)
	var flags []string
	if len(args) > 1 {
		flags = args[1:] // args[0] is the program name
	}
	if err := cli.CheckSessionFlags(flags); err != nil {
		fmt.Fprintf(stderr(), "gree: ireeCompilerSetupGlobalCL: %v\n", err)
		return
	}
	arr := (**C.char)(C.calloc(C.size_t(len(args)+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	cs := unsafe.Slice(arr, len(args)+1)
	for i, a := range args {
		cs[i] = C.CString(a)
	}
	globalCL.Lock()
	globalCL.argv, globalCL.argc, globalCL.flags = arr, C.int(len(args)), flags
	globalCL.Unlock()
}

//export ireeCompilerGetProcessCLArgs
func ireeCompilerGetProcessCLArgs(argc *C.int, argv ***C.char) {
	globalCL.Lock()
	defer globalCL.Unlock()
	if argc != nil {
		*argc = globalCL.argc
	}
	if argv != nil {
		*argv = globalCL.argv
	}
}

//export ireeCompilerEnumerateRegisteredHALTargetBackends
func ireeCompilerEnumerateRegisteredHALTargetBackends(fn, user unsafe.Pointer) {
	defer guardVoid()
	if fn == nil {
		return
	}
	for _, name := range compiler.TargetNames() {
		c := C.CString(name)
		C.gree__embed_call_name(fn, c, user)
		C.free(unsafe.Pointer(c))
	}
}

// ireeCompilerEnumeratePlugins calls nothing: gree's compiler has no
// plugins.
//
//export ireeCompilerEnumeratePlugins
func ireeCompilerEnumeratePlugins(fn, user unsafe.Pointer) {}

//export ireeCompilerSessionCreate
func ireeCompilerSessionCreate() unsafe.Pointer {
	s := embed.NewSession()
	globalCL.Lock()
	flags := globalCL.flags
	globalCL.Unlock()
	if len(flags) > 0 {
		if err := s.SetFlags(flags); err != nil {
			fmt.Fprintf(stderr(), "gree: global compiler flags: %v\n", err)
		}
	}
	return embedNew(s)
}

//export ireeCompilerSessionDestroy
func ireeCompilerSessionDestroy(s unsafe.Pointer) { embedFree(s) }

//export ireeCompilerSessionSetFlags
func ireeCompilerSessionSetFlags(sp unsafe.Pointer, argc C.int, argv **C.char) (out unsafe.Pointer) {
	defer embedGuard(&out)
	s, err := embedGet[*embed.Session](sp, "session")
	if err != nil {
		return embedError(err)
	}
	if argc > 0 && argv == nil {
		return embedError(fmt.Errorf("argv must not be NULL when argc is %d", argc))
	}
	return embedError(s.SetFlags(goArgs(C.size_t(argc), argv)))
}

//export ireeCompilerSessionGetFlags
func ireeCompilerSessionGetFlags(sp unsafe.Pointer, nonDefaultOnly C.bool, fn, user unsafe.Pointer) {
	defer guardVoid()
	s, ok := embedUse[*embed.Session](sp, "session", "ireeCompilerSessionGetFlags")
	if !ok || fn == nil {
		return
	}
	for _, f := range s.Flags(bool(nonDefaultOnly)) {
		c := C.CString(f)
		C.gree__embed_call_flag(fn, c, C.size_t(len(f)), user)
		C.free(unsafe.Pointer(c))
	}
}
