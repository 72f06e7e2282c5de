package main

/*
#include "internal.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/status"
)

// Parameters (gree_io_*): file handles, parameter indexes and providers
// are runtime.FileHandle, runtime.ParameterIndex and
// runtime.ParameterProvider, reference counted; each handle holds one
// reference, released with the handle.

// Handle kinds of this file (numbered apart from handles.go's list).
const (
	kindIOFile kind = 64 + iota
	kindParamIndex
	kindParamProvider
)

func init() {
	kindNames[kindIOFile] = "io file handle"
	kindNames[kindParamIndex] = "parameter index"
	kindNames[kindParamProvider] = "parameter provider"
}

func ioFileOf(h C.gree_io_file_handle_t) (*runtime.FileHandle, error) {
	return objOf[*runtime.FileHandle](unsafe.Pointer(h), kindIOFile)
}

func paramIndexOf(x C.gree_io_parameter_index_t) (*runtime.ParameterIndex, error) {
	return objOf[*runtime.ParameterIndex](unsafe.Pointer(x), kindParamIndex)
}

// goKey copies a key of n bytes (NUL bytes included).
func goKey(key *C.char, n C.size_t) (string, error) {
	if key == nil && n > 0 {
		return "", status.New(status.InvalidArgument, "key must not be NULL when key_length > 0")
	}
	if n == 0 {
		return "", nil
	}
	return C.GoStringN(key, C.int(n)), nil
}

// goBytes views n bytes at p (NULL with n 0 is empty); the caller copies
// what it keeps.
func goBytes(p unsafe.Pointer, n C.size_t, what string) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if p == nil {
		return nil, status.Errorf(status.InvalidArgument, "%s must not be NULL when its length is %d", what, uint64(n))
	}
	return unsafe.Slice((*byte)(p), int(n)), nil
}

//export gree_io_file_handle_wrap_memory
func gree_io_file_handle_wrap_memory(data unsafe.Pointer, size C.size_t, access C.uint32_t, fn C.gree_release_fn_t, user unsafe.Pointer, out *C.gree_io_file_handle_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (data == nil && size > 0) {
		return invalidArg("data and out_handle must not be NULL")
	}
	*out = nil
	if access&^3 != 0 {
		return invalidArg("access %#x has bits other than GREE_IO_FILE_ACCESS_READ and _WRITE", uint32(access))
	}
	var host []byte
	if size > 0 {
		host = unsafe.Slice((*byte)(data), int(size))
	}
	h := runtime.WrapFileMemory("", host, runtime.FileAccess(access), func() {
		C.gree__call_release(fn, user)
	})
	*out = (C.gree_io_file_handle_t)(newHandle(kindIOFile, h))
	return nil
}

//export gree_io_file_handle_open_fd
func gree_io_file_handle_open_fd(fd C.int, access C.uint32_t, out *C.gree_io_file_handle_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_handle must not be NULL")
	}
	*out = nil
	if access&^3 != 0 {
		return invalidArg("access %#x has bits other than GREE_IO_FILE_ACCESS_READ and _WRITE", uint32(access))
	}
	h, err := runtime.OpenFileFD(int(fd), runtime.FileAccess(access))
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_io_file_handle_t)(newHandle(kindIOFile, h))
	return nil
}

//export gree_io_file_handle_open
func gree_io_file_handle_open(path *C.char, mmap C.int, out *C.gree_io_file_handle_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || path == nil {
		return invalidArg("path and out_handle must not be NULL")
	}
	*out = nil
	h, err := runtime.OpenParameterFile(C.GoString(path), mmap != 0)
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_io_file_handle_t)(newHandle(kindIOFile, h))
	return nil
}

//export gree_io_file_handle_release
func gree_io_file_handle_release(h C.gree_io_file_handle_t) {
	defer guardVoid()
	if fh, ok := dropHandle(unsafe.Pointer(h), kindIOFile).(*runtime.FileHandle); ok {
		fh.Release()
	}
}

//export gree_io_file_handle_query
func gree_io_file_handle_query(h C.gree_io_file_handle_t, out *C.gree_io_file_handle_info_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_info must not be NULL")
	}
	fh, err := ioFileOf(h)
	if err != nil {
		return toStatus(err)
	}
	size, err := fh.Size()
	if err != nil {
		return toStatus(err)
	}
	*out = C.gree_io_file_handle_info_t{_type: C.int32_t(fh.Type()), access: C.uint32_t(fh.Access()), size: C.uint64_t(size), fd: C.int32_t(fh.FD())}
	if d := fh.HostAllocation(); len(d) > 0 {
		out.data = unsafe.Pointer(unsafe.SliceData(d))
	}
	return nil
}

//export gree_io_parameter_index_create
func gree_io_parameter_index_create(out *C.gree_io_parameter_index_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_index must not be NULL")
	}
	*out = (C.gree_io_parameter_index_t)(newHandle(kindParamIndex, runtime.NewParameterIndex()))
	return nil
}

//export gree_io_parameter_index_release
func gree_io_parameter_index_release(x C.gree_io_parameter_index_t) {
	defer guardVoid()
	if idx, ok := dropHandle(unsafe.Pointer(x), kindParamIndex).(*runtime.ParameterIndex); ok {
		idx.Release()
	}
}

//export gree_io_parameter_index_count
func gree_io_parameter_index_count(x C.gree_io_parameter_index_t) C.size_t {
	defer guardVoid()
	idx, err := paramIndexOf(x)
	if err != nil {
		return 0
	}
	return C.size_t(idx.Len())
}

//export gree_io_parameter_index_reserve
func gree_io_parameter_index_reserve(x C.gree_io_parameter_index_t, capacity C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	if uint64(capacity) > 1<<32 {
		return invalidArg("cannot reserve %d parameter index entries", uint64(capacity))
	}
	return toStatus(idx.Reserve(int(capacity)))
}

//export gree_io_parameter_index_add_splat
func gree_io_parameter_index_add_splat(x C.gree_io_parameter_index_t, key *C.char, keyLen C.size_t, pattern unsafe.Pointer, patternLen C.size_t, length C.uint64_t, metadata unsafe.Pointer, metadataLen C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	k, err := goKey(key, keyLen)
	if err != nil {
		return toStatus(err)
	}
	pat, err := goBytes(pattern, patternLen, "pattern")
	if err != nil {
		return toStatus(err)
	}
	md, err := goBytes(metadata, metadataLen, "metadata")
	if err != nil {
		return toStatus(err)
	}
	return toStatus(idx.AddSplat(k, pat, uint64(length), md))
}

//export gree_io_parameter_index_add_file
func gree_io_parameter_index_add_file(x C.gree_io_parameter_index_t, key *C.char, keyLen C.size_t, file C.gree_io_file_handle_t, offset, length C.uint64_t, metadata unsafe.Pointer, metadataLen C.size_t) (st C.gree_status_t) {
	defer guard(&st)
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	fh, err := ioFileOf(file)
	if err != nil {
		return toStatus(err)
	}
	k, err := goKey(key, keyLen)
	if err != nil {
		return toStatus(err)
	}
	md, err := goBytes(metadata, metadataLen, "metadata")
	if err != nil {
		return toStatus(err)
	}
	return toStatus(idx.AddFile(k, fh, uint64(offset), uint64(length), md))
}

//export gree_io_parameter_index_load
func gree_io_parameter_index_load(x C.gree_io_parameter_index_t, file C.gree_io_file_handle_t, format *C.char) (st C.gree_status_t) {
	defer guard(&st)
	idx, err := paramIndexOf(x)
	if err != nil {
		return toStatus(err)
	}
	fh, err := ioFileOf(file)
	if err != nil {
		return toStatus(err)
	}
	f := ""
	if format != nil {
		f = C.GoString(format)
	}
	pf, err := runtime.ParseParameterFormat(f)
	if err != nil {
		return toStatus(err)
	}
	return toStatus(idx.Load(fh, pf))
}
