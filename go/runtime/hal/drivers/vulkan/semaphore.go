package vulkan

import (
	"runtime"
	"sync"
	"time"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// semaphoreTypeTimeline is VK_SEMAPHORE_TYPE_TIMELINE.
const semaphoreTypeTimeline = 1

// timeline is a hal.Semaphore over a native timeline VkSemaphore.
//
// The GPU side is native: submissions wait for and signal the VkSemaphore
// itself, so work chained through semaphores on one device never goes
// through the host, and the host signals with vkSignalSemaphore. What the
// host sees (Query, Wait) is a host mirror, raised when the queue has
// completed a signaling submission and checked its outcome (the status
// buffers of its dispatches): a host waiter never sees a value whose work
// then turns out to have failed. The mirror also keeps the failure state
// Vulkan semaphores lack; a failure wakes every waiter at once.
//
// A submission may wait on the GPU for a value some queued submission (or
// the host) will signal: it is then "covered". Work whose waits are not
// covered yet is held back on the host (queue.go), since a VkQueue stalls
// behind a batch whose wait nothing has been submitted to signal.
type timeline struct {
	d      *device
	mirror *hal.HostSemaphore

	mu       sync.Mutex
	handle   uint64        // the VkSemaphore; 0 once the device is closed
	queued   uint64        // the highest value submitted work or the host will signal
	pending  int           // signal operations submitted and not completed
	deferred uint64        // a host signal waiting for pending to reach 0
	changed  chan struct{} // closed (and replaced) when queued rises or on failure
}

var _ hal.Semaphore = (*timeline)(nil)

// CreateSemaphore returns a native timeline semaphore, or a host
// semaphore on devices without timeline semaphores (their submissions
// then wait and signal on the host).
func (v *device) CreateSemaphore(initial uint64) (hal.Semaphore, error) {
	if err := v.q.open(); err != nil {
		return nil, err
	}
	if !v.features.timelineSemaphore {
		return hal.NewHostSemaphore(initial), nil
	}
	// Each live VkSemaphore holds the VkDevice.
	if err := v.ref(); err != nil {
		return nil, err
	}
	var m cmem
	defer m.free()
	typ := &semaphoreTypeCreateInfo{sType: sTypeSemaphoreTypeCreateInfo, semaphoreType: semaphoreTypeTimeline, initialValue: initial}
	info := &semaphoreCreateInfo{sType: sTypeSemaphoreCreateInfo, pNext: m.pin(unsafe.Pointer(typ))}
	var handle uint64
	if err := check(v.vk.CreateSemaphore(v.handle, info, nil, &handle), "vkCreateSemaphore"); err != nil {
		v.unref()
		return nil, err
	}
	t := &timeline{d: v, mirror: hal.NewHostSemaphore(initial), handle: handle, queued: initial, changed: make(chan struct{})}
	v.objMu.Lock()
	if v.timelines == nil {
		v.objMu.Unlock()
		v.vk.DestroySemaphore(v.handle, handle, nil)
		v.unref()
		return nil, status.Errorf(status.FailedPrecondition, "%s is closed", v.describe())
	}
	v.timelines[handle] = weak.Make(t)
	v.objMu.Unlock()
	// A semaphore nobody references is destroyed (submissions reference
	// the semaphores they wait on and signal until they complete).
	runtime.AddCleanup(t, func(h uint64) { v.dropTimeline(h) }, handle)
	return t, nil
}

// dropTimeline destroys a semaphore that became unreachable, unless Close
// destroyed it already.
func (v *device) dropTimeline(h uint64) {
	v.objMu.Lock()
	_, ok := v.timelines[h]
	delete(v.timelines, h)
	v.objMu.Unlock()
	if ok {
		v.vk.DestroySemaphore(v.handle, h, nil)
		v.unref()
	}
}

// Query returns the value the host has seen reached, or the failure.
func (t *timeline) Query() (uint64, error) { return t.mirror.Query() }

// Wait waits for the host's view to reach v, a failure, or the deadline.
func (t *timeline) Wait(v uint64, deadline time.Time) error { return t.mirror.Wait(v, deadline) }

// Signal raises the value to v from the host: the mirror at once, the
// VkSemaphore now or, while submitted signals of it are pending (which
// vkSignalSemaphore must not overtake), once they complete.
func (t *timeline) Signal(v uint64) error {
	if err := t.mirror.Signal(v); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.raiseQueuedLocked(v)
	if t.handle == 0 {
		return nil
	}
	if t.pending > 0 {
		t.deferred = max(t.deferred, v)
		return nil
	}
	return t.signalNativeLocked(v)
}

// signalNativeLocked signals the VkSemaphore to v unless it is there.
func (t *timeline) signalNativeLocked(v uint64) error {
	d := t.d
	var cur uint64
	if err := check(d.vk.GetSemaphoreCounterValue(d.handle, t.handle, &cur), "vkGetSemaphoreCounterValue"); err != nil {
		return err
	}
	if cur >= v {
		return nil
	}
	info := &semaphoreSignalInfo{sType: sTypeSemaphoreSignalInfo, semaphore: t.handle, value: v}
	return check(d.vk.SignalSemaphore(d.handle, info), "vkSignalSemaphore")
}

// Fail fails the semaphore: every wait, past and future, returns err.
func (t *timeline) Fail(err error) {
	t.mirror.Fail(err)
	t.mu.Lock()
	t.notifyLocked()
	t.mu.Unlock()
}

func (t *timeline) raiseQueuedLocked(v uint64) {
	if v > t.queued {
		t.queued = v
		t.notifyLocked()
	}
}

func (t *timeline) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// nativeOn returns the VkSemaphore when t is a live semaphore of d.
func (t *timeline) nativeOn(d *device) (uint64, bool) {
	if t.d != d {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.handle, t.handle != 0
}

// covered reports whether a GPU wait for v may be submitted now (queued
// work or the host will signal v), the failure, and the channel the next
// change closes.
func (t *timeline) covered(v uint64) (bool, error, <-chan struct{}) {
	if _, err := t.mirror.Query(); err != nil {
		return false, err, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.queued >= v || t.handle == 0, nil, t.changed
}

// submitted records a submitted signal of v.
func (t *timeline) submitted(v uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending++
	t.raiseQueuedLocked(v)
}

// completed records the completion of a submitted signal of v: the mirror
// reaches v, or fails with err. A deferred host signal is applied once no
// signal is pending. The submission's fence has signaled; the semaphore
// signal of the same batch may land a moment later (lavapipe), so it is
// waited for first: later host signals must not overtake it.
func (t *timeline) completed(v uint64, err error) {
	if werr := t.awaitNative(v); werr != nil && err == nil {
		err = werr
	}
	t.mu.Lock()
	t.pending--
	if t.pending == 0 && t.deferred != 0 && t.handle != 0 {
		if serr := t.signalNativeLocked(t.deferred); serr != nil && err == nil {
			err = serr
		}
		t.deferred = 0
	}
	t.mu.Unlock()
	if err != nil {
		t.Fail(err)
		return
	}
	if cur, qerr := t.mirror.Query(); qerr == nil && cur < v {
		t.mirror.Signal(v)
	}
}

// awaitNative waits for the VkSemaphore to reach v (a signal already
// executed or about to be).
func (t *timeline) awaitNative(v uint64) error {
	t.mu.Lock()
	h := t.handle
	t.mu.Unlock()
	if h == 0 {
		return nil
	}
	d := t.d
	var m cmem
	defer m.free()
	sems, values := []uint64{h}, []uint64{v}
	info := &semaphoreWaitInfo{sType: sTypeSemaphoreWaitInfo, semaphoreCount: 1, pSemaphores: pinned(&m, sems), pValues: pinned(&m, values)}
	r := d.vk.WaitSemaphores(d.handle, info, uint64(10*time.Second))
	if r == vkTimeout {
		return status.Errorf(status.Internal, "the device signaled a submission's fence but not, within 10 s, its semaphore signal of value %d", v)
	}
	return check(r, "vkWaitSemaphores")
}

// detach turns t into a host semaphore: its device is closing and
// destroys the VkSemaphore.
func (t *timeline) detach() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.handle = 0
	t.notifyLocked()
}
