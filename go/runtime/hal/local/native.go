package local

import (
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
)

// nativeExecutable is a loaded llvm-cpu executable.
type nativeExecutable struct {
	x     *llvmcpu.Executable
	modes []modeChooser // per entry point
}

var _ hal.Executable = (*nativeExecutable)(nil)

func newNativeExecutable(x *llvmcpu.Executable) *nativeExecutable {
	return &nativeExecutable{x: x, modes: make([]modeChooser, x.NumEntries())}
}

func (e *nativeExecutable) Close() error    { return e.x.Close() }
func (e *nativeExecutable) NumEntries() int { return e.x.NumEntries() }
func (e *nativeExecutable) EntryName(i int) string {
	if i < 0 || i >= e.x.NumEntries() {
		return ""
	}
	return e.x.Entry(i).Name
}

// dispatchNative runs the grid's workgroups through native code: one call
// for the whole grid on local-sync, and on local-task where running alone
// has been faster (see modeChooser); else the caller and the device's
// workers take chunks of consecutive workgroups until none are left.
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
	if workers <= 1 {
		return c.Run(0, total)
	}
	m := &e.modes[entry]
	parallel := m.parallel(total, workers)
	t0 := time.Now()
	if parallel {
		// A native workgroup costs microseconds, its call a fraction of
		// one: chunks may be single workgroups.
		err = d.runChunks(total, 1, func() (func(first, n int64) error, func()) { return c.Run, func() {} })
	} else {
		err = c.Run(0, total)
	}
	m.record(parallel, time.Since(t0), total)
	return err
}
