package vulkan

import (
	"sync"
	"time"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// The queue. QueueExecute checks and resolves a command buffer at once
// (errors in the request are returned), then submits it to the VkQueue
// as soon as every wait may be left to the GPU: a native timeline of this
// device whose value queued work (or the host) will signal ("covered"),
// or any other semaphore whose value is reached. Until then a goroutine
// holds it back (a VkQueue would stall behind a batch waiting for a
// signal nothing has submitted, blocking independent work). Native waits
// and signals go in the VkSubmitInfo; a fence marks completion. One
// goroutine, the completer, takes the submissions in submission order,
// waits for each fence, reads the status words of its dispatches, frees
// what the submission held, and signals the signal list (native
// semaphores: their host mirror; others: from the host) or fails it with
// the error (of the work, or of a waited semaphore that failed).

// queueState is a device's queue.
type queueState struct {
	d       *device
	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	running sync.WaitGroup // QueueExecute and QueueHostCall calls, and their goroutines

	// The completer's FIFO of submitted work.
	cond     *sync.Cond
	fifo     []*submission
	stopping bool
	done     chan struct{}
}

func (q *queueState) init(d *device) {
	q.d = d
	q.closing = make(chan struct{})
	q.cond = sync.NewCond(&q.mu)
	q.done = make(chan struct{})
	go q.complete()
}

// open returns an error once the device is closed.
func (q *queueState) open() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return status.Errorf(status.FailedPrecondition, "%s is closed", q.d.describe())
	}
	return nil
}

// begin counts a queue call; it fails once the device is closed.
func (q *queueState) begin() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return status.Errorf(status.FailedPrecondition, "%s is closed", q.d.describe())
	}
	q.running.Add(1)
	return nil
}

// QueueExecute executes cb with bindings as its binding table once the
// wait list is reached, then signals the signal list.
func (v *device) QueueExecute(wait, signal hal.SemaphoreList, cb *hal.CommandBuffer, bindings []hal.BufferRef) error {
	if err := v.q.begin(); err != nil {
		return err
	}
	defer v.q.running.Done()
	s, err := v.newSubmission(wait, signal, cb, bindings)
	if err != nil {
		return err
	}
	v.q.schedule(s)
	return nil
}

// schedule submits s now, or once its waits are covered.
func (q *queueState) schedule(s *submission) {
	ready, err := s.waitsCovered()
	if err != nil {
		s.fail(err)
		return
	}
	if ready {
		if err := q.submit(s); err != nil {
			s.fail(err)
		}
		return
	}
	q.running.Add(1)
	go func() {
		defer q.running.Done()
		if err := s.awaitWaits(q.closing); err != nil {
			s.fail(err)
			return
		}
		if err := q.submit(s); err != nil {
			s.fail(err)
		}
	}()
}

// waitsCovered reports whether every wait of s may go to the GPU now, or
// the failure of one.
func (s *submission) waitsCovered() (bool, error) {
	ready := true
	for _, p := range s.wait {
		if t, ok := p.Semaphore.(*timeline); ok {
			if _, native := t.nativeOn(s.d); native {
				ok, err, _ := t.covered(p.Value)
				if err != nil {
					return false, err
				}
				ready = ready && ok
				continue
			}
		}
		v, err := p.Semaphore.Query()
		if err != nil {
			return false, err
		}
		ready = ready && v >= p.Value
	}
	return ready, nil
}

// awaitWaits blocks until every wait of s is covered (native) or reached
// (others), a failure, or cancel (CANCELLED).
func (s *submission) awaitWaits(cancel <-chan struct{}) error {
	for _, p := range s.wait {
		if t, ok := p.Semaphore.(*timeline); ok {
			if _, native := t.nativeOn(s.d); native {
				for {
					ok, err, changed := t.covered(p.Value)
					if err != nil {
						return err
					}
					if ok {
						break
					}
					select {
					case <-changed:
					case <-cancel:
						return cancelled()
					}
				}
				continue
			}
		}
		if err := hostWaits(hal.SemaphoreList{p}).WaitCancel(hal.NoDeadline, cancel); err != nil {
			return err
		}
	}
	return nil
}

// hostWaits returns l with every timeline (of any Vulkan device) replaced
// by its host mirror, which hal waits on without polling.
func hostWaits(l hal.SemaphoreList) hal.SemaphoreList {
	out := make(hal.SemaphoreList, len(l))
	for i, p := range l {
		if t, ok := p.Semaphore.(*timeline); ok {
			p.Semaphore = t.mirror
		}
		out[i] = p
	}
	return out
}

func cancelled() error {
	return status.New(status.Cancelled, "the wait was cancelled: the device was closed")
}

// Pipeline stages and accesses the submissions use.
const (
	stageTransfer       = 0x1000
	stageCompute        = 0x800
	stageHost           = 0x4000
	stageAllCommands    = 0x10000
	accessShaderRead    = 0x20
	accessShaderWrite   = 0x40
	accessTransferRead  = 0x800
	accessTransferWrite = 0x1000
	accessHostRead      = 0x2000
)

