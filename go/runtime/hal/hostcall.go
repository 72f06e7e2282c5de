package hal

import "github.com/gree-ml/gree/go/status"

// What the drivers' queues share around host work: checking semaphore
// lists, running host functions without letting a panic escape, and
// signalling or failing what they signal.

// Check refuses a list with a null semaphore; what names the list in the
// error ("wait", "signal").
func (l SemaphoreList) Check(what string) error {
	for _, p := range l {
		if p.Semaphore == nil {
			return status.Errorf(status.InvalidArgument, "the %s list has a null semaphore", what)
		}
	}
	return nil
}

// SignalOrFail signals the timepoint from the host when err is nil, and
// fails its semaphore with err (or with the signal's own error) otherwise.
func (p Timepoint) SignalOrFail(err error) {
	if err == nil {
		err = p.Semaphore.Signal(p.Value)
	}
	if err != nil {
		p.Semaphore.Fail(err)
	}
}

// RunGuarded runs fn, turning a panic into an INTERNAL error: "<what>
// panicked: …".
func RunGuarded(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = status.Errorf(status.Internal, "%s panicked: %v", what, r)
		}
	}()
	return fn()
}

// FinishHostCall completes a queued host call whose waits ended with
// waitErr: it runs fn (when not nil) unless the waits failed, then
// signals each timepoint of signal, or fails it with the error.
func FinishHostCall(signal SemaphoreList, waitErr error, fn func() error) {
	err := waitErr
	if err == nil && fn != nil {
		err = RunGuarded("queue host call", fn)
	}
	for _, p := range signal {
		p.SignalOrFail(err)
	}
}
