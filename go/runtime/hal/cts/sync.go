package cts

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

func testSemaphore(t *testing.T, dev hal.Device) {
	s, err := dev.CreateSemaphore(5)
	must(t, "create", err)
	if v, err := s.Query(); v != 5 || err != nil {
		t.Fatalf("query: %d, %v; want 5", v, err)
	}
	must(t, "signal 7", s.Signal(7))
	if v, _ := s.Query(); v != 7 {
		t.Fatalf("after signal 7: %d", v)
	}
	wantCode(t, "signal to a lower value", s.Signal(6), status.OutOfRange)
	wantCode(t, "signal to the same value", s.Signal(7), status.OutOfRange)
	must(t, "wait for a reached value", s.Wait(7, hal.Immediate))
	must(t, "wait for a past value", s.Wait(3, hal.NoDeadline))
	wantCode(t, "poll for a value not reached", s.Wait(8, hal.Immediate), status.DeadlineExceeded)
	t0 := time.Now()
	wantCode(t, "timed wait", s.Wait(8, time.Now().Add(30*time.Millisecond)), status.DeadlineExceeded)
	if d := time.Since(t0); d < 25*time.Millisecond || d > 5*time.Second {
		t.Errorf("a 30 ms wait took %v", d)
	}
	// Failure: every wait, past or future, sees it with its code.
	s.Fail(status.New(status.DataLoss, "TEST FAILURE"))
	s.Fail(status.New(status.Internal, "a second failure is ignored"))
	_, err = s.Query()
	if status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "TEST FAILURE") {
		t.Errorf("query of a failed semaphore: %v", err)
	}
	err = s.Wait(100, hal.NoDeadline)
	if status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "TEST FAILURE") {
		t.Errorf("wait on a failed semaphore: %v, want the failure", err)
	}
	if err := s.Signal(100); err == nil {
		t.Error("signaling a failed semaphore succeeded")
	}
}

func testSemaphoreAcrossGoroutines(t *testing.T, dev hal.Device) {
	s := semaphore(t, dev)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Wait(uint64(i%4+1), time.Now().Add(10*time.Second))
		}()
	}
	for v := uint64(1); v <= 4; v++ {
		time.Sleep(2 * time.Millisecond)
		must(t, "signal", s.Signal(v))
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("waiter %d: %v", i, err)
		}
	}
	// A failure wakes a waiter blocked forever.
	f := semaphore(t, dev)
	done := make(chan error, 1)
	go func() { done <- f.Wait(1, hal.NoDeadline) }()
	time.Sleep(5 * time.Millisecond)
	f.Fail(status.New(status.Unknown, "async failure"))
	select {
	case err := <-done:
		wantCode(t, "waiter woken by a failure", err, status.Unknown)
	case <-time.After(10 * time.Second):
		t.Fatal("a failure did not wake the waiter")
	}
}

func testFence(t *testing.T, dev hal.Device) {
	s1, s2 := semaphore(t, dev), semaphore(t, dev)
	f := hal.NewFence(2)
	must(t, "insert", f.Insert(s1, 1))
	must(t, "insert same semaphore", f.Insert(s1, 3))
	if f.Len() != 1 || f.Timepoints()[0].Value != 3 {
		t.Fatalf("inserting a semaphore twice: %v", f.Timepoints())
	}
	must(t, "insert", f.Insert(s2, 2))
	wantCode(t, "insert past capacity", f.Insert(semaphore(t, dev), 1), status.ResourceExhausted)
	if ok, err := f.Query(); ok || err != nil {
		t.Fatalf("query of an unreached fence: %v %v", ok, err)
	}
	wantCode(t, "poll an unreached fence", f.Wait(hal.Immediate), status.DeadlineExceeded)
	j := hal.JoinFences(hal.FenceAt(s1, 1), hal.FenceAt(s2, 4), hal.FenceAt(s1, 2))
	if j.Len() != 2 {
		t.Fatalf("joined fence has %d timepoints, want 2", j.Len())
	}
	e := hal.FenceAt(s1, 1)
	must(t, "extend", e.Extend(hal.FenceAt(s2, 1)))
	if e.Len() != 2 || e.String() != "fence(2)" {
		t.Fatalf("extended fence: %s", e)
	}
	must(t, "signal", f.Signal())
	if v, _ := s1.Query(); v != 3 {
		t.Fatalf("fence signal left s1 at %d", v)
	}
	must(t, "wait signaled fence", f.Wait(hal.Immediate))
	wantCode(t, "wait joined fence past its values", j.Wait(hal.Immediate), status.DeadlineExceeded)
	must(t, "signal s2", s2.Signal(4))
	must(t, "wait joined fence", j.Wait(hal.NoDeadline))
	g := hal.FenceAt(semaphore(t, dev), 1)
	g.Fail(status.New(status.Aborted, "fence failure"))
	wantCode(t, "wait failed fence", g.Wait(hal.NoDeadline), status.Aborted)
	if _, err := g.Query(); status.CodeOf(err) != status.Aborted {
		t.Errorf("query failed fence: %v", err)
	}
}
