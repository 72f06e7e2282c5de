package main

/*
#include "internal.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gree-ml/gree/go/status"
)

// Handles. Every object the C ABI hands out (gree_device_t,
// gree_buffer_t, …) is an address inside a range of address space gree
// reserves and never maps: a value no C or Go object can have, never
// reused while the range lasts, and never dereferenced by anyone. The
// object behind it lives in a table. A handle that is NULL, released or
// never created, or of another kind, is therefore an error with a message
// naming what the caller passed, not a use of freed memory; releasing it
// twice does nothing.

// kind is the type of object a handle names.
type kind uint8

const (
	kindDriver kind = iota + 1
	kindDevice
	kindModule
	kindContext
	kindBufferView
	kindValueList
	kindBuffer
	kindSemaphore
	kindFence
	kindCommandBuffer
	kindExecutable
	kindFile
	kindCancelToken
)

var kindNames = map[kind]string{
	kindDriver: "driver", kindDevice: "device", kindModule: "module", kindContext: "context",
	kindBufferView: "buffer view", kindValueList: "value list", kindBuffer: "buffer",
	kindSemaphore: "semaphore", kindFence: "fence", kindCommandBuffer: "command buffer",
	kindExecutable: "executable", kindFile: "file", kindCancelToken: "cancel token",
}

func (k kind) String() string { return kindNames[k] }

// handleStride is the distance between handles: one range of the
// reservation per handle.
const handleStride = 16

// entry is a live handle's object and the C strings it hands out as
// borrowed (freed when the handle is released).
type entry struct {
	kind kind
	obj  any
	strs []*C.char
}

var handles = struct {
	sync.RWMutex
	base, size uintptr
	next       uintptr // handles issued so far
	m          map[uintptr]*entry
}{m: map[uintptr]*entry{}}

// reserve sets up the range handles come from: 4 GiB of address space
// mapped with no access (no memory behind it), or, where that fails, a
// malloc'd block of 1 MiB.
func reserve() {
	const size = 1 << 32
	if b, err := unix.Mmap(-1, 0, size, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE); err == nil {
		handles.base, handles.size = uintptr(unsafe.Pointer(unsafe.SliceData(b))), size
		return
	}
	handles.base, handles.size = uintptr(C.malloc(1<<20)), 1<<20
}

// newHandle registers obj as a handle of kind k; strs are C strings the
// handle owns.
func newHandle(k kind, obj any, strs ...*C.char) unsafe.Pointer {
	handles.Lock()
	defer handles.Unlock()
	if handles.base == 0 {
		reserve()
	}
	handles.next++
	off := (handles.next * handleStride) % handles.size
	if off == 0 { // skip the range's first address (never NULL-like)
		handles.next++
		off = handleStride
	}
	h := handles.base + off
	handles.m[h] = &entry{kind: k, obj: obj, strs: strs}
	return C.gree__handle(C.uintptr_t(h))
}

// lookup returns the entry of a handle of kind k, or an error naming the
// handle: INVALID_ARGUMENT for NULL, a handle of another kind or a value
// that was never a handle; FAILED_PRECONDITION for a released one.
func lookup(p unsafe.Pointer, k kind) (*entry, error) {
	h := uintptr(p)
	if h == 0 {
		return nil, status.Errorf(status.InvalidArgument, "%s must not be NULL", k)
	}
	handles.RLock()
	e, ok := handles.m[h]
	base, size, next := handles.base, handles.size, handles.next
	handles.RUnlock()
	switch {
	case ok && e.kind == k:
		return e, nil
	case ok:
		return nil, status.Errorf(status.InvalidArgument, "handle %#x is a %s, not a %s", h, e.kind, k)
	case h > base && h < base+size && (h-base)%handleStride == 0 && (h-base)/handleStride <= next:
		return nil, status.Errorf(status.FailedPrecondition, "%s handle %#x was released; it cannot be used again", k, h)
	}
	return nil, status.Errorf(status.InvalidArgument, "%#x is not a %s handle gree created", h, k)
}

// objOf returns the object of a handle of kind k as a T.
func objOf[T any](p unsafe.Pointer, k kind) (T, error) {
	var zero T
	e, err := lookup(p, k)
	if err != nil {
		return zero, err
	}
	v, ok := e.obj.(T)
	if !ok {
		return zero, status.Errorf(status.Internal, "%s handle %#x holds a %T", k, uintptr(p), e.obj)
	}
	return v, nil
}

// dropHandle removes a handle of kind k and frees its strings; it returns
// its object, or nil when p is NULL, not live or of another kind (a
// release of those is a no-op, noted on stderr unless NULL).
func dropHandle(p unsafe.Pointer, k kind) any {
	if p == nil {
		return nil
	}
	h := uintptr(p)
	handles.Lock()
	e, ok := handles.m[h]
	if ok && e.kind == k {
		delete(handles.m, h)
	}
	handles.Unlock()
	if !ok || e.kind != k {
		if _, err := lookup(p, k); err != nil {
			fmt.Fprintf(stderr(), "gree: ignoring a release: %v\n", err)
		}
		return nil
	}
	for _, s := range e.strs {
		C.free(unsafe.Pointer(s))
	}
	return e.obj
}

// liveHandles counts the handles not released (for tests).
func liveHandles() int {
	handles.RLock()
	defer handles.RUnlock()
	return len(handles.m)
}
