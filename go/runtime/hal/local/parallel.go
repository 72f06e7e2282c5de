package local

import (
	"github.com/gree-ml/gree/go/status"
)

// checkGrid validates a dispatch's entry point and workgroup counts and
// returns the number of workgroups.
func checkGrid(entry, numEntries int, grid [3]int64) (int64, error) {
	if entry < 0 || entry >= numEntries {
		return 0, status.Errorf(status.OutOfRange, "entry point %d out of range (%d entries)", entry, numEntries)
	}
	for i, n := range grid {
		if n < 0 || n > 1<<31 {
			return 0, status.Errorf(status.InvalidArgument, "workgroup count %d in dimension %d is out of range", n, i)
		}
	}
	return grid[0] * grid[1] * grid[2], nil
}

// runChunks runs workgroups [0, total) in chunks of consecutive
// workgroups (at least minChunk, see job.work) on the device's workers
// when it has them, else all at once on the caller. start is called once
// per worker and returns the function that runs one chunk and a function
// to call when the worker ends. The first error stops the others; a panic
// becomes an INTERNAL error.
func (d *Device) runChunks(total, minChunk int64, start func() (run func(first, n int64) error, done func())) error {
	p, err := d.workerPool()
	if err != nil {
		return err
	}
	if p == nil {
		return runInline(total, start)
	}
	return p.run(total, minChunk, start)
}

// runInline runs all workgroups as one chunk on the caller.
func runInline(total int64, start func() (run func(first, n int64) error, done func())) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	run, done := start()
	defer done()
	return run(0, total)
}

// panicError is the INTERNAL error a panicking workgroup reports.
func panicError(r any) error {
	return status.Errorf(status.Internal, "workgroup panicked: %v", r)
}
