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

// Device implements vm.Device on a HAL device. A host program's tensors
// are buffer views over the device's buffers; its dispatches, fills and
// copies are recorded into a command buffer that is submitted to the
// device's queue when the host needs a result (a scalar load or store, a
// call into a native module, the function's return), and each submission
// waits for the one before it on the bridge's timeline semaphore.
type Device struct {
	dev   hal.Device
	cache *cache

	mu       sync.Mutex
	cb       *hal.CommandBuffer // pending commands, nil when none
	timeline hal.Semaphore
	value    uint64 // the timeline value the last submission signals
	// wait is what the next submission waits for besides the timeline
	// (the wait fence of a coarse-fences call).
	wait hal.SemaphoreList
	sink TraceSink
}

var _ vm.Device = (*Device)(nil)

// bufferParams are the parameters of the buffers host programs allocate:
// device-local memory for transfers and dispatches (mappable where the
// device's memory is host memory).
var bufferParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}

// New returns the bridge for dev.
func New(dev hal.Device) *Device {
	d := &Device{dev: dev}
	d.cache = newCache(func(n int64) (*hal.Buffer, error) {
		return dev.Allocator().Allocate(bufferParams, n)
	}, d.recordFill)
	return d
}

// Warm marks an invocation in progress until done is called: the
// device's workers stay ready for dispatches (see hal.Warmer) and the
// buffer cache numbers the invocation's allocations (see
// cache.invocations).
func (d *Device) Warm() (done func()) {
	end := d.cache.invocations()
	if w, ok := d.dev.(hal.Warmer); ok {
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

// record runs rec on the pending command buffer, beginning one if none is
// pending.
func (d *Device) record(rec func(cb *hal.CommandBuffer) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cb == nil {
		cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot|hal.CommandBufferAllowInlineExecution, hal.CommandCategoryAny, 0)
		if err != nil {
			return err
		}
		if err := cb.Begin(); err != nil {
			return err
		}
		d.cb = cb
	}
	return rec(d.cb)
}

// recordFill records a fill of b with pattern (the cache's zeroing and
// poisoning); a failure to record surfaces at the next submission.
func (d *Device) recordFill(b *hal.Buffer, pattern byte) {
	d.record(func(cb *hal.CommandBuffer) error { return cb.Fill(hal.WholeBuffer(b), []byte{pattern}) })
}

// Submit submits the pending commands, if any, signaling signal too, and
// returns the timeline value that marks their completion.
func (d *Device) Submit(signal hal.SemaphoreList) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timeline != nil {
		// A failure of earlier work was reported to whoever waited for it
		// (a Sync, or a coarse-fences call's signal fence): later work
		// starts on a new timeline.
		if _, err := d.timeline.Query(); err != nil {
			d.timeline = nil
		}
	}
	if d.timeline == nil {
		sem, err := d.dev.CreateSemaphore(0)
		if err != nil {
			return 0, err
		}
		d.timeline, d.value = sem, 0
	}
	if d.cb == nil && len(signal) == 0 && len(d.wait) == 0 {
		return d.value, nil
	}
	cb := d.cb
	d.cb = nil
	if cb != nil {
		defer cb.Release()
		if err := cb.End(); err != nil {
			return 0, err
		}
	}
	wait := append(hal.SemaphoreList{{Semaphore: d.timeline, Value: d.value}}, d.wait...)
	next := append(hal.SemaphoreList{{Semaphore: d.timeline, Value: d.value + 1}}, signal...)
	if err := d.dev.QueueExecute(wait, next, cb, nil); err != nil {
		return 0, err
	}
	d.wait = nil
	d.value++
	return d.value, nil
}

var _ vm.AsyncDevice = (*Device)(nil)

// fenceOf returns the fence a coarse-fences argument holds (nil for null).
func fenceOf(ref any) (*hal.Fence, error) {
	switch f := ref.(type) {
	case nil:
		return nil, nil
	case *hal.Fence:
		return f, nil
	}
	return nil, status.Errorf(status.InvalidArgument, "expected a fence, got %T", ref)
}

// WaitFor makes the work recorded next wait for fence (a coarse-fences
// call's wait fence): it joins the next submission's wait list.
func (d *Device) WaitFor(fence any) error {
	f, err := fenceOf(fence)
	if err != nil || f == nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wait = append(d.wait, f.Timepoints()...)
	return nil
}

