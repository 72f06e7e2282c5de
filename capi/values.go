package main

/*
#include "internal.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// Ownership: a buffer view handle holds one reference to its buffer, and a
// value list handle one to every buffer (of a buffer view, or bare) it
// holds, nested lists included; releasing the handle drops them.

// viewParams are the parameters of buffer views made from host data.
var viewParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}

//export gree_buffer_view_create
func gree_buffer_view_create(d C.gree_device_t, shape *C.int64_t, rank C.size_t, et C.uint32_t, data unsafe.Pointer, size C.size_t, out *C.gree_buffer_view_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (rank > 0 && shape == nil) || (size > 0 && data == nil) {
		return invalidArg("shape, data and out_view must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	dims, err := goShape(shape, rank)
	if err != nil {
		return toStatus(err)
	}
	t := hal.ElementType(et)
	n, err := hal.DenseByteSize(dims, t)
	if err != nil {
		return toStatus(err)
	}
	if int64(size) != n {
		return invalidArg("%d bytes of data for shape %v of %s, which needs %d", size, dims, t, n)
	}
	b, err := dev.Allocator().Allocate(viewParams, n)
	if err != nil {
		return toStatus(err)
	}
	if n > 0 {
		if err := hal.WriteBuffer(dev, b, 0, unsafe.Slice((*byte)(data), int(size))); err != nil {
			b.Release()
			return toStatus(err)
		}
	}
	*out = newView(&hal.BufferView{Shape: dims, Type: t, Buffer: b}, false)
	return nil
}

// goShape copies a C shape, checking its rank.
func goShape(shape *C.int64_t, rank C.size_t) ([]int64, error) {
	if rank > 128 {
		return nil, status.Errorf(status.InvalidArgument, "rank %d exceeds 128", rank)
	}
	dims := make([]int64, rank)
	if rank > 0 {
		copy(dims, unsafe.Slice((*int64)(unsafe.Pointer(shape)), int(rank)))
	}
	return dims, nil
}

// newView returns a handle for bv; retain adds the reference the handle
// holds (false: the caller's reference passes to the handle).
func newView(bv *hal.BufferView, retain bool) C.gree_buffer_view_t {
	if retain && bv.Buffer != nil {
		bv.Buffer.Retain()
	}
	return (C.gree_buffer_view_t)(newHandle(kindBufferView, bv))
}

func viewOf(v C.gree_buffer_view_t) (*hal.BufferView, error) {
	return objOf[*hal.BufferView](unsafe.Pointer(v), kindBufferView)
}

//export gree_buffer_view_release
func gree_buffer_view_release(v C.gree_buffer_view_t) {
	defer guardVoid()
	if bv, ok := dropHandle(unsafe.Pointer(v), kindBufferView).(*hal.BufferView); ok && bv.Buffer != nil {
		bv.Buffer.Release()
	}
}

//export gree_buffer_view_rank
func gree_buffer_view_rank(v C.gree_buffer_view_t) C.size_t {
	defer guardVoid()
	bv, err := viewOf(v)
	if err != nil {
		return 0
	}
	return C.size_t(len(bv.Shape))
}

//export gree_buffer_view_dim
func gree_buffer_view_dim(v C.gree_buffer_view_t, i C.size_t) C.int64_t {
	defer guardVoid()
	bv, err := viewOf(v)
	if err != nil || int(i) >= len(bv.Shape) {
		return 0
	}
	return C.int64_t(bv.Shape[i])
}

//export gree_buffer_view_element_type
func gree_buffer_view_element_type(v C.gree_buffer_view_t) C.uint32_t {
	defer guardVoid()
	bv, err := viewOf(v)
	if err != nil {
		return 0
	}
	return C.uint32_t(bv.Type)
}

//export gree_buffer_view_byte_length
func gree_buffer_view_byte_length(v C.gree_buffer_view_t) C.size_t {
	defer guardVoid()
	bv, err := viewOf(v)
	if err != nil {
		return 0
	}
	return C.size_t(bv.ByteLength())
}

//export gree_buffer_view_read
func gree_buffer_view_read(v C.gree_buffer_view_t, dst unsafe.Pointer, size C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	n := bv.ByteLength()
	if dst == nil || int64(size) < n {
		return invalidArg("destination of %d bytes is too small for %d", size, n)
	}
	if n > 0 {
		return toStatus(hal.ReadBufferInto(nil, bv.Buffer, 0, unsafe.Slice((*byte)(dst), n)))
	}
	return nil
}

//export gree_buffer_view_format
func gree_buffer_view_format(v C.gree_buffer_view_t, maxElements C.int64_t, out **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_text must not be NULL")
	}
	*out = nil
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	if err := bv.Buffer.Check(); err != nil {
		return toStatus(err)
	}
	if bv.Bytes() == nil && bv.ByteLength() > 0 {
		data, err := hal.ReadBuffer(nil, bv.Buffer, 0, bv.ByteLength())
		if err != nil {
			return toStatus(err)
		}
		if bv, err = hal.HostBufferViewOf(bv.Shape, bv.Type, data); err != nil {
			return toStatus(err)
		}
	}
	*out = C.CString(vio.FormatBufferView(bv, int(maxElements)))
	return nil
}

// retainValue adds a reference to every buffer v holds (nested lists
// included); releaseValue drops them.
func retainValue(v vm.Value) { walkBuffers(v, (*hal.Buffer).Retain) }

func releaseValue(v vm.Value) { walkBuffers(v, (*hal.Buffer).Release) }

func walkBuffers(v vm.Value, f func(*hal.Buffer) error) {
	switch r := v.Ref.(type) {
	case *hal.BufferView:
		if r != nil && r.Buffer != nil {
			f(r.Buffer)
		}
	case *hal.Buffer:
		if r != nil {
			f(r)
		}
	case *vm.List:
		if r != nil {
			for _, it := range r.Items {
				walkBuffers(it, f)
			}
		}
	}
}

// newList returns a handle that owns l, retaining every buffer it holds.
func newList(l *vm.List) C.gree_value_list_t {
	for _, v := range l.Items {
		retainValue(v)
	}
	return (C.gree_value_list_t)(newHandle(kindValueList, l))
}

func listOf(l C.gree_value_list_t) (*vm.List, error) {
	return objOf[*vm.List](unsafe.Pointer(l), kindValueList)
}

//export gree_value_list_create
func gree_value_list_create(out *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_list must not be NULL")
	}
	*out = newList(&vm.List{})
	return nil
}

//export gree_value_list_release
func gree_value_list_release(l C.gree_value_list_t) {
	defer guardVoid()
	if list, ok := dropHandle(unsafe.Pointer(l), kindValueList).(*vm.List); ok {
		for _, v := range list.Items {
			releaseValue(v)
		}
	}
}

//export gree_value_list_size
func gree_value_list_size(l C.gree_value_list_t) C.size_t {
	defer guardVoid()
	list, err := listOf(l)
	if err != nil {
		return 0
	}
	return C.size_t(len(list.Items))
}

// push appends v to the list, which takes a reference to its buffers.
func push(l C.gree_value_list_t, v vm.Value) C.gree_status_t {
	list, err := listOf(l)
	if err != nil {
		return toStatus(err)
	}
	retainValue(v)
	list.Items = append(list.Items, v)
	return nil
}

//export gree_value_list_push_null
func gree_value_list_push_null(l C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	return push(l, vm.Value{Kind: vm.KindNull})
}

//export gree_value_list_push_i32
func gree_value_list_push_i32(l C.gree_value_list_t, v C.int32_t) (st C.gree_status_t) {
	defer guard(&st)
	return push(l, vm.I32(int32(v)))
}

//export gree_value_list_push_i64
func gree_value_list_push_i64(l C.gree_value_list_t, v C.int64_t) (st C.gree_status_t) {
	defer guard(&st)
	return push(l, vm.I64(int64(v)))
}

//export gree_value_list_push_f32
func gree_value_list_push_f32(l C.gree_value_list_t, v C.float) (st C.gree_status_t) {
	defer guard(&st)
	return push(l, vm.F32(float32(v)))
}

//export gree_value_list_push_f64
func gree_value_list_push_f64(l C.gree_value_list_t, v C.double) (st C.gree_status_t) {
	defer guard(&st)
	return push(l, vm.F64(float64(v)))
}

//export gree_value_list_push_buffer_view
func gree_value_list_push_buffer_view(l C.gree_value_list_t, v C.gree_buffer_view_t) (st C.gree_status_t) {
	defer guard(&st)
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	if err := bv.Buffer.Check(); err != nil {
		return toStatus(err)
	}
	return push(l, vm.RefValue(bv))
}

//export gree_value_list_push_buffer
func gree_value_list_push_buffer(l C.gree_value_list_t, b C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	buf, err := bufferOf(b)
	if err != nil {
		return toStatus(err)
	}
	return push(l, vm.RefValue(buf))
}

//export gree_value_list_push_fence
func gree_value_list_push_fence(l C.gree_value_list_t, f C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	fence, err := fenceOf(f)
	if err != nil {
		return toStatus(err)
	}
	return push(l, vm.RefValue(fence))
}

//export gree_value_list_push_list
func gree_value_list_push_list(l C.gree_value_list_t, sub C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	s, err := listOf(sub)
	if err != nil {
		return toStatus(err)
	}
	return push(l, vm.RefValue(&vm.List{Items: append([]vm.Value(nil), s.Items...)}))
}

// entryAt returns item index of a list.
func entryAt(l C.gree_value_list_t, index C.size_t) (vm.Value, error) {
	list, err := listOf(l)
	if err != nil {
		return vm.Value{}, err
	}
	if int(index) >= len(list.Items) {
		return vm.Value{}, status.Errorf(status.OutOfRange, "index %d out of range; the list has %d values", index, len(list.Items))
	}
	return list.Items[index], nil
}

//export gree_value_list_get
func gree_value_list_get(l C.gree_value_list_t, index C.size_t, outType *C.gree_value_type_t, outI *C.int64_t, outF *C.double, outView *C.gree_buffer_view_t, outList *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	v, err := entryAt(l, index)
	if err != nil {
		return toStatus(err)
	}
	// Out pointers that do not apply are cleared, so a caller never sees a
	// stale handle.
	if outI != nil {
		*outI = 0
	}
	if outF != nil {
		*outF = 0
	}
	if outView != nil {
		*outView = nil
	}
	if outList != nil {
		*outList = nil
	}
	var t C.gree_value_type_t
	switch {
	case v.Kind == vm.KindRef && v.Ref == nil, v.Kind == vm.KindNull:
		t = C.GREE_VALUE_NULL
	case v.Kind == vm.KindI32, v.Kind == vm.KindI64:
		t = C.GREE_VALUE_I32
		if v.Kind == vm.KindI64 {
			t = C.GREE_VALUE_I64
		}
		if outI != nil {
			*outI = C.int64_t(v.I)
		}
	case v.Kind == vm.KindF32, v.Kind == vm.KindF64:
		t = C.GREE_VALUE_F32
		if v.Kind == vm.KindF64 {
			t = C.GREE_VALUE_F64
		}
		if outF != nil {
			*outF = C.double(v.F)
		}
	case v.Kind == vm.KindRef:
		switch r := v.Ref.(type) {
		case *hal.BufferView:
			t = C.GREE_VALUE_BUFFER_VIEW
			if r == nil {
				t = C.GREE_VALUE_NULL
			} else if outView != nil {
				*outView = newView(r, true)
			}
		case *vm.List:
			t = C.GREE_VALUE_LIST
			if r == nil {
				t = C.GREE_VALUE_NULL
			} else if outList != nil {
				*outList = newList(&vm.List{Items: append([]vm.Value(nil), r.Items...)})
			}
		case *hal.Buffer:
			t = C.GREE_VALUE_BUFFER
		case *hal.Fence:
			t = C.GREE_VALUE_FENCE
		default:
			return toStatus(status.Errorf(status.Unimplemented, "value %d has a reference type (%T) the C API cannot return", index, r))
		}
	}
	if outType != nil {
		*outType = t
	}
	return nil
}

//export gree_value_list_get_buffer
func gree_value_list_get_buffer(l C.gree_value_list_t, index C.size_t, out *C.gree_buffer_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_buffer must not be NULL")
	}
	*out = nil
	v, err := entryAt(l, index)
	if err != nil {
		return toStatus(err)
	}
	b, ok := v.Ref.(*hal.Buffer)
	if !ok || b == nil {
		return invalidArg("value %d is not a buffer (%s)", index, v)
	}
	if err := b.Retain(); err != nil {
		return toStatus(err)
	}
	*out = newBufferHandle(b)
	return nil
}

//export gree_value_list_get_fence
func gree_value_list_get_fence(l C.gree_value_list_t, index C.size_t, out *C.gree_fence_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_fence must not be NULL")
	}
	*out = nil
	v, err := entryAt(l, index)
	if err != nil {
		return toStatus(err)
	}
	f, ok := v.Ref.(*hal.Fence)
	if !ok || f == nil {
		return invalidArg("value %d is not a fence (%s)", index, v)
	}
	*out = (C.gree_fence_t)(newHandle(kindFence, f))
	return nil
}
