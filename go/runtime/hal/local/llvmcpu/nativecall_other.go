//go:build !(linux && amd64)

package llvmcpu

import "github.com/ebitengine/purego"

// callNative calls a kernel entry point, fn(a0, a1, a2), through purego
// (a cgo call, which the Go scheduler counts as a system call); on
// linux/amd64 kernels run on stacks of their own instead (see
// nativecall_linux_amd64.go).
func callNative(fn, a0, a1, a2 uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, a0, a1, a2)
	return r
}
