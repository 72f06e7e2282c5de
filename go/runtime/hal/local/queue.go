package local

import (
	"fmt"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
	"github.com/gree-ml/gree/go/status"
)

// queue orders a local device's work by semaphores alone, as IREE's
// queues do: an operation whose wait list is reached when it is submitted
// runs at once on the submitting goroutine (what a caller that waits for
// it next would do anyway, so the common submit-then-wait costs no
// hand-off); one that must wait runs on a goroutine of its own once the
// list is reached. Either way it then signals its signal list, or fails it
// with the work's error (or the failure of a waited semaphore).
type queue struct {
	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	running sync.WaitGroup
}

func newQueue() *queue { return &queue{closing: make(chan struct{})} }

// submit runs work in queue order; see queue.
func (q *queue) submit(wait, signal hal.SemaphoreList, work func() error) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return status.New(status.FailedPrecondition, "the device is closed")
	}
	q.running.Add(1)
	q.mu.Unlock()
	ready, err := wait.Ready()
	if err != nil || ready {
		q.finish(signal, err, work)
		return nil
	}
	go func() {
		err := wait.WaitCancel(hal.NoDeadline, q.closing)
		q.finish(signal, err, work)
	}()
	return nil
}

// finish runs work unless waitErr (a failed wait) and signals or fails
// the signal list.
func (q *queue) finish(signal hal.SemaphoreList, waitErr error, work func() error) {
	defer q.running.Done()
	err := waitErr
	if err == nil {
		err = hal.RunGuarded("queue operation", work)
	}
	if err != nil {
		signal.Fail(err)
		return
	}
	if err := signal.Signal(); err != nil {
		signal.Fail(err)
	}
}

// close refuses new work, cancels the waits of work not yet started and
// waits for the rest.
func (q *queue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.closing)
	}
	q.mu.Unlock()
	q.running.Wait()
}

// CreateSemaphore returns a host timeline semaphore.
func (d *Device) CreateSemaphore(initial uint64) (hal.Semaphore, error) {
	return hal.NewHostSemaphore(initial), nil
}

// QueueExecute runs cb's commands in queue order with bindings as its
// binding table; cb and the table's buffers stay retained until then.
func (d *Device) QueueExecute(wait, signal hal.SemaphoreList, cb *hal.CommandBuffer, bindings []hal.BufferRef) error {
	var cmds []hal.Command
	if cb != nil {
		if err := cb.Submit(); err != nil {
			return err
		}
		cmds, _ = cb.Commands()
	}
	table := append([]hal.BufferRef(nil), bindings...)
	for i, r := range table {
		if r.Buffer == nil {
			continue
		}
		if err := r.Buffer.Retain(); err != nil {
			releaseTable(table[:i])
			if cb != nil {
				cb.Release()
			}
			return fmt.Errorf("binding table slot %d: %w", i, err)
		}
	}
	err := d.q.submit(wait, signal, func() error {
		defer releaseTable(table)
		if cb != nil {
			defer cb.Release()
		}
		sp := timeline.Active().Begin(d.track(), timeline.CatQueue, "execute")
		err := d.execute(sp, cmds, table)
		if sp != nil {
			sp.End(timeline.Int("commands", int64(len(cmds))))
		}
		return err
	})
	if err != nil {
		releaseTable(table)
		if cb != nil {
			cb.Release()
		}
	}
	return err
}

func releaseTable(table []hal.BufferRef) {
	for _, r := range table {
		if r.Buffer != nil {
			r.Buffer.Release()
		}
	}
}

// QueueHostCall runs fn in queue order.
func (d *Device) QueueHostCall(wait, signal hal.SemaphoreList, fn func() error) error {
	return d.q.submit(wait, signal, hal.TraceHostCall(d, fn))
}

// hostRange returns the bytes a buffer reference names; the local devices
// reach only host memory.
func hostRange(r hal.BufferRef, table []hal.BufferRef) ([]byte, error) {
	b, off, n, err := r.Resolve(table)
	if err != nil {
		return nil, err
	}
	all := b.HostBytes()
	if all == nil {
		return nil, status.Errorf(status.InvalidArgument, "a %s is not host memory: the CPU devices cannot use another device's memory", b)
	}
	return all[off : off+n : off+n], nil
}

// execute runs recorded commands one after another.
// sp is the queue operation's timeline span (nil when no trace is being
// recorded): each command is traced inside it.
func (d *Device) execute(sp *timeline.Span, cmds []hal.Command, table []hal.BufferRef) error {
	var bufs [][]byte
	for i := range cmds {
		c := &cmds[i]
		if sp != nil {
			if err := traceCommand(sp, c, table, func() error { return d.execute(nil, cmds[i:i+1], table) }); err != nil {
				return err
			}
			continue
		}
		switch c.Kind {
		case hal.CommandBarrier:
		case hal.CommandFill:
			dst, err := hostRange(c.Target, table)
			if err != nil {
				return fmt.Errorf("fill: %w", err)
			}
			fillPattern(dst, c.Pattern)
		case hal.CommandUpdate:
			dst, err := hostRange(c.Target, table)
			if err != nil {
				return fmt.Errorf("update: %w", err)
			}
			copy(dst, c.Data)
		case hal.CommandCopy:
			src, err := hostRange(c.Source, table)
			if err != nil {
				return fmt.Errorf("copy source: %w", err)
			}
			dst, err := hostRange(c.Target, table)
			if err != nil {
				return fmt.Errorf("copy target: %w", err)
			}
			if len(src) != len(dst) {
				return status.Errorf(status.InvalidArgument, "copy of %d bytes into %d", len(src), len(dst))
			}
			copy(dst, src)
		case hal.CommandDispatch:
			bufs = bufs[:0]
			for j, r := range c.Bindings {
				b, err := hostRange(r, table)
				if err != nil {
					return fmt.Errorf("dispatch of %s: binding %d: %w", entryName(c.Executable, c.Entry), j, err)
				}
				bufs = append(bufs, b)
			}
			if err := d.Dispatch(c.Executable, c.Entry, c.Workgroups, c.Constants, bufs); err != nil {
				return err
			}
		default:
			return status.Errorf(status.Internal, "unknown command kind %d", c.Kind)
		}
	}
	return nil
}

// fillPattern repeats pattern (1, 2 or 4 bytes) over dst.
func fillPattern(dst, pattern []byte) {
	if len(dst) == 0 {
		return
	}
	if len(pattern) == 1 && pattern[0] == 0 {
		clear(dst)
		return
	}
	n := copy(dst, pattern)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}
