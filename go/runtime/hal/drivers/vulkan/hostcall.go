package vulkan

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// QueueHostCall runs fn on the host in queue order: at once on the caller
// when the waits are reached, else on a goroutine once they are.
func (v *device) QueueHostCall(wait, signal hal.SemaphoreList, fn func() error) error {
	if err := checkList(wait, "wait"); err != nil {
		return err
	}
	if err := checkList(signal, "signal"); err != nil {
		return err
	}
	if err := v.q.begin(); err != nil {
		return err
	}
	ready, err := wait.Ready()
	if err != nil || ready {
		defer v.q.running.Done()
		finishHostCall(signal, err, fn)
		return nil
	}
	wait, signal = hostWaits(wait), append(hal.SemaphoreList(nil), signal...)
	go func() {
		defer v.q.running.Done()
		finishHostCall(signal, wait.WaitCancel(hal.NoDeadline, v.q.closing), fn)
	}()
	return nil
}

// finishHostCall runs fn unless waitErr and signals or fails the list.
func finishHostCall(signal hal.SemaphoreList, waitErr error, fn func() error) {
	err := waitErr
	if err == nil && fn != nil {
		err = runGuarded(fn)
	}
	for _, p := range signal {
		signalOrFail(p, err)
	}
}

// runGuarded runs fn, turning a panic into an INTERNAL error.
func runGuarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = status.Errorf(status.Internal, "queue host call panicked: %v", r)
		}
	}()
	return fn()
}

// checkList refuses null semaphores.
func checkList(l hal.SemaphoreList, what string) error {
	for _, p := range l {
		if p.Semaphore == nil {
			return status.Errorf(status.InvalidArgument, "the %s list has a null semaphore", what)
		}
	}
	return nil
}
