package cuda

import (
	"fmt"
	"sync"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/status"
)

// device is a created CUDA device: the retained primary context, a
// worker thread with it current, one non-blocking stream that every
// submission is enqueued on, the allocator, executables and the queue.
type device struct {
	drv     *driver
	cu      *api
	info    hal.DeviceInfo
	h       int32   // CUdevice
	ctx     uintptr // the primary context
	total   uint64  // cuDeviceTotalMem
	opts    options
	limits  limits
	w       *worker
	stream  uintptr
	alloc   *allocator
	q       queueState
	pool    blockPool
	asyncOK bool // stream-ordered allocation is used for QueueAlloca
	// traceEnd is where the last command timed by the device was placed
	// on the host timeline (trace.go; the completer's alone).
	traceEnd time.Time

	objMu sync.Mutex
	exes  map[*executable]bool // live executables; nil once closed

	// The context lives while the device is open or memory allocated
	// from it is: refs counts them.
	lifeMu    sync.Mutex
	refs      int
	closed    bool
	closeOnce sync.Once
	closeErr  error

	// AllocatorOverride wraps alloc (--device_allocator).
	hal.AllocatorOverride
}

var _ hal.Device = (*device)(nil)
var _ hal.QueueAllocator = (*device)(nil)

// limits are the device attributes work is checked against.
type limits struct {
	cc                int // compute capability ×10 (90 for 9.0)
	maxThreadsPerBlk  int
	maxBlock, maxGrid [3]int
	maxShared         int // static shared bytes per block
	memoryPools       bool
}

// readLimits reads the device's limits.
func (d *driver) readLimits(h int32) (limits, error) {
	src := &source{cu: &d.cu, dev: h}
	var l limits
	var major, minor, pools int32
	var err error
	get := func(attr int32) int {
		if err != nil {
			return 0
		}
		var v int32
		v, err = src.attribute(attr)
		return int(v)
	}
	major, minor = int32(get(attrComputeCapabilityMajor)), int32(get(attrComputeCapabilityMinor))
	l.cc = int(major)*10 + int(minor)
	l.maxThreadsPerBlk = get(attrMaxThreadsPerBlock)
	l.maxBlock = [3]int{get(attrMaxBlockDimX), get(attrMaxBlockDimY), get(attrMaxBlockDimZ)}
	l.maxGrid = [3]int{get(attrMaxGridDimX), get(attrMaxGridDimY), get(attrMaxGridDimZ)}
	l.maxShared = get(attrMaxSharedMemoryPerBlock)
	pools = int32(get(attrMemoryPoolsSupported))
	l.memoryPools = pools != 0
	return l, err
}

// arch is the device's architecture name ("sm_90").
func (l limits) arch() string { return fmt.Sprintf("sm_%d", l.cc) }

// open retains the device's primary context and starts its worker and
// stream.
func (d *driver) open(info hal.DeviceInfo) (*device, error) {
	h := handle(info.ID)
	var total, ctx uintptr
	if err := d.cu.check(d.cu.DeviceTotalMem(&total, h), "cuDeviceTotalMem_v2"); err != nil {
		return nil, err
	}
	lim, err := d.readLimits(h)
	if err != nil {
		return nil, err
	}
	if !d.opts.useStreams && (d.cu.StreamBeginCapture == nil || d.cu.StreamEndCapture == nil || d.cu.GraphInstantiate == nil ||
		d.cu.GraphLaunch == nil || d.cu.GraphExecDestroy == nil || d.cu.GraphDestroy == nil) {
		return nil, status.Errorf(status.Unavailable, "--cuda_use_streams=false needs CUDA graphs (cuGraphInstantiateWithFlags, CUDA 11.4), which %s lacks; run with --cuda_use_streams=true (the default)", d.lib.Path)
	}
	if d.execErr != nil {
		return nil, d.execErr
	}
	if err := d.cu.check(d.cu.PrimaryCtxRetain(&ctx, h), "cuDevicePrimaryCtxRetain"); err != nil {
		return nil, err
	}
	v := &device{drv: d, cu: &d.cu, info: info, h: h, ctx: ctx, total: uint64(total), opts: d.opts, limits: lim,
		refs: 1, exes: map[*executable]bool{}}
	v.asyncOK = d.opts.asyncAllocations && lim.memoryPools && d.cu.MemAllocAsync != nil && d.cu.MemFreeAsync != nil && !d.mapDevice
	if v.w, err = startWorker(v.cu, ctx, v.describe()); err != nil {
		d.cu.PrimaryCtxRelease(h)
		return nil, err
	}
	err = v.w.do(func() error {
		return v.cu.check(v.cu.StreamCreate(&v.stream, streamNonBlocking), "cuStreamCreate")
	})
	if err != nil {
		v.w.stop()
		d.cu.PrimaryCtxRelease(h)
		return nil, err
	}
	v.alloc = newAllocator(v)
	if err := v.q.init(v); err != nil {
		v.destroy()
		return nil, err
	}
	return v, nil
}