// SignalWhenDone submits the pending work (and any wait) so that fence is
// signaled when it completes; it does not wait.
func (d *Device) SignalWhenDone(fence any) error {
	f, err := fenceOf(fence)
	if err != nil {
		return err
	}
	_, err = d.Submit(f.Timepoints())
	return err
}

// Fail fails fence with err (the call failed before its work was
// submitted).
func (d *Device) Fail(fence any, err error) {
	if f, _ := fenceOf(fence); f != nil {
		f.Fail(err)
	}
}

// Sync submits the pending commands and waits for them. A failure of the
// device's work is returned once; the bridge then starts a new timeline.
func (d *Device) Sync() error {
	v, err := d.Submit(nil)
	if err != nil {
		return err
	}
	d.mu.Lock()
	sem := d.timeline
	d.mu.Unlock()
	if err := sem.Wait(v, hal.NoDeadline); err != nil {
		d.mu.Lock()
		if d.timeline == sem {
			d.timeline = nil
		}
		d.mu.Unlock()
		return err
	}
	return nil
}

// PrepareExecutable loads a module executable on the device.
func (d *Device) PrepareExecutable(e *module.Executable) (any, error) {
	return d.dev.PrepareExecutable(e.Format, e.Data)
}

// constantParams are the parameters of module constants: read-only
// device memory, imported from the module's bytes where the device can use
// host memory.
var constantParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageSharingImmutable, Access: hal.MemoryAccessRead}

// Constant returns a buffer view of a module constant (shared, never
// written: host programs clone before storing), imported without a copy
// where the device can use host memory, else uploaded once here.
func (d *Device) Constant(c *module.Constant) (any, error) {
	t := hal.ElementType(c.ElementType)
	a := d.dev.Allocator()
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
		if err := hal.WriteBuffer(d.dev, b, 0, c.Data); err != nil {
			return nil, err
		}
	}
	return newView(c.Shape, t, b), nil
}

// Alloc returns a buffer view, zeroed unless uninitialized is set.
func (d *Device) Alloc(elementType uint32, dims []int64, uninitialized bool) (any, error) {
	t := hal.ElementType(elementType)
	n, err := hal.DenseByteSize(dims, t)
	if err != nil {
		return nil, err
	}
	b, err := d.cache.get(n, uninitialized)
	if err != nil {
		return nil, err
	}
	return newView(dims, t, b), nil
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

// Reshape views the same buffer with other dimensions.
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
	return newView(dims, b.Type, b.Buffer), nil
}

// Clone copies a buffer view into a buffer from the cache (a queue copy).
func (d *Device) Clone(ref any) (any, error) {
	b, err := bv(ref)
	if err != nil {
		return nil, err
	}
	n := b.ByteLength()
	nb, err := d.cache.get(n, true)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		err = d.record(func(cb *hal.CommandBuffer) error {
			return cb.Copy(hal.BufferRef{Buffer: b.Buffer, Length: n}, hal.BufferRef{Buffer: nb, Length: n})
		})
		if err != nil {
			return nil, err
		}
	}
	return newView(b.Shape, b.Type, nb), nil
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

