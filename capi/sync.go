package main

/*
#include "internal.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

func semaphoreOf(s C.gree_semaphore_t) (hal.Semaphore, error) {
	return objOf[hal.Semaphore](unsafe.Pointer(s), kindSemaphore)
}

func fenceOf(f C.gree_fence_t) (*hal.Fence, error) {
	return objOf[*hal.Fence](unsafe.Pointer(f), kindFence)
}

// deadline converts a timeout in nanoseconds (negative: forever, 0: poll).
func deadline(timeoutNS C.int64_t) time.Time {
	switch {
	case timeoutNS < 0:
		return hal.NoDeadline
	case timeoutNS == 0:
		return hal.Immediate
	}
	return time.Now().Add(time.Duration(timeoutNS))
}

// failure is the error a fail call records.
func failure(code C.gree_status_code_t, message *C.char) error {
	c := status.Code(code)
	if c == status.OK {
		c = status.Unknown
	}
	msg := "failed"
	if message != nil {
		msg = C.GoString(message)
	}
	return status.New(c, msg)
}

//export gree_device_create_semaphore
func gree_device_create_semaphore(d C.gree_device_t, initial C.uint64_t, out *C.gree_semaphore_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_semaphore must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	s, err := dev.CreateSemaphore(uint64(initial))
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_semaphore_t)(newHandle(kindSemaphore, s))
	return nil
}

//export gree_semaphore_release
func gree_semaphore_release(s C.gree_semaphore_t) {
	defer guardVoid()
	dropHandle(unsafe.Pointer(s), kindSemaphore)
}

//export gree_semaphore_query
func gree_semaphore_query(s C.gree_semaphore_t, out *C.uint64_t) (st C.gree_status_t) {
	defer guard(&st)
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	v, err := sem.Query()
	if out != nil {
		*out = C.uint64_t(v)
	}
	return toStatus(err)
}

//export gree_semaphore_signal
func gree_semaphore_signal(s C.gree_semaphore_t, v C.uint64_t) (st C.gree_status_t) {
	defer guard(&st)
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(sem.Signal(uint64(v)))
}

//export gree_semaphore_fail
func gree_semaphore_fail(s C.gree_semaphore_t, code C.gree_status_code_t, message *C.char) (st C.gree_status_t) {
	defer guard(&st)
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	sem.Fail(failure(code, message))
	return nil
}

//export gree_semaphore_wait
func gree_semaphore_wait(s C.gree_semaphore_t, v C.uint64_t, timeoutNS C.int64_t) (st C.gree_status_t) {
	defer guard(&st)
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(sem.Wait(uint64(v), deadline(timeoutNS)))
}

func newFence(f *hal.Fence, out *C.gree_fence_t) {
	*out = (C.gree_fence_t)(newHandle(kindFence, f))
}

//export gree_fence_create
func gree_fence_create(capacity C.size_t, out *C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_fence must not be NULL")
	}
	if capacity > 1<<16 {
		return invalidArg("fence capacity %d exceeds %d", capacity, 1<<16)
	}
	newFence(hal.NewFence(int(capacity)), out)
	return nil
}

//export gree_fence_create_at
func gree_fence_create_at(s C.gree_semaphore_t, v C.uint64_t, out *C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_fence must not be NULL")
	}
	*out = nil
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	newFence(hal.FenceAt(sem, uint64(v)), out)
	return nil
}

//export gree_fence_join
func gree_fence_join(count C.size_t, fences *C.gree_fence_t, out *C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (count > 0 && fences == nil) {
		return invalidArg("fences and out_fence must not be NULL")
	}
	*out = nil
	if count > 1<<16 {
		return invalidArg("joining %d fences", count)
	}
	var fs []*hal.Fence
	for i, f := range unsafe.Slice(fences, int(count)) {
		fence, err := fenceOf(f)
		if err != nil {
			return invalidArg("fence %d: %v", i, err)
		}
		fs = append(fs, fence)
	}
	newFence(hal.JoinFences(fs...), out)
	return nil
}

//export gree_fence_release
func gree_fence_release(f C.gree_fence_t) {
	defer guardVoid()
	dropHandle(unsafe.Pointer(f), kindFence)
}

//export gree_fence_insert
func gree_fence_insert(f C.gree_fence_t, s C.gree_semaphore_t, v C.uint64_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	sem, err := semaphoreOf(s)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(fence.Insert(sem, uint64(v)))
}

//export gree_fence_extend
func gree_fence_extend(f, from C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	src, err := fenceOf(from)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(fence.Extend(src))
}

//export gree_fence_timepoint_count
func gree_fence_timepoint_count(f C.gree_fence_t) C.size_t {
	defer guardVoid()
	fence, err := fenceOf(f)
	if err != nil {
		return 0
	}
	return C.size_t(fence.Len())
}

//export gree_fence_timepoint
func gree_fence_timepoint(f C.gree_fence_t, index C.size_t, outSem *C.gree_semaphore_t, outValue *C.uint64_t) (st C.gree_status_t) {
	defer guard(&st)
	if outSem == nil || outValue == nil {
		return invalidArg("out_semaphore and out_value must not be NULL")
	}
	*outSem = nil
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	points := fence.Timepoints()
	if int(index) >= len(points) {
		return toStatus(status.Errorf(status.OutOfRange, "timepoint %d out of range; the fence has %d", index, len(points)))
	}
	*outSem = (C.gree_semaphore_t)(newHandle(kindSemaphore, points[index].Semaphore))
	*outValue = C.uint64_t(points[index].Value)
	return nil
}

//export gree_fence_signal
func gree_fence_signal(f C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(fence.Signal())
}

//export gree_fence_fail
func gree_fence_fail(f C.gree_fence_t, code C.gree_status_code_t, message *C.char) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	fence.Fail(failure(code, message))
	return nil
}

//export gree_fence_query
func gree_fence_query(f C.gree_fence_t, out *C.int32_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	ok, err := fence.Query()
	if out != nil {
		*out = 0
		if ok {
			*out = 1
		}
	}
	return toStatus(err)
}

//export gree_fence_wait
func gree_fence_wait(f C.gree_fence_t, timeoutNS C.int64_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(fence.Wait(deadline(timeoutNS)))
}

// semaphoreList converts a C semaphore list.
func semaphoreList(l C.gree_semaphore_list_t, what string) (hal.SemaphoreList, error) {
	if l.count == 0 {
		return nil, nil
	}
	if l.semaphores == nil || l.values == nil {
		return nil, status.Errorf(status.InvalidArgument, "%s list of %d semaphores has NULL arrays", what, l.count)
	}
	if l.count > 1<<16 {
		return nil, status.Errorf(status.InvalidArgument, "%s list of %d semaphores", what, l.count)
	}
	sems := unsafe.Slice(l.semaphores, int(l.count))
	vals := unsafe.Slice(l.values, int(l.count))
	out := make(hal.SemaphoreList, len(sems))
	for i := range sems {
		s, err := semaphoreOf(sems[i])
		if err != nil {
			return nil, status.Errorf(status.CodeOf(err), "%s semaphore %d: %v", what, i, err)
		}
		out[i] = hal.Timepoint{Semaphore: s, Value: uint64(vals[i])}
	}
	return out, nil
}
