package params

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Access says how a FileHandle's bytes may be used (IREE's
// iree_io_file_access_t bits).
type Access uint32

// Access bits.
const (
	AccessRead  Access = 1
	AccessWrite Access = 2
)

// HandleType says what a FileHandle holds (IREE's
// iree_io_file_handle_type_t).
type HandleType uint8

// Handle types.
const (
	// HandleHostAllocation handles are bytes in this process's memory: a
	// caller's memory, a file mapped read-only, or a file read into memory.
	HandleHostAllocation HandleType = iota + 1
	// HandleFD handles are an open file descriptor, read with pread.
	HandleFD
)

// FileHandle is a reference-counted source of parameter bytes, as IREE's
// iree_io_file_handle_t: host memory or an open file. Index entries
// reference a range of one. The last Release frees what it holds (unmaps
// a mapping, closes a descriptor, or calls the release function of
// wrapped memory).
type FileHandle struct {
	name    string
	typ     HandleType
	access  Access
	data    []byte // HandleHostAllocation
	fd      int    // HandleFD, else -1
	source  os.FileInfo
	refs    atomic.Int64
	release func()
}

// WrapMemory returns a handle over data, which the caller keeps valid and
// unmoved until release runs (once, after the handle's last reference is
// released; release may be nil). name describes the memory in errors.
func WrapMemory(name string, data []byte, access Access, release func()) *FileHandle {
	if name == "" {
		name = "host memory"
	}
	h := &FileHandle{name: name, typ: HandleHostAllocation, access: access, data: data, fd: -1, release: release}
	h.refs.Store(1)
	return h
}

// OpenFD returns a handle reading a duplicate of fd (the caller keeps and
// closes its own descriptor), as IREE's iree_io_file_handle_open_fd.
func OpenFD(fd int, access Access) (*FileHandle, error) {
	if fd < 0 {
		return nil, status.Errorf(status.InvalidArgument, "file descriptor %d is not open", fd)
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, status.Errorf(status.InvalidArgument, "cannot use file descriptor %d: %v", fd, err)
	}
	name := fmt.Sprintf("fd %d", fd)
	if p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", dup)); err == nil {
		name = fmt.Sprintf("%s (fd %d)", p, fd)
	}
	f := os.NewFile(uintptr(dup), name)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, status.Errorf(status.InvalidArgument, "%s: %v", name, err)
	}
	h := &FileHandle{name: name, typ: HandleFD, access: access, fd: dup, source: fi}
	// f owns dup: closing it on the last release (f must stay reachable
	// until then, or its finalizer would close the descriptor early).
	h.release = func() { f.Close() }
	h.refs.Store(1)
	return h, nil
}

// OpenFile returns a read-only host-allocation handle over the file at
// path: mapped (mmap true; pages are read as they are used) or read into
// memory now (IREE's preload).
func OpenFile(path string, mmap bool) (*FileHandle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, status.Errorf(status.NotFound, "params: cannot open parameter file: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, status.Errorf(status.Unavailable, "params: %s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, status.Errorf(status.InvalidArgument, "params: %s is not a regular file", path)
	}
	h := &FileHandle{name: path, typ: HandleHostAllocation, access: AccessRead, fd: -1, source: st}
	if mmap {
		if h.data, err = mapReadOnly(int(f.Fd()), st.Size(), path); err != nil {
			return nil, err
		}
		if d := h.data; d != nil {
			h.release = func() { unix.Munmap(d) }
		}
	} else {
		b, free, err := hal.AllocHost(st.Size(), "preloading "+path)
		if err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(f, b); err != nil {
			free()
			return nil, status.Errorf(status.DataLoss, "params: %s: reading %d bytes: %v (was it truncated while being read?)", path, st.Size(), err)
		}
		h.data, h.release = b, free
	}
	h.refs.Store(1)
	return h, nil
}

// Name describes the handle in errors: a path, a descriptor or memory.
func (h *FileHandle) Name() string { return h.name }

// Type returns what the handle holds.
func (h *FileHandle) Type() HandleType { return h.typ }

// Access returns how the handle's bytes may be used.
func (h *FileHandle) Access() Access { return h.access }

// HostAllocation returns a host-allocation handle's bytes (nil for a
// descriptor): valid until the last reference is released.
func (h *FileHandle) HostAllocation() []byte { return h.data }

// FD returns a descriptor handle's descriptor, or -1.
func (h *FileHandle) FD() int { return h.fd }

// Size returns the handle's length in bytes (a descriptor's file as it is
// now).
func (h *FileHandle) Size() (uint64, error) {
	if h.typ != HandleFD {
		return uint64(len(h.data)), nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(h.fd, &st); err != nil {
		return 0, status.Errorf(status.Unavailable, "%s: %v", h.name, err)
	}
	return uint64(st.Size), nil
}

// Retain adds a reference; it fails once the handle was freed.
func (h *FileHandle) Retain() error {
	for {
		n := h.refs.Load()
		if n <= 0 {
			return status.Errorf(status.FailedPrecondition, "file handle %s was released; it cannot be used again", h.name)
		}
		if h.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops a reference; the last one frees what the handle holds.
// Releasing more than was retained does nothing.
func (h *FileHandle) Release() {
	for {
		n := h.refs.Load()
		if n <= 0 {
			return
		}
		if h.refs.CompareAndSwap(n, n-1) {
			if n == 1 && h.release != nil {
				h.release()
			}
			return
		}
	}
}

// ReadAt fills dst with the bytes at off. A range past the end is
// OUT_OF_RANGE (DATA_LOSS when a file shrank under a descriptor handle);
// errors name the handle.
func (h *FileHandle) ReadAt(dst []byte, off uint64) error {
	if h.refs.Load() <= 0 {
		return status.Errorf(status.FailedPrecondition, "file handle %s was released", h.name)
	}
	if h.typ != HandleFD {
		if !inFile(off, uint64(len(dst)), uint64(len(h.data))) {
			return status.Errorf(status.OutOfRange, "%s: [%d, +%d) lies outside its %d bytes", h.name, off, len(dst), len(h.data))
		}
		copy(dst, h.data[off:])
		return nil
	}
	for done := 0; done < len(dst); {
		n, err := unix.Pread(h.fd, dst[done:], int64(off)+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return status.Errorf(status.Unavailable, "%s: reading [%d, +%d): %v", h.name, off, len(dst), err)
		}
		if n == 0 {
			return status.Errorf(status.DataLoss, "%s: reading [%d, +%d): the file ends at byte %d (truncated?)", h.name, off, len(dst), off+uint64(done))
		}
		done += n
	}
	return nil
}

// view calls fn with all of the handle's bytes: a host allocation's
// memory, or a descriptor's file mapped read-only for the call.
func (h *FileHandle) view(fn func(data []byte) error) error {
	if h.refs.Load() <= 0 {
		return status.Errorf(status.FailedPrecondition, "file handle %s was released", h.name)
	}
	if h.typ != HandleFD {
		return fn(h.data)
	}
	size, err := h.Size()
	if err != nil {
		return err
	}
	d, err := mapReadOnly(h.fd, int64(size), h.name)
	if err != nil {
		return err
	}
	if d != nil {
		defer unix.Munmap(d)
	}
	return fn(d)
}

// sameFile reports whether the handle reads the file fi describes.
func (h *FileHandle) sameFile(fi os.FileInfo) bool {
	return h.source != nil && fi != nil && os.SameFile(h.source, fi)
}
