package targettest

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestWorkgroupIDFollowsNestedLoops(t *testing.T) {
	grid := [3]int64{3, 2, 4}
	i := int64(0)
	for z := int64(0); z < grid[2]; z++ {
		for y := int64(0); y < grid[1]; y++ {
			for x := int64(0); x < grid[0]; x++ {
				if got, want := WorkgroupID(i, grid), [3]int64{x, y, z}; got != want {
					t.Fatalf("WorkgroupID(%d) = %v, want %v", i, got, want)
				}
				i++
			}
		}
	}
}

func TestConcurrentlyVisitsEachOnce(t *testing.T) {
	const total = 37
	var seen [total]atomic.Int32
	err := Concurrently(4, total, func(w int, i int64) error {
		if int64(w) != i%4 {
			t.Errorf("workgroup %d ran on goroutine %d", i, w)
		}
		seen[i].Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Fatalf("workgroup %d ran %d times", i, n)
		}
	}
	bad := errors.New("bad")
	if err := Concurrently(4, total, func(_ int, i int64) error {
		if i == 10 {
			return bad
		}
		return nil
	}); err != bad {
		t.Fatalf("error %v, want %v", err, bad)
	}
}
