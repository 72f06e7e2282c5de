package local

import (
	"math"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// parker puts goroutines to sleep on a 32-bit word and wakes them: on
// Linux, the futex system call, so that a sleeper's thread blocks in the
// kernel and is woken directly (its goroutine keeps the thread; the Go
// scheduler gives its processor to others meanwhile).
type parker struct{}

func newParker() parker { return parker{} }

const (
	futexWaitPrivate = 128 | 0 // FUTEX_PRIVATE_FLAG | FUTEX_WAIT
	futexWakePrivate = 128 | 1 // FUTEX_PRIVATE_FLAG | FUTEX_WAKE
)

// wait sleeps while *w == val (or returns at once); spurious returns are
// possible, so callers loop.
func (parker) wait(w *atomic.Uint32, val uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWaitPrivate, uintptr(val), 0, 0, 0)
}

// wake wakes every goroutine asleep on w.
func (parker) wake(w *atomic.Uint32) {
	syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakePrivate, math.MaxInt32, 0, 0, 0)
}

// yield offers the thread's core to other runnable threads (sched_yield):
// a helper polling through a warm invocation then does not keep the
// dispatching thread, or another process, off a shared core. The call is
// raw (the runtime is not told of it), as wake's is: neither blocks, and
// the runtime's monitor hands a P it finds in a system call to another
// thread, a switch of threads for nothing.
func (parker) yield() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
