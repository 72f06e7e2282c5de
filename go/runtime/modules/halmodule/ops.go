package halmodule

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// The operations of host programs (vm.Device), made on a recorder: a
// call's own (see Device.Scope), or the Device's base outside calls.

// PrepareExecutable loads a module executable on the device.
func (r *recorder) PrepareExecutable(e *module.Executable) (any, error) {
	return r.d.dev.PrepareExecutable(e.Format, e.Data)
}

// Constant returns a buffer view of a module constant (shared, never
// written: host programs clone before storing), imported without a copy
// where the device can use host memory, else uploaded once here.
func (r *recorder) Constant(c *module.Constant) (any, error) {
	t := hal.ElementType(c.ElementType)
	a := r.d.dev.Allocator()
	n := int64(len(c.Data))
	var b *hal.Buffer
	if compat, _ := a.QueryCompatibility(constantParams, n); compat&hal.BufferCompatibilityImportable != 0 {
		var err error
		if b, err = a.Import(constantParams, c.Data, nil); err != nil {
			return nil, err
		}
	} else {
		var err error
		if b, err = a.Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, n); err != nil {
			return nil, err
		}
		if err := hal.WriteBuffer(r.d.dev, b, 0, c.Data); err != nil {
			return nil, err
		}
	}
	return newView(c.Shape, t, b), nil
}

// Alloc returns a buffer view, zeroed unless uninitialized is set.
func (r *recorder) Alloc(elementType uint32, dims []int64, uninitialized bool) (any, error) {
	t := hal.ElementType(elementType)
	n, err := hal.DenseByteSize(dims, t)
	if err != nil {
		return nil, err
	}
	b, err := r.d.cache.getBy(r, n, uninitialized)
	if err != nil {
		return nil, err
	}
	return newView(dims, t, b), nil
}

// Dim returns dimension i.
func (r *recorder) Dim(ref any, i int) (int64, error) {
	b, err := bv(ref)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= len(b.Shape) {
		return 0, status.Errorf(status.OutOfRange, "dimension %d of a rank-%d tensor", i, len(b.Shape))
	}
	return b.Shape[i], nil
}

// Shape returns the element type and dimensions of a buffer view.
func (r *recorder) Shape(ref any) (uint32, []int64, error) {
	b, err := bv(ref)
	if err != nil {
		return 0, nil, err
	}
	return uint32(b.Type), b.Shape, nil
}

// Reshape views the same buffer with other dimensions.
func (r *recorder) Reshape(ref any, dims []int64) (any, error) {
	b, err := bv(ref)
	if err != nil {
		return nil, err
	}
	n := int64(1)
	for _, x := range dims {
		if x < 0 {
			return nil, status.Errorf(status.InvalidArgument, "reshape to negative dimension %v", dims)
		}
		n *= x
	}
	if n != b.ElementCount() {
		return nil, status.Errorf(status.InvalidArgument, "cannot reshape %v (%d elements) to %v (%d elements)", b.Shape, b.ElementCount(), dims, n)
	}
	return newView(dims, b.Type, b.Buffer), nil
}

// Clone copies a buffer view into a buffer from the cache (a queue copy).
func (r *recorder) Clone(ref any) (any, error) {
	b, err := bv(ref)
	if err != nil {
		return nil, err
	}
	n := b.ByteLength()
	nb, err := r.d.cache.getBy(r, n, true)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		err = r.record(func(cb *hal.CommandBuffer) error {
			return cb.Copy(hal.BufferRef{Buffer: b.Buffer, Length: n}, hal.BufferRef{Buffer: nb, Length: n})
		})
		if err != nil {
			return nil, err
		}
	}
	return newView(b.Shape, b.Type, nb), nil
}

// CopyInto copies all of src's bytes into dst from byte offset off on (a
// queue copy, after the work recorded before it).
func (r *recorder) CopyInto(dst, src any, off int64) error {
	d, err := bv(dst)
	if err != nil {
		return err
	}
	s, err := bv(src)
	if err != nil {
		return err
	}
	n := s.ByteLength()
	if off < 0 || off+n > d.ByteLength() {
		return status.Errorf(status.OutOfRange, "copying %d bytes at offset %d into a buffer of %d bytes", n, off, d.ByteLength())
	}
	if n == 0 {
		return nil
	}
	return r.record(func(cb *hal.CommandBuffer) error {
		return cb.Copy(hal.BufferRef{Buffer: s.Buffer, Length: n}, hal.BufferRef{Buffer: d.Buffer, Offset: off, Length: n})
	})
}