// Load reads one element once the work writing it is done.
func (d *Device) Load(ref any, t uint8, idx []int64) (vm.Value, error) {
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
	if err := d.Sync(); err != nil {
		return vm.Value{}, err
	}
	var p [8]byte
	if err := hal.ReadBufferInto(d.dev, b.Buffer, off, p[:size]); err != nil {
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
func (d *Device) Store(ref any, t uint8, idx []int64, v vm.Value) error {
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
	if err := d.Sync(); err != nil {
		return err
	}
	return hal.WriteBuffer(d.dev, b.Buffer, off, p[:size])
}

// Dispatch records a kernel dispatch; the bindings are buffer views.
func (d *Device) Dispatch(exe any, entry int, grid [3]int64, push []int64, bindings []any) error {
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
	for i, r := range bindings {
		b, err := bv(r)
		if err != nil {
			return fmt.Errorf("binding %d: %w", i, err)
		}
		if !hal.Usable(d.dev, b.Buffer) {
			// A buffer the device cannot use (host memory reaching a GPU
			// through a list or a global): a copy in its memory.
			a, err := d.Adopt(b)
			if err != nil {
				return fmt.Errorf("binding %d: %w", i, err)
			}
			b = a.(*hal.BufferView)
		}
		refs = append(refs, hal.BufferRef{Buffer: b.Buffer, Length: b.ByteLength()})
	}
	return d.record(func(cb *hal.CommandBuffer) error { return cb.Dispatch(he, entry, grid, push, refs) })
}

var _ vm.Adopter = (*Device)(nil)

// Adopt returns a buffer view the device can use for ref: ref itself, or
// for a buffer of other memory (host buffers passed to a GPU) a copy in a
// new buffer of the device's, written once the work before it is done.
func (d *Device) Adopt(ref any) (any, error) {
	v, ok := ref.(*hal.BufferView)
	if !ok || v.Buffer == nil || hal.Usable(d.dev, v.Buffer) {
		return ref, nil
	}
	n := v.ByteLength()
	data, err := hal.ReadBuffer(nil, v.Buffer, 0, n)
	if err != nil {
		return nil, fmt.Errorf("reading a %s to copy it into %s memory: %w", v.Buffer, d.dev.Info().Name, err)
	}
	b, err := d.dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, n)
	if err != nil {
		return nil, err
	}
	if err := d.Sync(); err != nil {
		b.Release()
		return nil, err
	}
	if err := hal.WriteBuffer(d.dev, b, 0, data); err != nil {
		b.Release()
		return nil, err
	}
	return newView(v.Shape, v.Type, b), nil
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

// TraceSink receives the tensors a program traces (flow.tensor.trace, and
// dispatch tracing) under their key, once the work writing them is done.
// An error fails the call.
type TraceSink func(key string, views []*hal.BufferView) error

// SetTraceSink replaces the default sink, which prints the tensors to
// standard error as IREE's tools do; nil restores it.
func (d *Device) SetTraceSink(sink TraceSink) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sink = sink
}

// Trace hands the buffer views to the trace sink.
func (d *Device) Trace(key string, refs []any) error {
	if err := d.Sync(); err != nil {
		return err
	}
	var views []*hal.BufferView
	for _, r := range refs {
		if v, ok := r.(*hal.BufferView); ok {
			views = append(views, v)
		}
	}
	d.mu.Lock()
	sink := d.sink
	d.mu.Unlock()
	if sink != nil {
		return sink(key, views)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s ===\n", key)
	for _, v := range views {
		if hv, err := d.HostView(v); err != nil {
			fmt.Fprintf(&b, "(unreadable: %v)\n", err)
		} else {
			b.WriteString(vio.FormatBufferView(hv, 1024))
			b.WriteString("\n")
		}
	}
	os.Stderr.WriteString(b.String())
	return nil
}

// HostView returns v itself when the host can read its buffer, else a copy
// of it in host memory (read through the device's queue).
func (d *Device) HostView(v *hal.BufferView) (*hal.BufferView, error) {
	if v.Bytes() != nil {
		return v, nil
	}
	data, err := hal.ReadBuffer(d.dev, v.Buffer, 0, v.ByteLength())
	if err != nil {
		return nil, err
	}
	return hal.HostBufferViewOf(v.Shape, v.Type, data)
}

var _ vm.Holder = (*Device)(nil)

// Hold adds a reference to the buffer of a buffer view a global keeps.
func (d *Device) Hold(ref any) {
	if v, ok := ref.(*hal.BufferView); ok && v.Buffer != nil {
		v.Buffer.Retain()
	}
}

// Drop drops the reference Hold added.
func (d *Device) Drop(ref any) {
	if v, ok := ref.(*hal.BufferView); ok && v.Buffer != nil {
		v.Buffer.Release()
	}
}

// Close gives back what the bridge keeps for reuse (the cached
// allocations; buffers handed out keep theirs until released). The bridge
// keeps working afterwards, caching nothing; vm.Context.Close calls it
// after waiting for the context's work.
func (d *Device) Close() error {
	d.cache.close()
	return nil
}

// Disown gives the caller the buffers of refs for good (except those a
// view in keep uses): the bridge drops the reference its allocation
// handed out, so that a caller holding references of its own (a C result
// list) frees them when it releases those. The caller promises not to pass
// refs to Release afterwards.
func (d *Device) Disown(refs, keep []any) { d.cache.disown(refs, keep) }

// Release recycles the allocations of buffer views the caller is done
// with.
func (d *Device) Release(refs, keep []any) { d.cache.release(refs, keep) }

// Recyclable reports whether Release could recycle ref's allocation.
func (d *Device) Recyclable(ref any) bool { return d.cache.recyclable(ref) }
