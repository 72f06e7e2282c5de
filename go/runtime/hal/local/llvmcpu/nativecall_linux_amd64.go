package llvmcpu

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// callOnStack calls fn(a0, a1, a2) (System V ABI) with its stack at top;
// see nativecall_linux_amd64.s.
//
//go:noescape
func callOnStack(fn, top, a0, a1, a2 uintptr) uintptr

// Kernel stacks: nativeStackSize bytes each, the lowest nativeGuard of them
// inaccessible so that an overflow faults instead of writing past the
// mapping. Only the pages a kernel touches become resident (tens of KiB).
const (
	nativeStackSize = 8 << 20
	nativeGuard     = 64 << 10
)

// nativeStacks holds the kernel stacks not in use: one per goroutine that
// has been inside a kernel at the same time, kept for the process.
var nativeStacks struct {
	mu   sync.Mutex
	free [][]byte
}

// callNative calls a kernel entry point, fn(a0, a1, a2), on a stack of
// its own without telling the Go scheduler: to the runtime the goroutine
// keeps running Go code (as with any long loop), where purego's call
// (cgocall) would enter a system call. A P in a system call is taken by
// the runtime's monitor after 20 us when no P is idle, which on a machine
// with one worker per core happened on most dispatches: the worker's
// goroutine then waited for another thread to run it, the monitor polled
// every 20-90 us (preempting a worker each time) and idle threads were
// started to look for work. Kernels never call back into Go and return in
// bounded time; while one runs, its goroutine cannot be preempted (the
// runtime's signals find no safe point in foreign code and retry), so a
// stop-the-world waits for the current chunk of workgroups. Signals run on
// the thread's signal stack, not this one.
func callNative(fn, a0, a1, a2 uintptr) uintptr {
	st := getNativeStack()
	if st == nil {
		r, _, _ := purego.SyscallN(fn, a0, a1, a2)
		return r
	}
	r := callOnStack(fn, uintptr(unsafe.Pointer(&st[len(st)-1]))+1, a0, a1, a2)
	nativeStacks.mu.Lock()
	nativeStacks.free = append(nativeStacks.free, st)
	nativeStacks.mu.Unlock()
	return r
}

// getNativeStack returns a free kernel stack, mapping one when none is
// free; nil when the mapping fails (the caller then goes through purego).
func getNativeStack() []byte {
	nativeStacks.mu.Lock()
	if n := len(nativeStacks.free); n > 0 {
		st := nativeStacks.free[n-1]
		nativeStacks.free = nativeStacks.free[:n-1]
		nativeStacks.mu.Unlock()
		return st
	}
	nativeStacks.mu.Unlock()
	st, err := unix.Mmap(-1, 0, nativeStackSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE|unix.MAP_STACK)
	if err != nil {
		return nil
	}
	if unix.Mprotect(st[:nativeGuard], unix.PROT_NONE) != nil {
		unix.Munmap(st)
		return nil
	}
	return st
}
