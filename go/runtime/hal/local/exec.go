package local

import (
	"fmt"
	"sync"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
	"github.com/gree-ml/gree/go/runtime/hal/local/vmvx"
	llvmcpuschema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// VMVXFormat is the executable format of the vmvx target.
const VMVXFormat = "vmvx-bytecode"

// executable is a loaded vmvx executable.
type executable struct {
	exe  *vmvx.Executable
	pool sync.Pool // *vmvx.State, one per worker
}

var _ hal.Executable = (*executable)(nil)

func (e *executable) Close() error           { return nil }
func (e *executable) NumEntries() int        { return e.exe.NumEntries() }
func (e *executable) EntryName(i int) string { return e.exe.EntryName(i) }

// Formats returns the executable formats the CPU devices load (those of
// the loaders --executable_loaders enables).
func (d *Device) Formats() []string { return enabledFormats() }

// PrepareExecutable loads (and verifies) an executable.
func (d *Device) PrepareExecutable(format string, data []byte) (hal.Executable, error) {
	if err := loaderEnabled(d.driver, format); err != nil {
		return nil, err
	}
	if format == llvmcpuschema.Format {
		x, err := llvmcpu.Load(data)
		if err != nil {
			return nil, err
		}
		return newNativeExecutable(x), nil
	}
	if format != VMVXFormat {
		return nil, status.Errorf(status.Unimplemented, "the %s device cannot run %q executables (it runs %q and %q); compile with --iree-hal-target-backends=vmvx or llvm-cpu", d.driver, format, VMVXFormat, llvmcpuschema.Format)
	}
	exe, err := vmvx.Load(data)
	if err != nil {
		return nil, err
	}
	e := &executable{exe: exe}
	e.pool.New = func() any { return vmvx.NewState() }
	return e, nil
}

// Dispatch runs every workgroup of the grid now: inline on local-sync,
// spread over the device's workers on local-task. Results are identical
// either way: workgroups write disjoint parts of the outputs. Queue
// execution calls it for each recorded dispatch; tests call it directly.
func (d *Device) Dispatch(he hal.Executable, entry int, grid [3]int64, push []int64, bindings [][]byte) error {
	if p := profile.Load(); p != nil {
		t0 := time.Now()
		err := d.dispatch(he, entry, grid, push, bindings)
		p.add(entryName(he, entry), time.Since(t0), grid[0]*grid[1]*grid[2])
		return err
	}
	return d.dispatch(he, entry, grid, push, bindings)
}

// entryName names an entry point for the dispatch profile and errors.
func entryName(he hal.Executable, entry int) string {
	if entry >= 0 && entry < he.NumEntries() {
		return he.EntryName(entry)
	}
	return fmt.Sprintf("entry %d", entry)
}

func (d *Device) dispatch(he hal.Executable, entry int, grid [3]int64, push []int64, bindings [][]byte) error {
	if ne, ok := he.(*nativeExecutable); ok {
		return d.dispatchNative(ne, entry, grid, push, bindings)
	}
	e, ok := he.(*executable)
	if !ok {
		return status.Errorf(status.InvalidArgument, "executable was not prepared by the %s device", d.driver)
	}
	total, err := checkGrid(entry, e.exe.NumEntries(), grid)
	if err != nil || total == 0 {
		return err
	}
	bindings, finish := e.exe.WholeElements(entry, bindings)
	defer finish()
	run := func(st *vmvx.State, i int64) error {
		id := [3]int64{i % grid[0], (i / grid[0]) % grid[1], i / (grid[0] * grid[1])}
		return e.exe.RunWorkgroup(st, entry, id, grid, push, bindings)
	}
	if d.workers <= 1 || total == 1 {
		st := e.pool.Get().(*vmvx.State)
		defer e.pool.Put(st)
		for i := int64(0); i < total; i++ {
			if err := run(st, i); err != nil {
				return err
			}
		}
		return nil
	}
	return d.runChunks(total, 1, func() (func(first, n int64) error, func()) {
		st := e.pool.Get().(*vmvx.State)
		return func(first, n int64) error {
			for i := first; i < first+n; i++ {
				if err := run(st, i); err != nil {
					return err
				}
			}
			return nil
		}, func() { e.pool.Put(st) }
	})
}
