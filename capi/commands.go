package main

/*
#include "internal.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// executableEntry is what a gree_executable_t names.
type executableEntry struct {
	exe   hal.Executable
	names []*C.char
}

//export gree_module_executable_count
func gree_module_executable_count(m C.gree_module_t) C.size_t {
	defer guardVoid()
	mod, err := moduleOf(m)
	if err != nil {
		return 0
	}
	return C.size_t(len(mod.m.Def.Executables))
}

//export gree_executable_create
func gree_executable_create(d C.gree_device_t, m C.gree_module_t, index C.size_t, out *C.gree_executable_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_executable must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	mod, err := moduleOf(m)
	if err != nil {
		return toStatus(err)
	}
	exes := mod.m.Def.Executables
	if int(index) >= len(exes) {
		return toStatus(status.Errorf(status.OutOfRange, "executable %d out of range; module '%s' has %d", index, mod.m.Name(), len(exes)))
	}
	exe, err := dev.PrepareExecutable(exes[index].Format, exes[index].Data)
	if err != nil {
		return toStatus(err)
	}
	e := &executableEntry{exe: exe}
	for i := 0; i < exe.NumEntries(); i++ {
		e.names = append(e.names, C.CString(exe.EntryName(i)))
	}
	*out = (C.gree_executable_t)(newHandle(kindExecutable, e, e.names...))
	return nil
}

func executableOf(x C.gree_executable_t) (*executableEntry, error) {
	return objOf[*executableEntry](unsafe.Pointer(x), kindExecutable)
}

//export gree_executable_release
func gree_executable_release(x C.gree_executable_t) {
	defer guardVoid()
	if e, ok := dropHandle(unsafe.Pointer(x), kindExecutable).(*executableEntry); ok {
		e.exe.Close()
	}
}

//export gree_executable_entry_count
func gree_executable_entry_count(x C.gree_executable_t) C.size_t {
	defer guardVoid()
	e, err := executableOf(x)
	if err != nil {
		return 0
	}
	return C.size_t(len(e.names))
}

//export gree_executable_entry_name
func gree_executable_entry_name(x C.gree_executable_t, i C.size_t) *C.char {
	defer guardVoid()
	e, err := executableOf(x)
	if err != nil || int(i) >= len(e.names) {
		return emptyCString
	}
	return e.names[i]
}

func commandBufferOf(c C.gree_command_buffer_t) (*hal.CommandBuffer, error) {
	return objOf[*hal.CommandBuffer](unsafe.Pointer(c), kindCommandBuffer)
}

//export gree_command_buffer_create
func gree_command_buffer_create(d C.gree_device_t, mode, categories C.uint32_t, capacity C.size_t, out *C.gree_command_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_command_buffer must not be NULL")
	}
	*out = nil
	if _, err := deviceOf(d); err != nil {
		return toStatus(err)
	}
	if capacity > 1<<20 {
		return invalidArg("binding capacity %d exceeds %d", capacity, 1<<20)
	}
	cb, err := hal.NewCommandBuffer(hal.CommandBufferMode(mode), hal.CommandCategory(categories), int(capacity))
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_command_buffer_t)(newHandle(kindCommandBuffer, cb))
	return nil
}

//export gree_command_buffer_release
func gree_command_buffer_release(c C.gree_command_buffer_t) {
	defer guardVoid()
	if cb, ok := dropHandle(unsafe.Pointer(c), kindCommandBuffer).(*hal.CommandBuffer); ok {
		cb.Release()
	}
}

// withCommandBuffer runs f on the command buffer a handle names.
func withCommandBuffer(c C.gree_command_buffer_t, f func(*hal.CommandBuffer) error) C.gree_status_t {
	cb, err := commandBufferOf(c)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(f(cb))
}

//export gree_command_buffer_begin
func gree_command_buffer_begin(c C.gree_command_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	return withCommandBuffer(c, (*hal.CommandBuffer).Begin)
}

//export gree_command_buffer_end
func gree_command_buffer_end(c C.gree_command_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	return withCommandBuffer(c, (*hal.CommandBuffer).End)
}

//export gree_command_buffer_execution_barrier
func gree_command_buffer_execution_barrier(c C.gree_command_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	return withCommandBuffer(c, (*hal.CommandBuffer).ExecutionBarrier)
}

// bufferRef converts a C buffer reference.
func bufferRef(r C.gree_buffer_ref_t, what string) (hal.BufferRef, error) {
	if uint64(r.offset) > 1<<62 {
		return hal.BufferRef{}, status.Errorf(status.OutOfRange, "%s offset %d is out of range", what, uint64(r.offset))
	}
	ref := hal.BufferRef{Slot: int(r.slot), Offset: int64(r.offset), Length: int64(r.length)}
	if r.buffer != nil {
		b, err := bufferOf(r.buffer)
		if err != nil {
			return hal.BufferRef{}, status.Errorf(status.CodeOf(err), "%s: %v", what, err)
		}
		ref.Buffer = b
	}
	return ref, nil
}

// bytesOf views C memory (nil for none).
func bytesOf(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

//export gree_command_buffer_fill
func gree_command_buffer_fill(c C.gree_command_buffer_t, target C.gree_buffer_ref_t, pattern unsafe.Pointer, n C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	ref, err := bufferRef(target, "fill target")
	if err != nil {
		return toStatus(err)
	}
	if pattern == nil || n > 4 {
		return invalidArg("fill pattern must be 1, 2 or 4 bytes (got %d)", n)
	}
	return withCommandBuffer(c, func(cb *hal.CommandBuffer) error { return cb.Fill(ref, bytesOf(pattern, n)) })
}

//export gree_command_buffer_update
func gree_command_buffer_update(c C.gree_command_buffer_t, src unsafe.Pointer, n C.size_t, target C.gree_buffer_ref_t) (st C.gree_status_t) {
	defer guard(&st)
	ref, err := bufferRef(target, "update target")
	if err != nil {
		return toStatus(err)
	}
	if src == nil && n > 0 {
		return invalidArg("src must not be NULL")
	}
	return withCommandBuffer(c, func(cb *hal.CommandBuffer) error { return cb.Update(bytesOf(src, n), ref) })
}

//export gree_command_buffer_copy
func gree_command_buffer_copy(c C.gree_command_buffer_t, source, target C.gree_buffer_ref_t) (st C.gree_status_t) {
	defer guard(&st)
	src, err := bufferRef(source, "copy source")
	if err != nil {
		return toStatus(err)
	}
	dst, err := bufferRef(target, "copy target")
	if err != nil {
		return toStatus(err)
	}
	return withCommandBuffer(c, func(cb *hal.CommandBuffer) error { return cb.Copy(src, dst) })
}

//export gree_command_buffer_dispatch
func gree_command_buffer_dispatch(c C.gree_command_buffer_t, x C.gree_executable_t, entry C.size_t, wx, wy, wz C.int64_t, constants *C.int64_t, nConstants C.size_t, bindings *C.gree_buffer_ref_t, nBindings C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	e, err := executableOf(x)
	if err != nil {
		return toStatus(err)
	}
	if (nConstants > 0 && constants == nil) || (nBindings > 0 && bindings == nil) || nConstants > 1<<16 || nBindings > 1<<16 {
		return invalidArg("constants and bindings must be arrays of their counts")
	}
	if int(entry) >= e.exe.NumEntries() {
		return toStatus(status.Errorf(status.OutOfRange, "entry point %d out of range; the executable has %d", entry, e.exe.NumEntries()))
	}
	var push []int64
	if nConstants > 0 {
		push = unsafe.Slice((*int64)(unsafe.Pointer(constants)), int(nConstants))
	}
	var refs []hal.BufferRef
	if nBindings > 0 {
		for i, r := range unsafe.Slice(bindings, int(nBindings)) {
			ref, err := bufferRef(r, "dispatch binding")
			if err != nil {
				return invalidArg("binding %d: %v", i, err)
			}
			refs = append(refs, ref)
		}
	}
	grid := [3]int64{int64(wx), int64(wy), int64(wz)}
	return withCommandBuffer(c, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(e.exe, int(entry), grid, push, refs)
	})
}

// queueOp converts a queue operation's device and semaphore lists and runs
// f with them.
func queueOp(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, f func(dev hal.Device, w, s hal.SemaphoreList) error) C.gree_status_t {
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	w, err := semaphoreList(wait, "wait")
	if err != nil {
		return toStatus(err)
	}
	s, err := semaphoreList(signal, "signal")
	if err != nil {
		return toStatus(err)
	}
	return toStatus(f(dev, w, s))
}

//export gree_device_queue_execute
func gree_device_queue_execute(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, c C.gree_command_buffer_t, bindings *C.gree_buffer_ref_t, n C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	var cb *hal.CommandBuffer
	if c != nil {
		var err error
		if cb, err = commandBufferOf(c); err != nil {
			return toStatus(err)
		}
	}
	if (n > 0 && bindings == nil) || n > 1<<20 {
		return invalidArg("bindings must be an array of %d references", n)
	}
	var table []hal.BufferRef
	if n > 0 {
		for i, r := range unsafe.Slice(bindings, int(n)) {
			ref, err := bufferRef(r, "binding table entry")
			if err != nil {
				return invalidArg("binding table slot %d: %v", i, err)
			}
			table = append(table, ref)
		}
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return dev.QueueExecute(w, s, cb, table)
	})
}

//export gree_device_queue_alloca
func gree_device_queue_alloca(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, params C.gree_buffer_params_t, size C.uint64_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	if uint64(size) > 1<<62 {
		return invalidArg("allocation size %d is too large", uint64(size))
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		b, err := hal.QueueAlloca(dev, w, s, goParams(params), int64(size))
		if err == nil {
			*out = newBufferHandle(b)
		}
		return err
	})
}

//export gree_device_queue_dealloca
func gree_device_queue_dealloca(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, b C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueDealloca(dev, w, s, buf)
	})
}

//export gree_device_queue_fill
func gree_device_queue_fill(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, target C.gree_buffer_ref_t, pattern unsafe.Pointer, n C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	ref, err := bufferRef(target, "fill target")
	if err != nil {
		return toStatus(err)
	}
	if pattern == nil || n > 4 {
		return invalidArg("fill pattern must be 1, 2 or 4 bytes (got %d)", n)
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueFill(dev, w, s, ref, bytesOf(pattern, n))
	})
}

//export gree_device_queue_update
func gree_device_queue_update(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, src unsafe.Pointer, n C.size_t, target C.gree_buffer_ref_t) (st C.gree_status_t) {
	defer guard(&st)
	ref, err := bufferRef(target, "update target")
	if err != nil {
		return toStatus(err)
	}
	if src == nil && n > 0 {
		return invalidArg("src must not be NULL")
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueUpdate(dev, w, s, bytesOf(src, n), ref)
	})
}

//export gree_device_queue_copy
func gree_device_queue_copy(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, source, target C.gree_buffer_ref_t) (st C.gree_status_t) {
	defer guard(&st)
	src, err := bufferRef(source, "copy source")
	if err != nil {
		return toStatus(err)
	}
	dst, err := bufferRef(target, "copy target")
	if err != nil {
		return toStatus(err)
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueCopy(dev, w, s, src, dst)
	})
}

//export gree_device_queue_barrier
func gree_device_queue_barrier(d C.gree_device_t, wait, signal C.gree_semaphore_list_t) (st C.gree_status_t) {
	defer guard(&st)
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueBarrier(dev, w, s)
	})
}

//export gree_file_wrap_memory
func gree_file_wrap_memory(data unsafe.Pointer, size C.size_t, readable, writable C.int32_t, out *C.gree_file_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (data == nil && size > 0) {
		return invalidArg("data and out_file must not be NULL")
	}
	f := &hal.MemoryFile{Data: bytesOf(data, size), Readable: readable != 0, Writable: writable != 0}
	*out = (C.gree_file_t)(newHandle(kindFile, hal.File(f)))
	return nil
}

//export gree_file_release
func gree_file_release(f C.gree_file_t) {
	defer guardVoid()
	dropHandle(unsafe.Pointer(f), kindFile)
}

//export gree_device_queue_read
func gree_device_queue_read(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, f C.gree_file_t, offset C.uint64_t, target C.gree_buffer_ref_t) (st C.gree_status_t) {
	defer guard(&st)
	file, err := objOf[hal.File](unsafe.Pointer(f), kindFile)
	if err != nil {
		return toStatus(err)
	}
	ref, err := bufferRef(target, "read target")
	if err != nil {
		return toStatus(err)
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueRead(dev, w, s, file, int64(offset), ref)
	})
}

//export gree_device_queue_write
func gree_device_queue_write(d C.gree_device_t, wait, signal C.gree_semaphore_list_t, source C.gree_buffer_ref_t, f C.gree_file_t, offset C.uint64_t) (st C.gree_status_t) {
	defer guard(&st)
	file, err := objOf[hal.File](unsafe.Pointer(f), kindFile)
	if err != nil {
		return toStatus(err)
	}
	ref, err := bufferRef(source, "write source")
	if err != nil {
		return toStatus(err)
	}
	return queueOp(d, wait, signal, func(dev hal.Device, w, s hal.SemaphoreList) error {
		return hal.QueueWrite(dev, w, s, ref, file, int64(offset))
	})
}

// profiler returns the device's profiler, or nil for devices without one
// (profiling them does nothing, as on IREE's devices without support).
func profiler(d C.gree_device_t) (hal.Profiler, error) {
	dev, err := deviceOf(d)
	if err != nil {
		return nil, err
	}
	p, _ := dev.(hal.Profiler)
	return p, nil
}

//export gree_device_begin_profiling
func gree_device_begin_profiling(d C.gree_device_t, mode, path *C.char) (st C.gree_status_t) {
	defer guard(&st)
	p, err := profiler(d)
	if err != nil {
		return toStatus(err)
	}
	m := ""
	if mode != nil {
		m = C.GoString(mode)
	}
	pm, err := hal.ParseProfilingMode(m)
	if err != nil {
		return toStatus(err)
	}
	opts := hal.ProfilingOptions{Mode: pm}
	if path != nil {
		opts.FilePath = C.GoString(path)
	}
	if p == nil {
		return nil
	}
	return toStatus(p.BeginProfiling(opts))
}

//export gree_device_flush_profiling
func gree_device_flush_profiling(d C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	p, err := profiler(d)
	if err != nil || p == nil {
		return toStatus(err)
	}
	return toStatus(p.FlushProfiling())
}

//export gree_device_end_profiling
func gree_device_end_profiling(d C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	p, err := profiler(d)
	if err != nil || p == nil {
		return toStatus(err)
	}
	return toStatus(p.EndProfiling())
}
