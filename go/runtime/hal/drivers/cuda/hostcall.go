package cuda

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// QueueHostCall runs fn on the host in queue order: at once on the caller
// when the waits are reached, else on a goroutine once they are.
func (v *device) QueueHostCall(wait, signal hal.SemaphoreList, fn func() error) error {
	if err := wait.Check("wait"); err != nil {
		return err
	}
	if err := signal.Check("signal"); err != nil {
		return err
	}
	if err := v.q.begin(); err != nil {
		return err
	}
	fn = hal.TraceHostCall(v, fn)
	ready, err := wait.Ready()
	if err != nil || ready {
		defer v.q.running.Done()
		hal.FinishHostCall(signal, err, fn)
		return nil
	}
	wait, signal = append(hal.SemaphoreList(nil), wait...), append(hal.SemaphoreList(nil), signal...)
	go func() {
		defer v.q.running.Done()
		hal.FinishHostCall(signal, wait.WaitCancel(hal.NoDeadline, v.q.closing), fn)
	}()
	return nil
}

// QueueAlloca returns a device-local buffer usable once the signal list
// is reached. With --cuda_async_allocations (the default) on a device
// with memory pools, the memory comes from cuMemAllocAsync enqueued on
// the stream in queue order (zeroed there too); a failed allocation
// (RESOURCE_EXHAUSTED when out of memory) fails the signal list and every
// later use of the buffer. Otherwise, and for host-visible buffers, the
// buffer is allocated at once and only the signal is ordered.
func (v *device) QueueAlloca(wait, signal hal.SemaphoreList, params hal.BufferParams, size int64) (*hal.Buffer, error) {
	_, params = v.alloc.QueryCompatibility(params, size)
	if !v.asyncOK || params.Type&hal.MemoryTypeHostVisible != 0 || size < 0 {
		b, err := v.alloc.Allocate(params, size)
		if err != nil {
			return nil, err
		}
		if err := hal.QueueBarrier(v, wait, signal); err != nil {
			b.Release()
			return nil, err
		}
		return b, nil
	}
	if err := wait.Check("wait"); err != nil {
		return nil, err
	}
	if err := signal.Check("signal"); err != nil {
		return nil, err
	}
	if err := v.q.begin(); err != nil {
		return nil, err
	}
	defer v.q.running.Done()
	if err := v.ref(); err != nil {
		return nil, err
	}
	st := &storage{a: v.alloc, size: size, async: true}
	b := v.alloc.wrap(st, params, true)
	s := &submission{d: v, wait: append(hal.SemaphoreList(nil), wait...), signal: append(hal.SemaphoreList(nil), signal...), alloca: st}
	v.q.schedule(s)
	return b, nil
}

// enqueueAlloca allocates and zeroes a queue allocation on the stream
// (on the worker).
func (s *submission) enqueueAlloca() error {
	d, st := s.d, s.alloca
	n := uintptr(max(st.size, 1))
	var ptr uint64
	var err error
	if r := d.cu.MemAllocAsync(&ptr, n, d.stream); r != cudaSuccess {
		err = d.allocError(r, "cuMemAllocAsync")
	} else {
		if err = d.cu.check(d.cu.MemsetD8Async(ptr, 0, n, d.stream), "cuMemsetD8Async"); err != nil {
			d.cu.MemFreeAsync(ptr, d.stream)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		err = status.Errorf(status.CodeOf(err), "queue allocation of %d bytes on %s: %v", st.size, d.describe(), err)
		st.failed = err
		return err
	}
	if st.freed { // deallocated before it was reached
		d.cu.MemFreeAsync(ptr, d.stream)
		return nil
	}
	st.ptr = ptr
	return nil
}

// QueueDealloca frees b's memory once the wait list is reached (memory
// from cuMemAllocAsync by cuMemFreeAsync on the stream, after the work
// enqueued before it).
func (v *device) QueueDealloca(wait, signal hal.SemaphoreList, b *hal.Buffer) error {
	if err := b.Check(); err != nil {
		return err
	}
	return v.QueueHostCall(wait, signal, b.Deallocate)
}
