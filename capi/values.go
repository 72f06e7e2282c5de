package main

/*
#include "internal.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// maxViewBytes bounds a buffer view made from C memory.
const maxViewBytes = 1 << 40

//export gree_buffer_view_create
func gree_buffer_view_create(d C.gree_device_t, shape *C.int64_t, rank C.size_t, et C.uint32_t, data unsafe.Pointer, size C.size_t, out *C.gree_buffer_view_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (rank > 0 && shape == nil) || (size > 0 && data == nil) {
		return invalidArg("shape, data and out_view must not be NULL")
	}
	*out = nil
	if d == nil {
		return invalidArg("device must not be NULL")
	}
	if _, err := handleOf[hal.Device](d.handle, "device"); err != nil {
		return toStatus(err)
	}
	if rank > 128 {
		return invalidArg("rank %d exceeds 128", rank)
	}
	dims := make([]int64, rank)
	if rank > 0 {
		copy(dims, unsafe.Slice((*int64)(unsafe.Pointer(shape)), int(rank)))
	}
	t := hal.ElementType(et)
	if t.Bits() == 0 {
		return invalidArg("element type 0x%08x has no size", uint32(et))
	}
	n := int64(t.ByteSize())
	for _, x := range dims {
		if x < 0 || (x > 0 && n > maxViewBytes/x) {
			return invalidArg("invalid shape %v", dims)
		}
		n *= x
	}
	if int64(size) != n {
		return invalidArg("%d bytes of data for shape %v of %s, which needs %d", size, dims, t, n)
	}
	// Copy without C.GoBytes, whose length is a C int (2 GiB).
	buf := make([]byte, int(size))
	if size > 0 {
		copy(buf, unsafe.Slice((*byte)(data), int(size)))
	}
	bv, err := hal.HostBufferViewOf(dims, t, buf)
	if err != nil {
		return toStatus(err)
	}
	*out = newView(bv)
	return nil
}

func viewOf(v C.gree_buffer_view_t) (*hal.BufferView, error) {
	if v == nil {
		return nil, status.New(status.InvalidArgument, "buffer view must not be NULL")
	}
	return handleOf[*hal.BufferView](v.handle, "buffer view")
}

//export gree_buffer_view_release
func gree_buffer_view_release(v C.gree_buffer_view_t) {
	defer guardVoid()
	if v == nil {
		return
	}
	cgo.Handle(v.handle).Delete()
	C.free(unsafe.Pointer(v))
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
		copy(unsafe.Slice((*byte)(dst), n), bv.Bytes())
	}
	return nil
}

//export gree_buffer_view_format
func gree_buffer_view_format(v C.gree_buffer_view_t, maxElements C.int64_t, out **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_text must not be NULL")
	}
	bv, err := viewOf(v)
	if err != nil {
		return toStatus(err)
	}
	*out = C.CString(vio.FormatBufferView(bv, int(maxElements)))
	return nil
}

func listOf(l C.gree_value_list_t) (*vm.List, error) {
	if l == nil {
		return nil, status.New(status.InvalidArgument, "value list must not be NULL")
	}
	return handleOf[*vm.List](l.handle, "value list")
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
	if l == nil {
		return
	}
	cgo.Handle(l.handle).Delete()
	C.free(unsafe.Pointer(l))
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

func push(l C.gree_value_list_t, v vm.Value) C.gree_status_t {
	list, err := listOf(l)
	if err != nil {
		return toStatus(err)
	}
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
	return push(l, vm.RefValue(bv))
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

//export gree_value_list_get
func gree_value_list_get(l C.gree_value_list_t, index C.size_t, outType *C.gree_value_type_t, outI *C.int64_t, outF *C.double, outView *C.gree_buffer_view_t, outList *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	list, err := listOf(l)
	if err != nil {
		return toStatus(err)
	}
	if int(index) >= len(list.Items) {
		return toStatus(status.Errorf(status.OutOfRange, "index %d out of range; the list has %d values", index, len(list.Items)))
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
	v := list.Items[index]
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
				*outView = newView(r)
			}
		case *vm.List:
			t = C.GREE_VALUE_LIST
			if r == nil {
				t = C.GREE_VALUE_NULL
			} else if outList != nil {
				*outList = newList(&vm.List{Items: append([]vm.Value(nil), r.Items...)})
			}
		default:
			return toStatus(status.Errorf(status.Unimplemented, "value %d has a reference type (%T) the C API cannot return", index, r))
		}
	}
	if outType != nil {
		*outType = t
	}
	return nil
}
