package local

import (
	"sync"
	"sync/atomic"

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

// runChunks spreads workgroups [0, total) over workers goroutines, each
// taking chunks of consecutive workgroups until none are left. start is
// called once per worker and returns the function that runs one chunk and
// a function to call when the worker ends. The first error stops the
// others; a panic becomes an INTERNAL error.
func runChunks(workers, total, chunk int64, start func() (run func(first, n int64) error, done func())) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := int64(0); w < workers; w++ {
		wg.Add(1)
		go func(w int64) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[w] = status.Errorf(status.Internal, "workgroup panicked: %v", r)
				}
			}()
			run, done := start()
			defer done()
			for {
				first := next.Add(chunk) - chunk
				if first >= total {
					return
				}
				if err := run(first, min(chunk, total-first)); err != nil {
					errs[w] = err
					next.Store(total) // stop the others
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
