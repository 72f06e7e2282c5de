package hal

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

// BufferView is a shaped, typed view of a buffer (IREE's hal.buffer_view):
// dense, row-major, little-endian, with ElementType.ByteSize bytes per
// element, starting at the buffer's first byte.
type BufferView struct {
	Shape  []int64
	Type   ElementType
	Buffer *Buffer
}

// ElementCount returns the product of the dimensions (1 for rank 0).
func (bv *BufferView) ElementCount() int64 {
	n := int64(1)
	for _, d := range bv.Shape {
		n *= d
	}
	return n
}

// ByteLength returns the number of bytes the view covers.
func (bv *BufferView) ByteLength() int64 { return bv.ElementCount() * int64(bv.Type.ByteSize()) }

// Bytes returns the view's bytes when its buffer is host memory the host
// may read directly (the local devices' buffers), else nil; a buffer
// shorter than the view gives what it has. Code that must work on every
// device reads through a Device (ReadBuffer).
func (bv *BufferView) Bytes() []byte {
	if bv.Buffer == nil {
		return nil
	}
	b := bv.Buffer.HostBytes()
	if n := bv.ByteLength(); int64(len(b)) > n {
		return b[:n:n]
	}
	return b
}

// String describes the view as IREE's Python repr does.
func (bv *BufferView) String() string {
	s := "("
	for i, d := range bv.Shape {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(d)
	}
	return s + fmt.Sprintf("), element_type=0x%08x, %s", uint32(bv.Type), bv.Buffer)
}

// NewBufferView makes a view of shape and element type over b, checking
// that b holds the view's bytes.
func NewBufferView(b *Buffer, shape []int64, t ElementType) (*BufferView, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	n, err := DenseByteSize(shape, t)
	if err != nil {
		return nil, err
	}
	if n > b.ByteLength() {
		return nil, status.Errorf(status.OutOfRange, "a %s view of shape %v needs %d bytes; the buffer has %d", t, shape, n, b.ByteLength())
	}
	return &BufferView{Shape: append([]int64(nil), shape...), Type: t, Buffer: b}, nil
}

// maxBufferBytes bounds one allocation's size (1 TiB).
const maxBufferBytes = 1 << 40

// DenseByteSize returns the bytes a dense tensor of shape and element type
// takes, checking the dimensions and overflow.
func DenseByteSize(shape []int64, t ElementType) (int64, error) {
	n := int64(t.ByteSize())
	if n == 0 {
		return 0, status.Errorf(status.InvalidArgument, "element type 0x%08x has no size", uint32(t))
	}
	for _, d := range shape {
		if d < 0 {
			return 0, status.Errorf(status.InvalidArgument, "invalid shape %v of %s: a dimension is negative", shape, t)
		}
		if d > 0 && n > maxBufferBytes/d {
			return 0, status.Errorf(status.ResourceExhausted, "a %s tensor needs more than the %s gree allocates per buffer", shapeString(shape, t), FormatBytes(maxBufferBytes))
		}
		n *= d
	}
	return n, nil
}

// hostStorage is host memory: from AllocHost (Go heap memory, or a
// mapping of its own for large allocations) or the caller's (imported).
// Free reports to the allocator's statistics, if any, and gives the
// memory back: a mapping is unmapped at once, heap memory is dropped for
// the garbage collector.
type hostStorage struct {
	b       []byte
	freed   func(n int64)
	release func() // AllocHost's free, nil for memory gree did not allocate
	mu      sync.Mutex
	pinned  bool
	pin     runtime.Pinner
}

func (s *hostStorage) Bytes() []byte { return s.b }

// Pin keeps the memory where it is until it is freed, so that C code may
// hold its address (a mapping or a DLPack export handed to C).
func (s *hostStorage) Pin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pinned && len(s.b) > 0 {
		s.pin.Pin(unsafe.SliceData(s.b))
		s.pinned = true
	}
}

func (s *hostStorage) Free() {
	s.mu.Lock()
	if s.pinned {
		s.pin.Unpin()
		s.pinned = false
	}
	s.mu.Unlock()
	if s.freed != nil {
		s.freed(int64(cap(s.b)))
	}
	s.b = nil
	if s.release != nil {
		s.release()
		s.release = nil
	}
}

// HostBufferParams are the parameters of host buffers made outside a
// device (tools reading inputs before a device exists, tests).
var HostBufferParams = BufferParams{
	Type:  MemoryTypeHostLocal | MemoryTypeDeviceVisible,
	Usage: BufferUsageDefault | BufferUsageMapping | BufferUsageMappingPersistent,
}

// WrapHostBytes makes a host buffer over data without copying it: the
// buffer views the caller's memory, which the caller keeps unchanged while
// devices use it. Every local device can use it.
func WrapHostBytes(data []byte) *Buffer {
	return NewBuffer(&hostStorage{b: data}, int64(len(data)), HostBufferParams, nil)
}

// NewHostBufferView returns a zeroed host buffer view of shape and type.
func NewHostBufferView(shape []int64, t ElementType) (*BufferView, error) {
	n, err := DenseByteSize(shape, t)
	if err != nil {
		return nil, err
	}
	s, err := newHostStorage(n, func() string { return "a " + shapeString(shape, t) + " tensor" }, nil)
	if err != nil {
		return nil, err
	}
	b := NewBuffer(s, n, HostBufferParams, nil)
	return &BufferView{Shape: append([]int64(nil), shape...), Type: t, Buffer: b}, nil
}

// shapeString spells a shape and element type as IREE does ("4x8xf32").
func shapeString(shape []int64, t ElementType) string {
	var b strings.Builder
	for _, d := range shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	b.WriteString(t.String())
	return b.String()
}

// HostBufferViewOf returns a view over data (not copied) of shape and
// type; data must hold exactly the view's bytes.
func HostBufferViewOf(shape []int64, t ElementType, data []byte) (*BufferView, error) {
	n, err := DenseByteSize(shape, t)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != n {
		return nil, status.Errorf(status.InvalidArgument, "%d bytes of data for shape %v of %s, which needs %d", len(data), shape, t, n)
	}
	return &BufferView{Shape: append([]int64(nil), shape...), Type: t, Buffer: WrapHostBytes(data)}, nil
}
