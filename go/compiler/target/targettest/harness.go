package targettest

import (
	"bytes"
	"sync"
)

// Clone copies every buffer of bs, so that a kernel run on the copy leaves
// the inputs as they were.
func Clone(bs [][]byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = bytes.Clone(b)
	}
	return out
}

// Concurrently runs run(w, i) for every workgroup i < total on workers
// goroutines, dealing the workgroups round-robin (goroutine w runs the i
// with i%workers == w, in order, and stops at its first error). It returns
// the first error of the lowest-numbered goroutine that failed.
func Concurrently(workers int, total int64, run func(w int, i int64) error) error {
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(w); i < total && errs[w] == nil; i += int64(workers) {
				errs[w] = run(w, i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// WorkgroupID is the id of the i-th workgroup of grid, x fastest: the
// order of nested z, y, x loops.
func WorkgroupID(i int64, grid [3]int64) [3]int64 {
	return [3]int64{i % grid[0], i / grid[0] % grid[1], i / (grid[0] * grid[1])}
}
