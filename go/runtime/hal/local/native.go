package local

import (
	"sync/atomic"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
)

// nativeExecutable is a loaded llvm-cpu executable.
type nativeExecutable struct {
	x *llvmcpu.Executable
	// cost is, per entry point, the last measured nanoseconds of one
	// workgroup (0: not measured yet); it decides whether a dispatch is
	// worth waking the workers for.
	cost []atomic.Int64
}

var _ hal.Executable = (*nativeExecutable)(nil)

func newNativeExecutable(x *llvmcpu.Executable) *nativeExecutable {
	return &nativeExecutable{x: x, cost: make([]atomic.Int64, x.NumEntries())}
}

func (e *nativeExecutable) Close() error { return e.x.Close() }

// inlineBelow is the estimated single-thread time under which a dispatch
// runs on the caller alone: handing chunks to the workers costs a few
// microseconds.
const inlineBelow = 20 * time.Microsecond

// dispatchNative runs the grid's workgroups through native code: one call
// for the whole grid on local-sync and for small dispatches; else the
// caller and the device's workers take chunks of consecutive workgroups
// until none are left.
func (d *Device) dispatchNative(e *nativeExecutable, entry int, grid [3]int64, push []int64, bindings [][]byte) error {
	total, err := checkGrid(entry, e.x.NumEntries(), grid)
	if err != nil || total == 0 {
		return err
	}
	c, err := e.x.Prepare(entry, grid, push, bindings)
	if err != nil {
		return err
	}
	defer c.Release()
	workers := min(int64(d.workers), total)
	cost := &e.cost[entry]
	if workers <= 1 || time.Duration(cost.Load()*total) < inlineBelow && cost.Load() != 0 {
		t0 := time.Now()
		err := c.Run(0, total)
		cost.Store(max(int64(time.Since(t0))/total, 1))
		return err
	}
	// A native workgroup costs microseconds, its call a fraction of one:
	// chunks may be single workgroups.
	t0 := time.Now()
	err = d.runChunks(total, 1, func() (func(first, n int64) error, func()) { return c.Run, func() {} })
	// The workers' time is at most workers times the wall time.
	cost.Store(max(int64(time.Since(t0))*workers/total, 1))
	return err
}
