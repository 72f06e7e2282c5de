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

// maxElements bounds a single allocation (2^40 elements).
const maxElements = 1 << 40

// Device implements vm.Device on a HAL device.
type Device struct {
	dev   hal.Device
	disp  hal.Dispatcher
	cache *cache
}

var _ vm.Device = (*Device)(nil)

// New returns the bridge for dev.
func New(dev hal.Device) *Device {
	d := &Device{dev: dev, cache: newCache()}
	d.disp, _ = dev.(hal.Dispatcher)
	return d
}

// Warm marks an invocation in progress until done is called: the
// device's workers stay ready for dispatches (see hal.Warmer) and the
// buffer cache numbers the invocation's allocations (see
// cache.invocations).
func (d *Device) Warm() (done func()) {
	end := d.cache.invocations()
	if w, ok := d.disp.(hal.Warmer); ok {
		cool := w.Warm()
		return func() { cool(); end() }
	}
	return end
}

// HAL returns the underlying device.
func (d *Device) HAL() hal.Device { return d.dev }

func bv(ref any) (*hal.BufferView, error) {
	b, ok := ref.(*hal.BufferView)
	if !ok || b == nil {
		return nil, status.Errorf(status.InvalidArgument, "expected a buffer view, got %T", ref)
	}
	return b, nil
}

// PrepareExecutable loads a module executable on the device.
func (d *Device) PrepareExecutable(e *module.Executable) (any, error) {
	if d.disp == nil {
		return nil, status.Errorf(status.Unimplemented, "the %s device cannot run executables yet (gree runs '%s' modules on local-sync and local-task)", d.dev.ID(), e.Format)
	}
	return d.disp.PrepareExecutable(e.Format, e.Data)
}

// Constant returns a buffer view over a module constant (shared, never
// written: host programs clone before storing).
func (d *Device) Constant(c *module.Constant) (any, error) {
	return newView(c.Shape, hal.ElementType(c.ElementType), c.Data), nil
}

// Alloc returns a buffer view, zeroed unless uninitialized is set.
func (d *Device) Alloc(elementType uint32, dims []int64, uninitialized bool) (any, error) {
	n := int64(1)
	for _, x := range dims {
		if x < 0 || (x > 0 && n > maxElements/x) {
			return nil, status.Errorf(status.InvalidArgument, "cannot allocate a tensor of shape %v", dims)
		}
		n *= x
	}
	t := hal.ElementType(elementType)
	data := d.cache.alloc(int(n)*t.ByteSize(), uninitialized)
	return newView(dims, t, data), nil
}

