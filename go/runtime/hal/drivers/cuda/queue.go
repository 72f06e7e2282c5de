package cuda

import (
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// The queue. Semaphores are host timelines (hal.HostSemaphore), so every
// wait is resolved on the host: QueueExecute checks and resolves a command
// buffer at once (errors in the request are returned), then, as soon as
// its wait list is reached (at once, or on a goroutine that waits for it,
// so that work submitted later but ready sooner is not held up), the
// device's worker enqueues its commands on the device's stream followed
// by a cuEventRecord, and hands the submission to the completer. The
// completer, a goroutine on its own OS thread with the context current,
// takes submissions in the order they were enqueued, waits for each event
// (cuEventSynchronize), reads the status words of dispatches that report
// run-time errors, frees the submission's staging memory and lets go of
// what it held, and signals the signal list or fails it with the error
// (of the work, of the enqueueing, or of a waited semaphore that failed).

// queueState is a device's queue.
type queueState struct {
	d       *device
	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	running sync.WaitGroup // queue calls and the goroutines waiting for semaphores

	cond     *sync.Cond
	fifo     []*submission // enqueued, not yet completed
	stopping bool
	done     chan struct{}
}

// init starts the completer.
func (q *queueState) init(d *device) error {
	q.d = d
	q.closing = make(chan struct{})
	q.cond = sync.NewCond(&q.mu)
	q.done = make(chan struct{})
	started := make(chan error, 1)
	go q.complete(started)
	return <-started
}

// open returns an error once the device is closed.
func (q *queueState) open() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return q.d.closedError()
	}
	return nil
}

// begin counts a queue call; it fails once the device is closed.
func (q *queueState) begin() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return q.d.closedError()
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

// schedule enqueues s now when its waits are reached, else once they are.
func (q *queueState) schedule(s *submission) {
	ready, err := s.wait.Ready()
	if err != nil {
		s.fail(err)
		return
	}
	if ready {
		q.enqueue(s)
		return
	}
	q.running.Add(1)
	go func() {
		defer q.running.Done()
		if err := s.wait.WaitCancel(hal.NoDeadline, q.closing); err != nil {
			s.fail(err)
			return
		}
		q.enqueue(s)
	}()
}

// enqueue has the worker put s on the stream and hand it to the
// completer (in the same call, so the completer sees submissions in
// stream order).
func (q *queueState) enqueue(s *submission) {
	d := q.d
	err := d.w.do(func() error {
		if err := s.enqueue(); err != nil {
			d.cu.StreamSynchronize(d.stream) // what was enqueued may use s's memory
			if s.event != 0 {
				d.cu.EventDestroy(s.event)
			}
			if s.exec != 0 {
				d.cu.GraphExecDestroy(s.exec)
			}
			s.dropTraceEvents()
			return err
		}
		q.mu.Lock()
		q.fifo = append(q.fifo, s)
		q.cond.Signal()
		q.mu.Unlock()
		return nil
	})
	if err != nil {
		s.freeStaging()
		s.fail(err)
	}
}

// complete is the completer: it finishes submissions in order.
func (q *queueState) complete(started chan<- error) {
	defer close(q.done)
	if err := bindThread(q.d.cu, q.d.ctx); err != nil {
		started <- err
		return
	}
	started <- nil
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

// close refuses new work, cancels the work still waiting, waits for the
// work enqueued, and stops the completer.
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
	err := d.w.do(func() error { return d.cu.check(d.cu.StreamSynchronize(d.stream), "cuStreamSynchronize") })
	q.mu.Lock()
	q.stopping = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.done
	return err
}
