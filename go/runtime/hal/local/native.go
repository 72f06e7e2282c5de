package local

import (
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
	"github.com/gree-ml/gree/go/status"
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
	if entry < 0 || entry >= e.x.NumEntries() {
		return status.Errorf(status.OutOfRange, "entry point %d out of range (%d entries)", entry, e.x.NumEntries())
	}
	for i, n := range grid {
		if n < 0 || n > 1<<31 {
			return status.Errorf(status.InvalidArgument, "workgroup count %d in dimension %d is out of range", n, i)
		}
	}
	total := grid[0] * grid[1] * grid[2]
	if total == 0 {
		return nil
	}
	workers := min(int64(d.workers), total)
	if workers <= 1 {
		return e.x.Run(entry, 0, total, grid, push, bindings)
	}
	// Chunks small enough to balance the load, large enough to amortize
	// the call.
	chunk := max(total/(workers*4), 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := int64(0); w < workers; w++ {
		wg.Add(1)
		go func(w int64) {
			defer wg.Done()
			for {
				first := next.Add(chunk) - chunk
				if first >= total {
					return
				}
				if err := e.x.Run(entry, first, min(chunk, total-first), grid, push, bindings); err != nil {
					errs[w] = err
					next.Store(total)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