// Dim returns dimension i.
func (d *Device) Dim(ref any, i int) (int64, error) {
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
func (d *Device) Shape(ref any) (uint32, []int64, error) {
	b, err := bv(ref)
	if err != nil {
		return 0, nil, err
	}
	return uint32(b.Type), b.Shape, nil
}

// Reshape views the same data with other dimensions.
func (d *Device) Reshape(ref any, dims []int64) (any, error) {
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
	return newView(dims, b.Type, b.Data), nil
}

// Clone copies a buffer view into storage from the cache.
func (d *Device) Clone(ref any) (any, error) {
	b, err := bv(ref)
	if err != nil {
		return nil, err
	}
	data := d.cache.alloc(len(b.Data), true)
	copy(data, b.Data)
	return newView(b.Shape, b.Type, data), nil
}

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

// Load reads one element.
func (d *Device) Load(ref any, t uint8, idx []int64) (vm.Value, error) {
	b, err := bv(ref)
	if err != nil {
		return vm.Value{}, err
	}
	off, err := offset(b, idx)
	if err != nil {
		return vm.Value{}, err
	}
	p := b.Data[off:]
	switch t {
	case module.TypeI1, module.TypeI8:
		return vm.I32(int32(int8(p[0]))), nil
	case module.TypeI16:
		return vm.I32(int32(int16(binary.LittleEndian.Uint16(p)))), nil
	case module.TypeI32:
		return vm.I32(int32(binary.LittleEndian.Uint32(p))), nil
	case module.TypeI64:
		return vm.I64(int64(binary.LittleEndian.Uint64(p))), nil
	case module.TypeF16:
		return vm.Value{Kind: vm.KindF32, F: float64(vm.F16ToF32(binary.LittleEndian.Uint16(p)))}, nil
	case module.TypeBF16:
		return vm.Value{Kind: vm.KindF32, F: float64(vm.BF16ToF32(binary.LittleEndian.Uint16(p)))}, nil
	case module.TypeF32:
		return vm.F32(math.Float32frombits(binary.LittleEndian.Uint32(p))), nil
	case module.TypeF64:
		return vm.F64(math.Float64frombits(binary.LittleEndian.Uint64(p))), nil
	}
	return vm.Value{}, status.Errorf(status.InvalidArgument, "cannot load elements of type %d", t)
}

// Store writes one element.
func (d *Device) Store(ref any, t uint8, idx []int64, v vm.Value) error {
	b, err := bv(ref)
	if err != nil {
		return err
	}
	off, err := offset(b, idx)
	if err != nil {
		return err
	}
	p := b.Data[off:]
	switch t {
	case module.TypeI1:
		p[0] = byte(v.I & 1)
	case module.TypeI8:
		p[0] = byte(v.I)
	case module.TypeI16:
		binary.LittleEndian.PutUint16(p, uint16(v.I))
	case module.TypeI32:
		binary.LittleEndian.PutUint32(p, uint32(v.I))
	case module.TypeI64:
		binary.LittleEndian.PutUint64(p, uint64(v.I))
	case module.TypeF16:
		binary.LittleEndian.PutUint16(p, vm.F32ToF16(float32(v.F)))
	case module.TypeBF16:
		binary.LittleEndian.PutUint16(p, vm.F32ToBF16(float32(v.F)))
	case module.TypeF32:
		binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v.F)))
	case module.TypeF64:
		binary.LittleEndian.PutUint64(p, math.Float64bits(v.F))
	default:
		return status.Errorf(status.InvalidArgument, "cannot store elements of type %d", t)
	}
	return nil
}

// Dispatch runs a kernel; the bindings are buffer views.
func (d *Device) Dispatch(exe any, entry int, grid [3]int64, push []int64, bindings []any) error {
	he, ok := exe.(hal.Executable)
	if !ok || d.disp == nil {
		return status.Errorf(status.Internal, "dispatch of an executable the device did not prepare")
	}
	sp, _ := bufsPool.Get().(*[][]byte)
	if sp == nil {
		sp = new([][]byte)
	}
	bufs := (*sp)[:0]
	defer func() {
		clear(bufs) // the pooled slice keeps no buffer alive
		*sp = bufs
		bufsPool.Put(sp)
	}()
	for i, r := range bindings {
		b, err := bv(r)
		if err != nil {
			return fmt.Errorf("binding %d: %w", i, err)
		}
		bufs = append(bufs, b.Data)
	}
	return d.disp.Dispatch(he, entry, grid, push, bufs)
}

// bufsPool recycles Dispatch's slices of binding storage (a dispatcher
// keeps none after it returns).
var bufsPool sync.Pool

// newView returns a view of data with a copy of shape; up to rank 4 the
// view and its shape are one allocation.
func newView(shape []int64, t hal.ElementType, data []byte) *hal.BufferView {
	if len(shape) == 0 || len(shape) > 4 {
		return &hal.BufferView{Shape: append([]int64(nil), shape...), Type: t, Data: data}
	}
	v := &struct {
		hal.BufferView
		dims [4]int64
	}{}
	n := copy(v.dims[:], shape)
	v.BufferView = hal.BufferView{Shape: v.dims[:n:n], Type: t, Data: data}
	return &v.BufferView
}

// Trace writes the buffer views to standard error under the heading, as
// IREE's dispatch tracing does.
func (d *Device) Trace(heading string, refs []any) {
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s ===\n", heading)
	for _, r := range refs {
		if v, ok := r.(*hal.BufferView); ok {
			b.WriteString(vio.FormatBufferView(v, 1024))
			b.WriteString("\n")
		}
	}
	os.Stderr.WriteString(b.String())
}

// Release caches the storage of buffer views the caller is done with.
func (d *Device) Release(refs, keep []any) { d.cache.release(refs, keep) }

// Recyclable reports whether Release could cache ref's storage.
func (d *Device) Recyclable(ref any) bool { return d.cache.recyclable(ref) }