// Subview views dims of ref's bytes from byte offset off on, over a
// buffer borrowed from ref's (hal.Buffer.Borrow): the view holds no
// reference, so the cache recycles ref's storage when the program
// discards ref, after the view (the program keeps ref live while a view
// of it is).
func (r *recorder) Subview(ref any, off int64, dims []int64) (any, error) {
	b, err := bv(ref)
	if err != nil {
		return nil, err
	}
	n, err := hal.DenseByteSize(dims, b.Type)
	if err != nil {
		return nil, err
	}
	if off < 0 || off+n > b.ByteLength() {
		return nil, status.Errorf(status.OutOfRange, "a view of %d bytes at offset %d of a buffer of %d bytes", n, off, b.ByteLength())
	}
	sub, err := b.Buffer.Borrow(off, n)
	if err != nil {
		return nil, err
	}
	return newView(dims, b.Type, sub), nil
}

// Load reads one element once the work writing it is done.
func (r *recorder) Load(ref any, t uint8, idx []int64) (vm.Value, error) {
	b, err := bv(ref)
	if err != nil {
		return vm.Value{}, err
	}
	off, err := offset(b, idx)
	if err != nil {
		return vm.Value{}, err
	}
	size, err := elementBytes(t)
	if err != nil {
		return vm.Value{}, err
	}
	if err := r.Sync(); err != nil {
		return vm.Value{}, err
	}
	var p [8]byte
	if err := hal.ReadBufferInto(r.d.dev, b.Buffer, off, p[:size]); err != nil {
		return vm.Value{}, err
	}
	switch t {
	case module.TypeI1, module.TypeI8:
		return vm.I32(int32(int8(p[0]))), nil
	case module.TypeI16:
		return vm.I32(int32(int16(binary.LittleEndian.Uint16(p[:])))), nil
	case module.TypeI32:
		return vm.I32(int32(binary.LittleEndian.Uint32(p[:]))), nil
	case module.TypeI64:
		return vm.I64(int64(binary.LittleEndian.Uint64(p[:]))), nil
	case module.TypeF16:
		return vm.Value{Kind: vm.KindF32, F: float64(vm.F16ToF32(binary.LittleEndian.Uint16(p[:])))}, nil
	case module.TypeBF16:
		return vm.Value{Kind: vm.KindF32, F: float64(vm.BF16ToF32(binary.LittleEndian.Uint16(p[:])))}, nil
	case module.TypeF32:
		return vm.F32(math.Float32frombits(binary.LittleEndian.Uint32(p[:]))), nil
	}
	return vm.F64(math.Float64frombits(binary.LittleEndian.Uint64(p[:]))), nil
}

// Store writes one element once the work before it is done.
func (r *recorder) Store(ref any, t uint8, idx []int64, v vm.Value) error {
	b, err := bv(ref)
	if err != nil {
		return err
	}
	off, err := offset(b, idx)
	if err != nil {
		return err
	}
	size, err := elementBytes(t)
	if err != nil {
		return err
	}
	var p [8]byte
	switch t {
	case module.TypeI1:
		p[0] = byte(v.I & 1)
	case module.TypeI8:
		p[0] = byte(v.I)
	case module.TypeI16:
		binary.LittleEndian.PutUint16(p[:], uint16(v.I))
	case module.TypeI32:
		binary.LittleEndian.PutUint32(p[:], uint32(v.I))
	case module.TypeI64:
		binary.LittleEndian.PutUint64(p[:], uint64(v.I))
	case module.TypeF16:
		binary.LittleEndian.PutUint16(p[:], vm.F32ToF16(float32(v.F)))
	case module.TypeBF16:
		binary.LittleEndian.PutUint16(p[:], vm.F32ToBF16(float32(v.F)))
	case module.TypeF32:
		binary.LittleEndian.PutUint32(p[:], math.Float32bits(float32(v.F)))
	case module.TypeF64:
		binary.LittleEndian.PutUint64(p[:], math.Float64bits(v.F))
	}
	if err := r.Sync(); err != nil {
		return err
	}
	return hal.WriteBuffer(r.d.dev, b.Buffer, off, p[:size])
}

// Dispatch records a kernel dispatch; the bindings are buffer views.
func (r *recorder) Dispatch(exe any, entry int, grid [3]int64, push []int64, bindings []any) error {
	he, ok := exe.(hal.Executable)
	if !ok {
		return status.Errorf(status.Internal, "dispatch of an executable the device did not prepare")
	}
	sp, _ := refsPool.Get().(*[]hal.BufferRef)
	if sp == nil {
		sp = new([]hal.BufferRef)
	}
	refs := (*sp)[:0]
	defer func() {
		clear(refs) // the pooled slice keeps no buffer alive
		*sp = refs
		refsPool.Put(sp)
	}()
	for i, ref := range bindings {
		b, err := bv(ref)
		if err != nil {
			return fmt.Errorf("binding %d: %w", i, err)
		}
		if !hal.Usable(r.d.dev, b.Buffer) {
			// A buffer the device cannot use (host memory reaching a GPU
			// through a list or a global): a copy in its memory.
			a, err := r.Adopt(b)
			if err != nil {
				return fmt.Errorf("binding %d: %w", i, err)
			}
			b = a.(*hal.BufferView)
		}
		refs = append(refs, hal.BufferRef{Buffer: b.Buffer, Length: b.ByteLength()})
	}
	return r.record(func(cb *hal.CommandBuffer) error { return cb.Dispatch(he, entry, grid, push, refs) })
}

