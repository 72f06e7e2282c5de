package vulkan

import (
	"github.com/gree-ml/gree/go/runtime/hal"
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
	wait, signal = hostWaits(wait), append(hal.SemaphoreList(nil), signal...)
	go func() {
		defer v.q.running.Done()
		hal.FinishHostCall(signal, wait.WaitCancel(hal.NoDeadline, v.q.closing), fn)
	}()
	return nil
}
