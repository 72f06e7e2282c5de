package local

import (
	"runtime"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// defaultDevice is the one device a local driver has.
var defaultDevice = hal.DeviceInfo{ID: 0, Path: "", Name: "default"}

// Driver is a local CPU driver; name is "local-sync" or "local-task".
type Driver struct {
	name    string
	workers int
}

var _ hal.Driver = (*Driver)(nil)

// NewDriver returns the local driver called name.
// workers is how many goroutines run the workgroups of a dispatch; 1 or
// less runs them inline in the caller (local-sync).
func NewDriver(name string, workers int) *Driver { return &Driver{name: name, workers: workers} }

// Name returns the driver name.
func (d *Driver) Name() string { return d.name }

// QueryAvailableDevices returns the host CPU as the single device "default".
func (d *Driver) QueryAvailableDevices() ([]hal.DeviceInfo, error) {
	return []hal.DeviceInfo{defaultDevice}, nil
}

// DumpDeviceInfo has nothing to add for the host CPU, as in IREE.
func (d *Driver) DumpDeviceInfo(id hal.DeviceID) (string, error) {
	if _, err := hal.FindDevice(d.name, []hal.DeviceInfo{defaultDevice}, id); err != nil {
		return "", err
	}
	return "", nil
}

// CreateDevice creates the CPU device; its only id is 0.
func (d *Driver) CreateDevice(id hal.DeviceID, params map[string]string) (hal.Device, error) {
	if _, err := hal.FindDevice(d.name, []hal.DeviceInfo{defaultDevice}, id); err != nil {
		return nil, err
	}
	return newDevice(d.name, d.workers), nil
}

// CreateDeviceByPath creates the CPU device; local devices take no path.
func (d *Driver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	if path != "" {
		return nil, status.Errorf(status.NotFound, "device paths not yet implemented: '%s://%s' names a path, but the %s driver has one device; use '%s' or '%s://'", d.name, path, d.name, d.name, d.name)
	}
	return newDevice(d.name, d.workers), nil
}

// Close releases nothing: the driver holds no resources.
func (d *Driver) Close() error { return nil }

// Device is the host CPU: a heap allocator, the CPU executable loaders,
// and a queue that runs work on the caller when it is ready, or on a
// goroutine of its own once its semaphores are reached.
type Device struct {
	driver    string
	workers   int
	cleanup   runtime.Cleanup
	pools     *poolRef
	allocator *hal.HeapAllocator
	q         *queue
	prof      profiling
	// AllocatorOverride replaces the heap allocator (--device_allocator).
	hal.AllocatorOverride
}

// poolRef holds a device's worker pool, started by its first dispatch
// that has work for more than one worker.
type poolRef struct {
	mu     sync.Mutex
	pool   *pool
	closed bool
}

// stop ends the pool's helpers; later dispatches fail.
func (r *poolRef) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.pool != nil {
		r.pool.stop()
		r.pool = nil
	}
}

func newDevice(driver string, workers int) *Device {
	d := &Device{driver: driver, workers: workers, pools: &poolRef{}, allocator: hal.NewHeapAllocator(), q: newQueue()}
	// A device nobody closes stops its helpers when it becomes unreachable.
	d.cleanup = runtime.AddCleanup(d, func(r *poolRef) { r.stop() }, d.pools)
	return d
}

// workerPool returns the device's pool, starting it on first use; nil
// when the device runs everything inline (local-sync).
func (d *Device) workerPool() (*pool, error) {
	if d.workers <= 1 {
		return nil, nil
	}
	r := d.pools
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, status.Errorf(status.FailedPrecondition, "the %s device is closed", d.driver)
	}
	if r.pool == nil {
		r.pool = newPool(d.workers-1, defaultSpin, defaultWarmSpin)
	}
	return r.pool, nil
}

var _ hal.Device = (*Device)(nil)

var _ hal.Warmer = (*Device)(nil)

// Warm keeps the local-task workers polling for dispatches until done is
// called (see pool.warm); local-sync has none.
func (d *Device) Warm() (done func()) {
	p, err := d.workerPool()
	if err != nil || p == nil {
		return func() {}
	}
	return p.warm()
}

// ID returns the driver name, as IREE's device identifier.
func (d *Device) ID() string { return d.driver }

// Info returns the device's DeviceInfo.
func (d *Device) Info() hal.DeviceInfo { return defaultDevice }

// Allocator returns the device's heap allocator (or the allocator that
// replaced it: see hal.AllocatorReplacer).
func (d *Device) Allocator() hal.Allocator { return d.Override(d.allocator) }

// UsesHostMemory reports true: the device's commands run on the host and
// use any host buffer (hal.Usable).
func (d *Device) UsesHostMemory() bool { return true }

// Close fails the queue work still waiting for semaphores (CANCELLED),
// waits for the work running, and stops the device's workers.
func (d *Device) Close() error {
	d.CloseOverride()
	d.q.close()
	d.cleanup.Stop()
	d.pools.stop()
	return nil
}
