package main

/*
#include "internal.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
)

func goParams(p C.gree_buffer_params_t) hal.BufferParams {
	return hal.BufferParams{Type: hal.MemoryType(p._type), Access: hal.MemoryAccess(p.access), Usage: hal.BufferUsage(p.usage)}
}

// newBufferHandle returns a handle holding the caller's reference to b.
func newBufferHandle(b *hal.Buffer) C.gree_buffer_t {
	return (C.gree_buffer_t)(newHandle(kindBuffer, b))
}

func bufferOf(b C.gree_buffer_t) (*hal.Buffer, error) {
	return objOf[*hal.Buffer](unsafe.Pointer(b), kindBuffer)
}

//export gree_allocator_query_compatibility
func gree_allocator_query_compatibility(d C.gree_device_t, params C.gree_buffer_params_t, size C.uint64_t, out *C.gree_buffer_params_t) C.uint32_t {
	defer guardVoid()
	dev, err := deviceOf(d)
	if err != nil || uint64(size) > 1<<62 {
		return 0
	}
	compat, actual := dev.Allocator().QueryCompatibility(goParams(params), int64(size))
	if out != nil {
		out._type, out.access, out.usage = C.uint32_t(actual.Type), C.uint32_t(actual.Access), C.uint32_t(actual.Usage)
	}
	return C.uint32_t(compat)
}

//export gree_allocator_allocate_buffer
func gree_allocator_allocate_buffer(d C.gree_device_t, params C.gree_buffer_params_t, size C.uint64_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	if uint64(size) > 1<<62 {
		return invalidArg("allocation size %d is too large", uint64(size))
	}
	b, err := dev.Allocator().Allocate(goParams(params), int64(size))
	if err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(b)
	return nil
}

//export gree_allocator_import_host_buffer
func gree_allocator_import_host_buffer(d C.gree_device_t, params C.gree_buffer_params_t, data unsafe.Pointer, size C.size_t, fn C.gree_release_fn_t, user unsafe.Pointer, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (data == nil && size > 0) {
		return invalidArg("data and out_buffer must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	a := dev.Allocator()
	p := goParams(params)
	if compat, _ := a.QueryCompatibility(p, int64(size)); compat&hal.BufferCompatibilityImportable == 0 {
		return invalidArg("the %s device cannot import host memory with memory_type=%s, usage=%s", dev.ID(), p.Type, p.Usage)
	}
	var host []byte
	if size > 0 {
		host = unsafe.Slice((*byte)(data), int(size))
	}
	b, err := a.Import(p, host, func() { C.gree__call_release(fn, user) })
	if err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(b)
	return nil
}

//export gree_allocator_statistics
func gree_allocator_statistics(d C.gree_device_t, out *C.gree_allocator_statistics_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out must not be NULL")
	}
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	s := dev.Allocator().Statistics()
	*out = C.gree_allocator_statistics_t{
		host_bytes_peak: C.int64_t(s.HostBytesPeak), host_bytes_allocated: C.int64_t(s.HostBytesAllocated), host_bytes_freed: C.int64_t(s.HostBytesFreed),
		device_bytes_peak: C.int64_t(s.DeviceBytesPeak), device_bytes_allocated: C.int64_t(s.DeviceBytesAllocated), device_bytes_freed: C.int64_t(s.DeviceBytesFreed),
	}
	return nil
}

//export gree_allocator_format_statistics
func gree_allocator_format_statistics(d C.gree_device_t, out **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_text must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	*out = C.CString(dev.Allocator().Statistics().Format())
	return nil
}

//export gree_allocator_trim
func gree_allocator_trim(d C.gree_device_t) (st C.gree_status_t) {
	defer guard(&st)
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(dev.Allocator().Trim())
}

//export gree_buffer_release
func gree_buffer_release(b C.gree_buffer_t) {
	defer guardVoid()
	if buf, ok := dropHandle(unsafe.Pointer(b), kindBuffer).(*hal.Buffer); ok {
		buf.Release()
	}
}

//export gree_buffer_retain
func gree_buffer_retain(b C.gree_buffer_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	if err := buf.Retain(); err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(buf)
	return nil
}

//export gree_buffer_info
func gree_buffer_info(b C.gree_buffer_t, out *C.gree_buffer_info_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out must not be NULL")
	}
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	*out = C.gree_buffer_info_t{
		byte_offset: C.uint64_t(buf.ByteOffset()), byte_length: C.uint64_t(buf.ByteLength()), allocation_size: C.uint64_t(buf.AllocationSize()),
		memory_type: C.uint32_t(buf.MemoryType()), allowed_access: C.uint32_t(buf.AllowedAccess()), allowed_usage: C.uint32_t(buf.AllowedUsage()),
	}
	return nil
}

//export gree_buffer_format
func gree_buffer_format(b C.gree_buffer_t, out **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_text must not be NULL")
	}
	*out = nil
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	*out = C.CString(buf.String())
	return nil
}

//export gree_buffer_subspan
func gree_buffer_subspan(b C.gree_buffer_t, offset, length C.uint64_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	if uint64(offset) > 1<<62 || uint64(length) > 1<<62 {
		return invalidArg("subspan [%d, +%d) is out of range", uint64(offset), uint64(length))
	}
	sub, err := buf.Subspan(int64(offset), int64(length))
	if err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(sub)
	return nil
}

//export gree_buffer_map
func gree_buffer_map(b C.gree_buffer_t, access C.uint32_t, offset, length C.uint64_t, out *unsafe.Pointer) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_ptr must not be NULL")
	}
	*out = nil
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	if uint64(offset) > 1<<62 || uint64(length) > 1<<62 {
		return invalidArg("mapping [%d, +%d) is out of range", uint64(offset), uint64(length))
	}
	m, err := buf.Map(int64(offset), int64(length), hal.MemoryAccess(access))
	if err != nil {
		return toStatus(err)
	}
	if len(m) > 0 {
		buf.PinHost()
		*out = unsafe.Pointer(unsafe.SliceData(m))
	}
	return nil
}

// optionalDevice returns the device a handle names, or nil for NULL.
func optionalDevice(d C.gree_device_t) (hal.Device, error) {
	if d == nil {
		return nil, nil
	}
	return deviceOf(d)
}

// transfer moves size bytes between host memory p and a buffer with
// move (hal.WriteBuffer or hal.ReadBufferInto).
func transfer(d C.gree_device_t, b C.gree_buffer_t, offset C.uint64_t, p unsafe.Pointer, size C.size_t, what string,
	move func(hal.Device, *hal.Buffer, int64, []byte) error) C.gree_status_t {
	dev, err := optionalDevice(d)
	if err != nil {
		return toStatus(err)
	}
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	if p == nil && size > 0 {
		return invalidArg("%s must not be NULL", what)
	}
	if size == 0 {
		return nil
	}
	return toStatus(move(dev, buf, int64(offset), unsafe.Slice((*byte)(p), int(size))))
}

//export gree_device_transfer_h2d
func gree_device_transfer_h2d(d C.gree_device_t, src unsafe.Pointer, b C.gree_buffer_t, offset C.uint64_t, size C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	return transfer(d, b, offset, src, size, "src", hal.WriteBuffer)
}

//export gree_device_transfer_d2h
func gree_device_transfer_d2h(d C.gree_device_t, b C.gree_buffer_t, offset C.uint64_t, dst unsafe.Pointer, size C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	return transfer(d, b, offset, dst, size, "dst", hal.ReadBufferInto)
}

//export gree_buffer_view_create_from_buffer
func gree_buffer_view_create_from_buffer(b C.gree_buffer_t, shape *C.int64_t, rank C.size_t, et C.uint32_t, out *C.gree_buffer_view_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (rank > 0 && shape == nil) {
		return invalidArg("shape and out_view must not be NULL")
	}
	*out = nil
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	dims, err := goShape(shape, rank)
	if err != nil {
		return toStatus(err)
	}
	bv, err := hal.NewBufferView(buf, dims, hal.ElementType(et))
	if err != nil {
		return toStatus(err)
	}
	*out = newView(bv, true)
	return nil
}

//export gree_buffer_view_buffer
func gree_buffer_view_buffer(v C.gree_buffer_view_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	if err := bv.Buffer.Retain(); err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(bv.Buffer)
	return nil
}