// describe names the device in errors: "cuda://GPU-… (name, sm_90)".
func (v *device) describe() string {
	return fmt.Sprintf("cuda://%s (%s, %s)", v.info.Path, v.info.Name, v.limits.arch())
}

func (v *device) closedError() error {
	return status.Errorf(status.FailedPrecondition, "%s is closed", v.describe())
}

// ref counts a new user of the context (an allocation); it fails once
// the device is closed.
func (v *device) ref() error {
	v.lifeMu.Lock()
	defer v.lifeMu.Unlock()
	if v.closed {
		return v.closedError()
	}
	v.refs++
	return nil
}

// unref drops a user; the last destroys the stream and releases the
// context, and returns the error of that.
func (v *device) unref() error {
	v.lifeMu.Lock()
	v.refs--
	last := v.refs == 0
	v.lifeMu.Unlock()
	if last {
		return v.destroy()
	}
	return nil
}

// destroy destroys the stream, stops the worker and releases the primary
// context.
func (v *device) destroy() error {
	var err error
	if v.stream != 0 {
		err = v.w.do(func() error {
			v.cu.StreamSynchronize(v.stream)
			v.freePool()
			return v.cu.check(v.cu.StreamDestroy(v.stream), "cuStreamDestroy_v2")
		})
		v.stream = 0
	}
	v.w.stop()
	if rerr := v.cu.check(v.cu.PrimaryCtxRelease(v.h), "cuDevicePrimaryCtxRelease_v2"); err == nil {
		err = rerr
	}
	return err
}

// ID returns "cuda", IREE's device identifier.
func (v *device) ID() string { return Name }

// Info returns the device's DeviceInfo.
func (v *device) Info() hal.DeviceInfo { return v.info }

// TotalMemory returns the device's memory size in bytes.
func (v *device) TotalMemory() uint64 { return v.total }

// Allocator returns the device's allocator.
func (v *device) Allocator() hal.Allocator { return v.Override(v.alloc) }

// Formats lists the executable format the device loads.
func (v *device) Formats() []string { return []string{cudaschema.Format} }

// CreateSemaphore returns a host timeline semaphore: submissions are
// ordered on the host (queue.go), so no CUDA object backs it.
func (v *device) CreateSemaphore(initial uint64) (hal.Semaphore, error) {
	if err := v.q.open(); err != nil {
		return nil, err
	}
	return hal.NewHostSemaphore(initial), nil
}

// Close refuses new work, cancels the work still waiting for semaphores
// (CANCELLED), waits for the work enqueued, and unloads every executable's
// module. The stream and the context are released once the memory
// allocated from the device is freed too (buffers may outlive their
// device). Later calls do nothing.
func (v *device) Close() error {
	v.closeOnce.Do(func() {
		v.CloseOverride()
		v.closeErr = v.q.close()
		v.objMu.Lock()
		exes := v.exes
		v.exes = nil
		v.objMu.Unlock()
		for e := range exes {
			e.deviceClosed()
		}
		v.lifeMu.Lock()
		v.closed = true
		v.lifeMu.Unlock()
		if err := v.unref(); v.closeErr == nil {
			v.closeErr = err
		}
	})
	return v.closeErr
}
