package local

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
)

// nativeExecutable is a loaded llvm-cpu executable.
type nativeExecutable struct {
	x *llvmcpu.Executable
}

var _ hal.Executable = (*nativeExecutable)(nil)

func (e *nativeExecutable) Close() error { return e.x.Close() }

// dispatchNative runs the grid's workgroups through native code: one call
// for the whole grid on local-sync; on local-task the workers take chunks
// of consecutive workgroups until none are left.
func (d *Device) dispatchNative(e *nativeExecutable, entry int, grid [3]int64, push []int64, bindings [][]byte) error {
	total, err := checkGrid(entry, e.x.NumEntries(), grid)
	if err != nil || total == 0 {
		return err
	}
	workers := min(int64(d.workers), total)
	if workers <= 1 {
		return e.x.Run(entry, 0, total, grid, push, bindings)
	}
	// Chunks small enough to balance the load, large enough to amortize
	// the call.
	chunk := max(total/(workers*4), 1)
	run := func(first, n int64) error { return e.x.Run(entry, first, n, grid, push, bindings) }
	return runChunks(workers, total, chunk, func() (func(first, n int64) error, func()) { return run, func() {} })
}
