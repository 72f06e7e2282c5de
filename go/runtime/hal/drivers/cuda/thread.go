package cuda

import (
	"runtime"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// A CUDA context is current per OS thread, so every call into libcuda
// that needs the device's context runs on a goroutine locked to an OS
// thread on which that context is current. A device has two: its worker,
// which makes every call that enqueues work or creates and frees objects
// (serializing the stream), and its completer (queue.go), which blocks in
// cuEventSynchronize. The threads end with their goroutines; a locked
// goroutine that returns takes its OS thread with it, so no other
// goroutine ever runs on a thread with the context current.

// bindThread locks the calling goroutine to its OS thread and makes ctx
// current there.
func bindThread(cu *api, ctx uintptr) error {
	runtime.LockOSThread()
	return cu.check(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent")
}

// worker runs functions, one at a time and in the order given, on a locked
// OS thread with the device's context current.
type worker struct {
	mu      sync.Mutex
	calls   chan func()
	stopped bool
	done    chan struct{}
	what    string // the device, for errors
}

// startWorker starts a worker for ctx; it fails when the context cannot
// be made current.
func startWorker(cu *api, ctx uintptr, what string) (*worker, error) {
	w := &worker{calls: make(chan func()), done: make(chan struct{}), what: what}
	started := make(chan error, 1)
	go func() {
		defer close(w.done)
		if err := bindThread(cu, ctx); err != nil {
			started <- err
			return // the locked thread exits with the goroutine
		}
		started <- nil
		for fn := range w.calls {
			fn()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return w, nil
}

// do runs fn on the worker and returns its error. It must not be called
// from a function the worker is running (it would wait for itself).
func (w *worker) do(fn func() error) error {
	errc := make(chan error, 1)
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return status.Errorf(status.FailedPrecondition, "%s is closed: its CUDA context has been released", w.what)
	}
	// Sending under the lock keeps stop from closing the channel under a
	// sender; the worker never takes the lock, so this cannot deadlock.
	w.calls <- func() { errc <- fn() }
	w.mu.Unlock()
	return <-errc
}

// stop ends the worker after the calls already given.
func (w *worker) stop() {
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.calls)
	}
	w.mu.Unlock()
	<-w.done
}

// pinner pins the Go memory that C reads through pointers stored in other
// memory (option value arrays, kernel parameter arrays) for one call.
type pinner struct{ p runtime.Pinner }

// pin pins each pointer's object.
func (p *pinner) pin(ptrs ...any) {
	for _, x := range ptrs {
		p.p.Pin(x)
	}
}

// unpin unpins everything.
func (p *pinner) unpin() { p.p.Unpin() }

// cString returns b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
