package main

/*
#include "internal.h"
*/
import "C"

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// Cancellation and deadlines of calls (gree.h, "Cancellation and
// deadlines"): cancel tokens are handles over vm.CancelToken; the
// process's interrupt is one vm.Interrupt, raised by gree_interrupt_raise
// or by a SIGINT byte on a watched wakeup fd, and watched by the calls
// made with GREE_INVOKE_INTERRUPTIBLE (Python's main thread makes its calls
// so: see python/iree_go/runtime/_cancel.py).

// interrupt is the process's interrupt (Ctrl-C).
var interrupt vm.Interrupt

//export gree_cancel_token_create
func gree_cancel_token_create(out *C.gree_cancel_token_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_token must not be NULL")
	}
	*out = (C.gree_cancel_token_t)(newHandle(kindCancelToken, vm.NewCancelToken()))
	return nil
}

//export gree_cancel_token_cancel
func gree_cancel_token_cancel(t C.gree_cancel_token_t) (st C.gree_status_t) {
	defer guard(&st)
	tok, err := objOf[*vm.CancelToken](unsafe.Pointer(t), kindCancelToken)
	if err != nil {
		return toStatus(err)
	}
	tok.Cancel()
	return nil
}

//export gree_cancel_token_release
func gree_cancel_token_release(t C.gree_cancel_token_t) {
	defer guardVoid()
	dropHandle(unsafe.Pointer(t), kindCancelToken)
}

// monotonicNow is CLOCK_MONOTONIC in nanoseconds, the clock of
// gree_invoke_options_t.deadline_ns.
func monotonicNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

//export gree_time_now_ns
func gree_time_now_ns() C.int64_t { return C.int64_t(monotonicNow()) }

// invokeOptions converts C options (nil for none) into the VM's.
func invokeOptions(o *C.gree_invoke_options_t) (*vm.InvokeOptions, error) {
	if o == nil {
		return nil, nil
	}
	if unknown := uint32(o.flags) &^ uint32(C.GREE_INVOKE_INTERRUPTIBLE); unknown != 0 {
		return nil, status.Errorf(status.InvalidArgument, "options.flags has unknown bits %#x (known: GREE_INVOKE_INTERRUPTIBLE)", unknown)
	}
	var opts vm.InvokeOptions
	if o.cancel_token != nil {
		tok, err := objOf[*vm.CancelToken](unsafe.Pointer(o.cancel_token), kindCancelToken)
		if err != nil {
			return nil, status.Annotate(err, "in options.cancel_token")
		}
		opts.Cancel = tok
	}
	if o.deadline_ns != 0 {
		// The VM's deadlines are Go times, whose monotonic reading is not
		// CLOCK_MONOTONIC itself: convert through what remains.
		opts.Deadline = time.Now().Add(time.Duration(int64(o.deadline_ns) - monotonicNow()))
	}
	if o.flags&C.GREE_INVOKE_INTERRUPTIBLE != 0 {
		opts.Interrupt = &interrupt
	}
	return &opts, nil
}

//export gree_context_invoke_with_options
func gree_context_invoke_with_options(c C.gree_context_t, modName, fn *C.char, args C.gree_value_list_t, o *C.gree_invoke_options_t, out *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	if out != nil {
		*out = nil
	}
	opts, err := invokeOptions(o)
	if err != nil {
		return toStatus(err)
	}
	return contextInvoke(c, modName, fn, args, opts, out)
}

//export gree_interrupt_raise
func gree_interrupt_raise() {
	defer guardVoid()
	interrupt.Raise()
}

//export gree_interrupt_watch_fd
func gree_interrupt_watch_fd(readFD, forwardFD C.int) (st C.gree_status_t) {
	defer guard(&st)
	if readFD < 0 {
		return invalidArg("read_fd %d is not a file descriptor", int(readFD))
	}
	if _, err := unix.FcntlInt(uintptr(readFD), unix.F_GETFD, 0); err != nil {
		return invalidArg("read_fd %d: %v", int(readFD), err)
	}
	fwd := -1
	if forwardFD >= 0 {
		d, err := unix.Dup(int(forwardFD))
		if err != nil {
			unix.Close(int(readFD))
			return invalidArg("forward_fd %d: %v (read_fd was closed)", int(forwardFD), err)
		}
		unix.CloseOnExec(d)
		fwd = d
	}
	go watchInterrupts(os.NewFile(uintptr(readFD), "gree interrupt fd"), fwd)
	return nil
}

// watchInterrupts raises the interrupt for each SIGINT byte read from f
// and forwards every byte to fwd (when not -1), until f's writer closes.
func watchInterrupts(f *os.File, fwd int) {
	defer f.Close()
	if fwd >= 0 {
		defer unix.Close(fwd)
	}
	buf := make([]byte, 64)
	for {
		n, err := f.Read(buf)
		for _, b := range buf[:n] {
			if syscall.Signal(b) == syscall.SIGINT {
				interrupt.Raise()
			}
		}
		if fwd >= 0 && n > 0 {
			// Non-blocking (as every wakeup fd must be): dropped when full,
			// as Python drops its own wakeup bytes.
			unix.Write(fwd, buf[:n])
		}
		if err != nil {
			return
		}
	}
}
