package halmodule

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// Device implements vm.Device on a HAL device. A host program's tensors
// are buffer views over the device's buffers; its dispatches, fills and
// copies are recorded into a command buffer that is submitted to the
// device's queue when the host needs a result (a scalar load or store, a
// call into a native module, the function's return), and each submission
// waits for the one before it on a timeline semaphore.
//
// Calls running at once on one context do not share that queue: each
// call records on a recorder of its own (Scope), so that one call's
// dispatches never land in another's command buffer and each call's
// Sync waits for its own work only. A call begins after the work of
// registration and of earlier calls that ended without waiting for theirs
// (coarse-fences calls), as when everything went through one queue.
type Device struct {
	// recorder is the base: the operations made outside calls.
	*recorder
	dev   hal.Device
	cache *cache
	// devs is the device list (dev is devs[0]): a module that places work
	// on several devices resolves its device i to devs[i] (see DeviceAt).
	devs []hal.Device

	mu   sync.Mutex
	sink TraceSink
	// free holds the recorders of finished calls for the next ones.
	free []*recorder
	// unfinished lists the last timepoints of calls that ended before
	// their work completed; every call begun later waits for them.
	// nUnfinished is its length, read without mu on each call's start.
	unfinished  hal.SemaphoreList
	nUnfinished atomic.Int32
	// baseDirty is set when the base recorded work that calls begun
	// later must follow.
	baseDirty atomic.Bool
}

var (
	_ vm.Device      = (*Device)(nil)
	_ vm.AsyncDevice = (*Device)(nil)
	_ vm.Holder      = (*Device)(nil)
	_ vm.Adopter     = (*Device)(nil)
	_ vm.Scoper      = (*Device)(nil)
)

// bufferParams are the parameters of the buffers host programs allocate:
// device-local memory for transfers and dispatches (mappable where the
// device's memory is host memory).
var bufferParams = hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}

// maxFreeRecorders bounds the recorders kept for reuse (one per call
// running at once is all that is ever needed).
const maxFreeRecorders = 64

// New returns the bridge for dev.
func New(dev hal.Device) *Device { return NewWithDevices([]hal.Device{dev}) }

// NewWithDevices returns the bridge for a device list (IREE's HAL module
// created with several devices): host programs run on devs[0], and
// device ordinal i resolves to devs[i]. devs must not be empty.
func NewWithDevices(devs []hal.Device) *Device {
	dev := devs[0]
	d := &Device{dev: dev, devs: append([]hal.Device(nil), devs...)}
	d.recorder = &recorder{d: d, base: true}
	d.cache = newCache(func(n int64) (*hal.Buffer, error) {
		return dev.Allocator().Allocate(bufferParams, n)
	}, d.recorder)
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

// Scope returns the recorder of one call (see vm.Scoper): its work waits
// for the base's and for the unfinished work of calls that ended before
// it began. end submits what the call left pending (a call that failed
// before its last Sync) and keeps the recorder for the next call.
func (d *Device) Scope() (vm.Device, func()) {
	d.mu.Lock()
	if d.baseDirty.Load() {
		d.baseDirty.Store(false)
		if _, err := d.recorder.Submit(nil); err == nil {
			if sem, v, done := d.recorder.finished(); !done {
				d.unfinished = append(d.unfinished, hal.Timepoint{Semaphore: sem, Value: v})
				d.nUnfinished.Store(int32(len(d.unfinished)))
			}
		}
	}
	var r *recorder
	if n := len(d.free); n > 0 {
		r = d.free[n-1]
		d.free[n-1] = nil
		d.free = d.free[:n-1]
	} else {
		r = &recorder{d: d}
	}
	if d.nUnfinished.Load() > 0 {
		d.pruneUnfinished()
		r.wait = append(r.wait, d.unfinished...)
	}
	d.mu.Unlock()
	return r, func() { d.endScope(r) }
}

// endScope ends the call that used r.
func (d *Device) endScope(r *recorder) {
	r.Submit(nil) // what a failed call left pending; its error was the call's
	if sem, v, done := r.finished(); !done {
		d.addUnfinished(sem, v)
	}
	d.mu.Lock()
	if len(d.free) < maxFreeRecorders {
		d.free = append(d.free, r)
	}
	d.mu.Unlock()
}

// addUnfinished adds a timepoint later calls wait for.
func (d *Device) addUnfinished(sem hal.Semaphore, v uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pruneUnfinished()
	for i, tp := range d.unfinished {
		if tp.Semaphore == sem {
			d.unfinished[i].Value = max(tp.Value, v)
			return
		}
	}
	d.unfinished = append(d.unfinished, hal.Timepoint{Semaphore: sem, Value: v})
	d.nUnfinished.Store(int32(len(d.unfinished)))
}

// pruneUnfinished drops the timepoints reached (or failed: nothing of
// that work runs any more). Called with mu held.
func (d *Device) pruneUnfinished() {
	keep := d.unfinished[:0]
	for _, tp := range d.unfinished {
		if v, err := tp.Semaphore.Query(); err == nil && v < tp.Value {
			keep = append(keep, tp)
		}
	}
	clear(d.unfinished[len(keep):])
	d.unfinished = keep
	d.nUnfinished.Store(int32(len(keep)))
}

// Sync submits the base's pending commands and waits for them and for
// the unfinished work of calls that have ended (vm.Context.Close waits so
// before it frees what that work uses). The error is the first failure.
func (d *Device) Sync() error {
	err := d.recorder.Sync()
	d.mu.Lock()
	tps := append(hal.SemaphoreList(nil), d.unfinished...)
	d.mu.Unlock()
	for _, tp := range tps {
		if werr := tp.Semaphore.Wait(tp.Value, hal.NoDeadline); werr != nil && err == nil {
			err = werr
		}
	}
	d.mu.Lock()
	d.pruneUnfinished()
	d.mu.Unlock()
	return err
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

// DeviceView returns v itself when the device can use its buffer, else a
// copy of it in a new buffer of the device's memory (written now; the
// recorder's Adopt does the same for arguments, after its recorded work). Tools
// place their parsed inputs with it once, as IREE's tools allocate inputs
// on the device, instead of each call copying host memory to a GPU.
func (d *Device) DeviceView(v *hal.BufferView) (*hal.BufferView, error) {
	if v.Buffer == nil || hal.Usable(d.dev, v.Buffer) {
		return v, nil
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
	if err := hal.WriteBuffer(d.dev, b, 0, data); err != nil {
		b.Release()
		return nil, err
	}
	return newView(v.Shape, v.Type, b), nil
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