// Adopt returns a buffer view the device can use for ref: ref itself, or
// for a buffer of other memory (host buffers passed to a GPU) a copy in a
// new buffer of the device's, written once the work before it is done.
func (r *recorder) Adopt(ref any) (any, error) {
	v, ok := ref.(*hal.BufferView)
	if !ok || v.Buffer == nil || hal.Usable(r.d.dev, v.Buffer) {
		return ref, nil
	}
	// The copy is written once the work recorded before it is done.
	if err := r.Sync(); err != nil {
		return nil, err
	}
	return r.d.DeviceView(v)
}

// Trace hands the buffer views to the trace sink.
func (r *recorder) Trace(key string, refs []any) error {
	if err := r.Sync(); err != nil {
		return err
	}
	var views []*hal.BufferView
	for _, r := range refs {
		if v, ok := r.(*hal.BufferView); ok {
			views = append(views, v)
		}
	}
	r.d.mu.Lock()
	sink := r.d.sink
	r.d.mu.Unlock()
	if sink != nil {
		return sink(key, views)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s ===\n", key)
	for _, v := range views {
		if hv, err := r.d.HostView(v); err != nil {
			fmt.Fprintf(&b, "(unreadable: %v)\n", err)
		} else {
			b.WriteString(vio.FormatBufferView(hv, 1024))
			b.WriteString("\n")
		}
	}
	os.Stderr.WriteString(b.String())
	return nil
}

// Hold adds a reference to the buffer of a buffer view a global keeps.
func (r *recorder) Hold(ref any) {
	if v, ok := ref.(*hal.BufferView); ok && v.Buffer != nil {
		v.Buffer.Retain()
	}
}

// Drop drops the reference Hold added.
func (r *recorder) Drop(ref any) {
	if v, ok := ref.(*hal.BufferView); ok && v.Buffer != nil {
		v.Buffer.Release()
	}
}

// Release recycles the allocations of buffer views the caller is done
// with.
func (r *recorder) Release(refs, keep []any) { r.d.cache.releaseBy(r, refs, keep) }

// Recyclable reports whether Release could recycle ref's allocation.
func (r *recorder) Recyclable(ref any) bool { return r.d.cache.recyclable(ref) }

// Exclusive reports whether ref's allocation is one the cache handed out
// and none of live uses (see vm.Mover).
func (r *recorder) Exclusive(ref any, live []any) bool { return r.d.cache.exclusive(ref, live) }

func bv(ref any) (*hal.BufferView, error) {
	b, ok := ref.(*hal.BufferView)
	if !ok || b == nil {
		return nil, status.Errorf(status.InvalidArgument, "expected a buffer view, got %T", ref)
	}
	return b, nil
}

// constantParams are the parameters of module constants: read-only
// device memory, imported from the module's bytes where the device can use
// host memory.
var constantParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageSharingImmutable, Access: hal.MemoryAccessRead}

// offset returns the byte offset of an element, checking bounds.
func offset(b *hal.BufferView, idx []int64) (int64, error) {
	if len(idx) != len(b.Shape) {
		return 0, status.Errorf(status.InvalidArgument, "%d indices for a rank-%d tensor", len(idx), len(b.Shape))
	}
	off := int64(0)
	for i, x := range idx {
		if x < 0 || x >= b.Shape[i] {
			return 0, status.Errorf(status.OutOfRange, "index %v is out of bounds for shape %v", idx, b.Shape)
		}
		off = off*b.Shape[i] + x
	}
	return off * int64(b.Type.ByteSize()), nil
}

// elementBytes returns the byte size of a scalar of type t.
func elementBytes(t uint8) (int, error) {
	switch t {
	case module.TypeI1, module.TypeI8:
		return 1, nil
	case module.TypeI16, module.TypeF16, module.TypeBF16:
		return 2, nil
	case module.TypeI32, module.TypeF32:
		return 4, nil
	case module.TypeI64, module.TypeF64:
		return 8, nil
	}
	return 0, status.Errorf(status.InvalidArgument, "elements of type %d cannot be loaded or stored", t)
}

// refsPool recycles Dispatch's slices of binding references (the command
// buffer copies them).
var refsPool sync.Pool

// newView returns a view of b with a copy of shape; up to rank 4 the view
// and its shape are one allocation.
func newView(shape []int64, t hal.ElementType, b *hal.Buffer) *hal.BufferView {
	if len(shape) == 0 || len(shape) > 4 {
		return &hal.BufferView{Shape: append([]int64(nil), shape...), Type: t, Buffer: b}
	}
	v := &struct {
		hal.BufferView
		dims [4]int64
	}{}
	n := copy(v.dims[:], shape)
	v.BufferView = hal.BufferView{Shape: v.dims[:n:n], Type: t, Buffer: b}
	return &v.BufferView
}
