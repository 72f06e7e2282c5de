package local

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/status"
)

// runCounting runs total workgroups in chunks on p and returns how often
// each ran.
func runCounting(t *testing.T, p *pool, total, chunk int64) []int32 {
	t.Helper()
	seen := make([]int32, total)
	err := p.run(total, chunk, func() (func(first, n int64) error, func()) {
		return func(first, n int64) error {
			for i := first; i < first+n; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
			return nil
		}, func() {}
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

func TestPoolRunsEveryWorkgroupOnce(t *testing.T) {
	for _, helpers := range []int{1, 3} {
		for _, spin := range []time.Duration{0, defaultSpin} {
			p := newPool(helpers, spin, defaultWarmSpin)
			for _, tc := range [][2]int64{{1, 1}, {2, 1}, {7, 2}, {100, 3}, {1000, 1}, {5, 10}} {
				for rep := 0; rep < 20; rep++ {
					for i, n := range runCounting(t, p, tc[0], tc[1]) {
						if n != 1 {
							t.Fatalf("%d helpers, spin %v, total %d chunk %d: workgroup %d ran %d times", helpers, spin, tc[0], tc[1], i, n)
						}
					}
				}
			}
			p.stop()
		}
	}
}

func TestPoolUsesHelpers(t *testing.T) {
	// Each chunk waits until two workers are inside a chunk at once,
	// which only happens if a helper takes part.
	p := newPool(1, defaultSpin, defaultWarmSpin)
	defer p.stop()
	var inside atomic.Int32
	var both atomic.Bool
	err := p.run(64, 1, func() (func(first, n int64) error, func()) {
		return func(first, n int64) error {
			if inside.Add(1) >= 2 {
				both.Store(true)
			}
			for deadline := time.Now().Add(5 * time.Millisecond); !both.Load() && time.Now().Before(deadline); {
				runtime.Gosched()
			}
			inside.Add(-1)
			return nil
		}, func() {}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !both.Load() {
		t.Errorf("no two workers ran chunks at the same time")
	}
}

func TestPoolReportsErrorsAndPanics(t *testing.T) {
	p := newPool(3, defaultSpin, defaultWarmSpin)
	defer p.stop()
	bad := errors.New("workgroup 37 failed")
	for rep := 0; rep < 20; rep++ {
		err := p.run(100, 1, func() (func(first, n int64) error, func()) {
			return func(first, n int64) error {
				if first <= 37 && 37 < first+n {
					return bad
				}
				return nil
			}, func() {}
		})
		if err != bad {
			t.Fatalf("error %v, want %v", err, bad)
		}
		err = p.run(100, 1, func() (func(first, n int64) error, func()) {
			return func(first, n int64) error {
				if first <= 63 && 63 < first+n {
					panic("boom")
				}
				return nil
			}, func() {}
		})
		if status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("panic gave %v, want INTERNAL naming the panic", err)
		}
	}
	// The pool still works after failures.
	for i, n := range runCounting(t, p, 50, 1) {
		if n != 1 {
			t.Fatalf("after failures: workgroup %d ran %d times", i, n)
		}
	}
}

func TestPoolConcurrentDispatchers(t *testing.T) {
	p := newPool(1, defaultSpin, defaultWarmSpin)
	defer p.stop()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := 0; rep < 50; rep++ {
				for i, n := range runCounting(t, p, 33, 2) {
					if n != 1 {
						t.Errorf("workgroup %d ran %d times", i, n)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// waitGoroutines waits until at most n goroutines run.
func waitGoroutines(n int) int {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return runtime.NumGoroutine()
}

func TestDeviceCloseStopsWorkers(t *testing.T) {
	before := waitGoroutines(runtime.NumGoroutine())
	for _, park := range []bool{false, true} {
		dev, err := NewDriver("local-task", 4).CreateDevice(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := dev.(*Device)
		p, err := d.workerPool()
		if err != nil {
			t.Fatal(err)
		}
		runCounting(t, p, 10, 1)
		if n := runtime.NumGoroutine(); n < before+3 {
			t.Fatalf("%d goroutines with a 4-worker pool, %d before", n, before)
		}
		if park {
			time.Sleep(2 * defaultSpin) // the helpers park
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if n := waitGoroutines(before); n > before {
			t.Fatalf("%d goroutines after Close, %d before", n, before)
		}
		if _, err := d.workerPool(); status.CodeOf(err) != status.FailedPrecondition {
			t.Errorf("dispatch after Close: %v, want FAILED_PRECONDITION", err)
		}
		d.Close() // closing twice is harmless
	}
}

func TestSyncDeviceHasNoPool(t *testing.T) {
	dev, err := NewDriver("local-sync", 1).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if p, err := dev.(*Device).workerPool(); p != nil || err != nil {
		t.Errorf("local-sync pool %v, %v; want none", p, err)
	}
}

// BenchmarkPoolDispatch measures a dispatch of 8 workgroups of about
// 2 us each: inline on the caller and on a pool with one helper.
func BenchmarkPoolDispatch(b *testing.B) {
	work := func() (func(first, n int64) error, func()) {
		return func(first, n int64) error {
			for t0 := time.Now(); time.Since(t0) < time.Duration(n)*2*time.Microsecond; {
			}
			return nil
		}, func() {}
	}
	b.Run("inline", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runInline(8, work)
		}
	})
	for _, spin := range []time.Duration{0, defaultSpin} {
		b.Run("pool/spin="+spin.String(), func(b *testing.B) {
			p := newPool(1, spin, defaultWarmSpin)
			defer p.stop()
			for i := 0; i < b.N; i++ {
				p.run(8, 1, work)
			}
		})
	}
}

func TestPoolStopsPromptly(t *testing.T) {
	// Stop right after the start (helpers not yet running), after a job,
	// and with the helpers asleep.
	for i := 0; i < 30; i++ {
		p := newPool(4, defaultSpin, defaultWarmSpin)
		if i%3 > 0 {
			runCounting(t, p, 10, 1)
		}
		if i%3 == 2 {
			time.Sleep(2 * defaultSpin)
		}
		done := make(chan struct{})
		go func() { p.stop(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("case %d: stop still waits for the helpers after 10s", i)
		}
	}
}

func TestUnreachableDeviceStopsWorkers(t *testing.T) {
	before := waitGoroutines(runtime.NumGoroutine())
	func() {
		dev, err := NewDriver("local-task", 3).CreateDevice(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := dev.(*Device).workerPool()
		if err != nil {
			t.Fatal(err)
		}
		runCounting(t, p, 10, 1)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the unclosed device became unreachable, %d before", n, before)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func TestPoolWarmKeepsHelpersAwake(t *testing.T) {
	// A warm invocation keeps helpers polling for a minute here, so that
	// the checks below do not depend on the machine's timing.
	p := newPool(2, defaultSpin, time.Minute)
	defer p.stop()
	asleep := func() bool { return p.sleepers.Load() == 2 }
	if !waitFor(asleep) {
		t.Fatalf("idle helpers did not go to sleep (%d asleep)", p.sleepers.Load())
	}
	// Warming wakes the sleeping helpers, and they keep polling past the
	// plain spin while the invocation lasts.
	done := p.warm()
	if !waitFor(func() bool { return p.sleepers.Load() == 0 }) {
		t.Fatalf("warm did not wake the helpers (%d asleep)", p.sleepers.Load())
	}
	time.Sleep(4 * defaultSpin)
	if n := p.sleepers.Load(); n != 0 {
		t.Errorf("%d helpers asleep %v into a warm invocation", n, 4*defaultSpin)
	}
	for i, n := range runCounting(t, p, 40, 1) {
		if n != 1 {
			t.Fatalf("warm: workgroup %d ran %d times", i, n)
		}
	}
	// After the invocation the helpers sleep again (once their current
	// minute of polling notices it has ended: it checks the warm count).
	done()
	if !waitFor(asleep) {
		t.Fatalf("helpers still awake after the invocation ended (%d asleep)", p.sleepers.Load())
	}
}
