package main

/*
#include "internal.h"
#include "dlpack.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// DLPack type codes.
const (
	dlInt, dlUInt, dlFloat, dlBfloat, dlComplex, dlBool           = 0, 1, 2, 4, 5, 6
	dlF8E4M3FN, dlF8E4M3FNUZ, dlF8E5M2, dlF8E5M2FNUZ, dlF8E8M0FNU = 10, 11, 12, 13, 14
	dlCPU                                                         = 1
)

// f8Codes maps the f8 element types to DLPack's codes (DLPack 1.1).
var f8Codes = map[hal.ElementType]uint8{
	hal.ElementF8E4M3FN: dlF8E4M3FN, hal.ElementF8E4M3FNUZ: dlF8E4M3FNUZ,
	hal.ElementF8E5M2: dlF8E5M2, hal.ElementF8E5M2FNUZ: dlF8E5M2FNUZ, hal.ElementF8E8M0FNU: dlF8E8M0FNU,
}

// elementFromDL returns the element type of a DLPack dtype, as IREE maps
// them (signed integers for kDLInt).
func elementFromDL(code, bits uint8, lanes uint16) (hal.ElementType, error) {
	if lanes != 1 {
		return 0, status.Errorf(status.InvalidArgument, "DLPack tensors of %d-lane vectors are not supported", lanes)
	}
	b := uint32(bits)
	if bits < 8 && code != dlBool {
		return 0, status.Errorf(status.Unimplemented, "DLPack tensors of %d-bit elements are packed; gree stores sub-byte elements one per byte: pass the values as an ml_dtypes array (int4, uint4, int2, uint2, float4_e2m1fn) or unpack them to int8", bits)
	}
	switch code {
	case dlInt:
		return hal.ElementType(hal.NumericalSigned<<24 | b), nil
	case dlUInt:
		return hal.ElementType(hal.NumericalUnsigned<<24 | b), nil
	case dlFloat:
		return hal.ElementType(hal.NumericalFloat<<24 | b), nil
	case dlBfloat:
		return hal.ElementBFloat16, nil
	case dlComplex:
		return hal.ElementType(hal.NumericalComplex<<24 | b), nil
	case dlBool:
		return hal.ElementBool8, nil
	}
	for t, c := range f8Codes {
		if c == code {
			return t, nil
		}
	}
	return 0, status.Errorf(status.InvalidArgument, "DLPack type code %d (%d bits) has no element type", code, bits)
}

// elementToDL returns the DLPack code of an element type.
func elementToDL(t hal.ElementType) (uint8, error) {
	if t.IsSubByte() {
		return 0, status.Errorf(status.Unimplemented, "%s elements are stored one per byte, where DLPack packs sub-byte types: read the array with to_host() (an ml_dtypes array) instead", t)
	}
	if c, ok := f8Codes[t]; ok {
		return c, nil
	}
	switch t.Numerical() {
	case hal.NumericalInteger, hal.NumericalSigned:
		return dlInt, nil
	case hal.NumericalUnsigned:
		return dlUInt, nil
	case hal.NumericalBoolean:
		return dlBool, nil
	case hal.NumericalFloat:
		return dlFloat, nil
	case hal.NumericalBFloat:
		return dlBfloat, nil
	case hal.NumericalComplex:
		return dlComplex, nil
	}
	return 0, status.Errorf(status.InvalidArgument, "element type 0x%08x has no DLPack type", uint32(t))
}

//export gree_buffer_view_import_dlpack
func gree_buffer_view_import_dlpack(d C.gree_device_t, managed unsafe.Pointer, out *C.gree_buffer_view_t) (st C.gree_status_t) {
	defer guard(&st)
	if managed == nil || out == nil {
		return invalidArg("managed and out_view must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	m := (*C.gree__dl_managed)(managed)
	t := &m.dl_tensor
	if t.device.device_type != dlCPU {
		return invalidArg("DLPack tensor on device type %d: the %s device imports CPU tensors (type %d)", t.device.device_type, dev.ID(), dlCPU)
	}
	et, err := elementFromDL(uint8(t.dtype.code), uint8(t.dtype.bits), uint16(t.dtype.lanes))
	if err != nil {
		return toStatus(err)
	}
	if t.ndim < 0 || t.ndim > 128 || (t.ndim > 0 && t.shape == nil) {
		return invalidArg("DLPack tensor of rank %d", t.ndim)
	}
	dims := make([]int64, int(t.ndim))
	if t.ndim > 0 {
		copy(dims, unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), int(t.ndim)))
	}
	n, err := hal.DenseByteSize(dims, et)
	if err != nil {
		return toStatus(err)
	}
	if t.strides != nil && t.ndim > 0 {
		strides := unsafe.Slice((*int64)(unsafe.Pointer(t.strides)), int(t.ndim))
		want := int64(1)
		for i := len(dims) - 1; i >= 0; i-- {
			if dims[i] != 1 && strides[i] != want {
				return invalidArg("DLPack tensor of shape %v with strides %v is not dense row-major; make it contiguous first", dims, strides)
			}
			want *= dims[i]
		}
	}
	if t.data == nil && n > 0 {
		return invalidArg("DLPack tensor has no data")
	}
	var host []byte
	if n > 0 {
		host = unsafe.Slice((*byte)(unsafe.Add(t.data, uintptr(t.byte_offset))), int(n))
	}
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal | hal.MemoryTypeHostVisible, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}
	a := dev.Allocator()
	if compat, _ := a.QueryCompatibility(params, n); compat&hal.BufferCompatibilityImportable == 0 {
		return invalidArg("the %s device cannot import host memory", dev.ID())
	}
	b, err := a.Import(params, host, func() { C.gree__dl_delete(managed) })
	if err != nil {
		return toStatus(err)
	}
	*out = newView(&hal.BufferView{Shape: dims, Type: et, Buffer: b}, false)
	return nil
}

//export gree_buffer_view_export_dlpack
func gree_buffer_view_export_dlpack(v C.gree_buffer_view_t, deviceType, deviceID C.int32_t, out *unsafe.Pointer) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_managed must not be NULL")
	}
	*out = nil
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	code, err := elementToDL(bv.Type)
	if err != nil {
		return toStatus(err)
	}
	if err := bv.Buffer.Check(); err != nil {
		return toStatus(err)
	}
	data := bv.Bytes()
	if data == nil && bv.ByteLength() > 0 {
		return invalidArg("the buffer view is not in host memory: DLPack export needs memory the consumer can read (copy it to the host first)")
	}
	if err := bv.Buffer.Retain(); err != nil {
		return toStatus(err)
	}
	m := C.gree__dl_new(C.int32_t(len(bv.Shape)))
	if m == nil {
		bv.Buffer.Release()
		return toStatus(status.New(status.ResourceExhausted, "out of memory for a DLPack tensor"))
	}
	t := &m.dl_tensor
	if len(data) > 0 {
		bv.Buffer.PinHost()
		t.data = unsafe.Pointer(unsafe.SliceData(data))
	}
	t.device.device_type, t.device.device_id = deviceType, deviceID
	t.dtype.code, t.dtype.bits, t.dtype.lanes = C.uint8_t(code), C.uint8_t(bv.Type.Bits()), 1
	copy(unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), len(bv.Shape)), bv.Shape)
	m.manager_ctx = unsafe.Pointer(newBufferHandle(bv.Buffer))
	*out = unsafe.Pointer(m)
	return nil
}
