package main

/*
#include "internal.h"

static inline gree_io_parameter_provider_t gree__provider_at(const gree_io_parameter_provider_t* list, size_t i) { return list[i]; }
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/status"
)

// Parameter index entries, dumps and archives; providers and the
// io_parameters module.

//export gree_io_parameter_index_get
func gree_io_parameter_index_get(x C.gree_io_parameter_index_t, i C.size_t, out *C.gree_io_parameter_entry_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_entry must not be NULL")
	}
	*out = C.gree_io_parameter_entry_t{}
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	if uint64(i) > 1<<62 {
		return toStatus(status.Errorf(status.OutOfRange, "entry %d out of range (have %d entries in the index)", uint64(i), idx.Len()))
	}
	e, err := idx.Entry(int(i))
	if err != nil {
		return toStatus(err)
	}
	if e.Kind == runtime.ParameterStorageFile {
		if err := e.Handle.Retain(); err != nil {
			return toStatus(err)
		}
		out.file = (C.gree_io_file_handle_t)(newHandle(kindIOFile, e.Handle))
		out.storage, out.offset = C.GREE_IO_PARAMETER_STORAGE_FILE, C.uint64_t(e.Offset)
	} else {
		out.storage = C.GREE_IO_PARAMETER_STORAGE_SPLAT
		n := copy(unsafe.Slice((*byte)(unsafe.Pointer(&out.pattern[0])), len(out.pattern)), e.Pattern)
		out.pattern_length = C.size_t(n)
	}
	key, n := cbytes([]byte(e.Key))
	out.key, out.key_length = (*C.char)(unsafe.Pointer(key)), n
	if len(e.Metadata) > 0 {
		out.metadata, out.metadata_length = cbytes(e.Metadata)
	}
	out.length = C.uint64_t(e.Length)
	return nil
}

//export gree_io_parameter_index_dump
func gree_io_parameter_index_dump(x C.gree_io_parameter_index_t, scope *C.char, out **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_text must not be NULL")
	}
	*out = nil
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	s := ""
	if scope != nil {
		s = C.GoString(scope)
	}
	*out = C.CString(runtime.DumpParameterIndex(idx, s))
	return nil
}

//export gree_io_parameter_index_write_archive
func gree_io_parameter_index_write_archive(x C.gree_io_parameter_index_t, path *C.char, offset C.uint64_t, target C.gree_io_parameter_index_t) (st C.gree_status_t) {
	defer guard(&st)
	if path == nil {
		return invalidArg("path must not be NULL")
	}
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	var t *runtime.ParameterIndex
	if target != nil {
		if t, err = paramIndexOf(target); err != nil {
			return toStatus(err)
		}
	}
	return toStatus(idx.WriteArchive(C.GoString(path), uint64(offset), t))
}

//export gree_io_parameter_provider_create
func gree_io_parameter_provider_create(x C.gree_io_parameter_index_t, scope *C.char, out *C.gree_io_parameter_provider_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_provider must not be NULL")
	}
	*out = nil
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	s := ""
	if scope != nil {
		s = C.GoString(scope)
	}
	p, err := runtime.NewParameterProvider(s, idx)
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_io_parameter_provider_t)(newHandle(kindParamProvider, p))
	return nil
}

//export gree_io_parameter_provider_release
func gree_io_parameter_provider_release(p C.gree_io_parameter_provider_t) {
	defer guardVoid()
	if pr, ok := dropHandle(unsafe.Pointer(p), kindParamProvider).(*runtime.ParameterProvider); ok {
		pr.Release()
	}
}

//export gree_io_parameters_module_create
func gree_io_parameters_module_create(count C.size_t, providers *C.gree_io_parameter_provider_t, out *C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (providers == nil && count > 0) {
		return invalidArg("providers and out_module must not be NULL")
	}
	*out = nil
	if count > 1<<16 {
		return invalidArg("%d parameter providers is more than a module takes", uint64(count))
	}
	list := make([]*runtime.ParameterProvider, 0, int(count))
	for i := 0; i < int(count); i++ {
		p, err := objOf[*runtime.ParameterProvider](unsafe.Pointer(C.gree__provider_at(providers, C.size_t(i))), kindParamProvider)
		if err != nil {
			return toStatus(status.Annotate(err, "providers[%d]", i))
		}
		list = append(list, p)
	}
	h, err := runtime.NewParametersModule(list)
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_module_t)(newHostModuleHandle(h))
	return nil
}