// submit records s and submits it to the VkQueue, then hands it to the
// completer.
func (q *queueState) submit(s *submission) error {
	d := q.d
	if err := s.stage(); err != nil {
		return err
	}
	var m cmem
	defer m.free()
	var waitSems, waitValues, signalSems, signalValues []uint64
	var waitStages []uint32
	for _, p := range s.wait {
		if t, ok := p.Semaphore.(*timeline); ok {
			if h, native := t.nativeOn(d); native {
				waitSems, waitValues = append(waitSems, h), append(waitValues, p.Value)
				waitStages = append(waitStages, stageAllCommands)
			}
		}
	}
	var natives []*timeline
	for _, p := range s.signal {
		if t, ok := p.Semaphore.(*timeline); ok {
			if h, native := t.nativeOn(d); native {
				signalSems, signalValues = append(signalSems, h), append(signalValues, p.Value)
				natives = append(natives, t)
				continue
			}
		}
		natives = append(natives, nil)
	}
	info := &submitInfo{sType: sTypeSubmitInfo,
		waitSemaphoreCount: uint32(len(waitSems)), pWaitSemaphores: pinned(&m, waitSems), pWaitDstStageMask: pinned(&m, waitStages),
		signalSemaphoreCount: uint32(len(signalSems)), pSignalSemaphores: pinned(&m, signalSems)}
	if len(waitSems)+len(signalSems) > 0 {
		ts := &timelineSemaphoreSubmitInfo{sType: sTypeTimelineSemaphoreSubmitInfo,
			waitSemaphoreValueCount: uint32(len(waitValues)), pWaitSemaphoreValues: pinned(&m, waitValues),
			signalSemaphoreValueCount: uint32(len(signalValues)), pSignalSemaphoreValues: pinned(&m, signalValues)}
		info.pNext = m.pin(unsafe.Pointer(ts))
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if err := s.record(); err != nil {
		return err
	}
	cbs := []uintptr{s.vkcb}
	if s.vkcb != 0 {
		info.commandBufferCount, info.pCommandBuffers = 1, pinned(&m, cbs)
	}
	fence, err := d.fenceLocked()
	if err != nil {
		s.unrecord()
		return err
	}
	m.pin(unsafe.Pointer(info))
	if s.trace.rec != nil {
		s.trace.submitted = time.Now()
	}
	if err := check(d.vk.QueueSubmit(d.queue, 1, info, fence), "vkQueueSubmit"); err != nil {
		d.fences = append(d.fences, fence)
		s.unrecord()
		return err
	}
	s.fence = fence
	for i, p := range s.signal {
		if natives[i] != nil {
			natives[i].submitted(p.Value)
		}
	}
	s.natives = natives
	q.mu.Lock()
	q.fifo = append(q.fifo, s)
	q.cond.Signal()
	q.mu.Unlock()
	return nil
}

// fenceLocked returns an unsignaled fence (d.mu held).
func (v *device) fenceLocked() (uint64, error) {
	if n := len(v.fences); n > 0 {
		f := v.fences[n-1]
		v.fences = v.fences[:n-1]
		return f, nil
	}
	var f uint64
	info := &fenceCreateInfo{sType: sTypeFenceCreateInfo}
	return f, check(v.vk.CreateFence(v.handle, info, nil, &f), "vkCreateFence")
}

// complete is the completer: it finishes submissions in order.
func (q *queueState) complete() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.fifo) == 0 && !q.stopping {
			q.cond.Wait()
		}
		if len(q.fifo) == 0 {
			q.mu.Unlock()
			return
		}
		s := q.fifo[0]
		q.fifo[0] = nil
		q.fifo = q.fifo[1:]
		q.mu.Unlock()
		s.finish()
	}
}

// finish waits for s's fence, then releases it and signals or fails its
// signal list.
func (s *submission) finish() {
	d := s.d
	err := check(d.vk.WaitForFences(d.handle, 1, &s.fence, 1, ^uint64(0)), "vkWaitForFences")
	s.traceDone(time.Now())
	if err == nil {
		err = s.outcome()
	}
	if err == nil {
		err = d.driver.validationSince(s.mark)
	}
	if err == nil {
		// A native wait that failed meanwhile fails the work after it.
		for _, p := range s.wait {
			if _, qerr := p.Semaphore.Query(); qerr != nil {
				err = qerr
				break
			}
		}
	}
	d.mu.Lock()
	if s.vkcb != 0 {
		d.vk.FreeCommandBuffers(d.handle, d.commandPool, 1, &s.vkcb)
		s.vkcb = 0
	}
	d.vk.ResetFences(d.handle, 1, &s.fence)
	d.fences = append(d.fences, s.fence)
	d.mu.Unlock()
	s.release()
	for i, p := range s.signal {
		if t := s.natives[i]; t != nil {
			t.completed(p.Value, err)
			continue
		}
		p.SignalOrFail(err)
	}
}

// fail fails the signal list of a submission that was never submitted.
func (s *submission) fail(err error) {
	s.release()
	s.signal.Fail(err)
}

// close refuses new work, cancels the work still waiting, waits for the
// work submitted, and stops the completer.
func (q *queueState) close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	close(q.closing)
	q.mu.Unlock()
	q.running.Wait()
	d := q.d
	d.mu.Lock()
	err := check(d.vk.QueueWaitIdle(d.queue), "vkQueueWaitIdle")
	d.mu.Unlock()
	q.mu.Lock()
	q.stopping = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.done
	return err
}
