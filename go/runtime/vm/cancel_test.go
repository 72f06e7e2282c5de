package vm

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// spinning returns module "m" with sum (sumTo's) and three endless
// functions: spin (i = 0; while i != -1: i += 1, a loop whose condition
// never turns false in practice), hang (a branch to itself) and outer
// (calls spin, so that the loop runs one frame down).
func spinning() *module.Module {
	m := sumTo()
	i64 := []module.Kind{module.KindI64}
	spin := module.Function{
		Name: "spin", Results: i64,
		Regs: []module.Kind{module.KindI64, module.KindI64, module.KindI64, module.KindI32},
		Code: []module.Instr{
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{0}, Imm: 0},                  // 0: i = 0
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{1}, Imm: 1},                  // 1: one
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{2}, Imm: -1},                 // 2: stop
			{Op: module.OpCmp, Sub: 1, Type: module.TypeI64, Dst: []int32{3}, Src: []int32{0, 2}}, // 3: i != stop
			{Op: module.OpCondBranch, Src: []int32{3}, Index: 5, Index2: 7},                       // 4
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{0}, Src: []int32{0, 1}},
			{Op: module.OpBranch, Index: 3}, // 6: the back-edge
			{Op: module.OpReturn, Src: []int32{0}},
		},
	}
	hang := module.Function{Name: "hang", Code: []module.Instr{{Op: module.OpBranch, Index: 0}}}
	outer := module.Function{
		Name: "outer", Results: i64, Regs: i64,
		Code: []module.Instr{
			{Op: module.OpCall, Index: 1, Dst: []int32{0}},
			{Op: module.OpReturn, Src: []int32{0}},
		},
	}
	m.Functions = append(m.Functions, spin, hang, outer)
	m.Exports = append(m.Exports, module.Export{Name: "spin", Function: 1}, module.Export{Name: "hang", Function: 2}, module.Export{Name: "outer", Function: 3})
	return m
}

// stopLatency starts fn on c with opts, calls stop after 30 ms and returns
// the call's error and how long it took to return after stop.
func stopLatency(t *testing.T, c *Context, fn string, opts *InvokeOptions, stop func()) (error, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.InvokeWith("m", fn, nil, opts)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("m.%s returned before it was stopped: %v", fn, err)
	case <-time.After(30 * time.Millisecond):
	}
	t0 := time.Now()
	stop()
	select {
	case err := <-done:
		return err, time.Since(t0)
	case <-time.After(5 * time.Second):
		t.Fatalf("m.%s still running 5 s after it was stopped", fn)
	}
	return nil, 0
}

// checkUsable: the context still runs calls, bounded or not.
func checkUsable(t *testing.T, c *Context, opts *InvokeOptions) {
	t.Helper()
	res, err := c.InvokeWith("m", "sum", []Value{I64(100)}, opts)
	if err != nil || len(res) != 1 || res[0].I != 4950 {
		t.Fatalf("sum(100) after a stopped call = %v, %v", res, err)
	}
}

func TestCancelStopsEndlessLoops(t *testing.T) {
	c := load(t, spinning())
	for _, fn := range []string{"spin", "hang", "outer"} {
		tok := NewCancelToken()
		err, lat := stopLatency(t, c, fn, &InvokeOptions{Cancel: tok}, tok.Cancel)
		if status.CodeOf(err) != status.Cancelled || !strings.Contains(err.Error(), "call to m."+fn+" cancelled") && !strings.Contains(err.Error(), "call to m.outer cancelled") {
			t.Errorf("m.%s: got %v; want CANCELLED naming the call", fn, err)
		}
		if lat > 100*time.Millisecond {
			t.Errorf("m.%s stopped %v after Cancel; want < 100 ms", fn, lat)
		}
		t.Logf("m.%s: cancelled in %v", fn, lat)
		checkUsable(t, c, nil)
		checkUsable(t, c, &InvokeOptions{Cancel: NewCancelToken()})
	}
}

func TestCancelledTokenFailsAtOnceAndIsSticky(t *testing.T) {
	c := load(t, spinning())
	tok := NewCancelToken()
	tok.Cancel()
	tok.Cancel() // twice is harmless
	for i := 0; i < 2; i++ {
		if _, err := c.InvokeWith("m", "sum", []Value{I64(3)}, &InvokeOptions{Cancel: tok}); status.CodeOf(err) != status.Cancelled {
			t.Fatalf("call %d with a cancelled token: %v; want CANCELLED", i, err)
		}
	}
	if !tok.Cancelled() {
		t.Error("Cancelled() is false after Cancel")
	}
	checkUsable(t, c, &InvokeOptions{})
}

func TestDeadlineStopsEndlessLoop(t *testing.T) {
	c := load(t, spinning())
	const d = 40 * time.Millisecond
	start := time.Now()
	_, err := c.InvokeWith("m", "spin", nil, &InvokeOptions{Deadline: start.Add(d)})
	took := time.Since(start)
	if status.CodeOf(err) != status.DeadlineExceeded || !strings.Contains(err.Error(), "call to m.spin passed its deadline") {
		t.Fatalf("got %v; want DEADLINE_EXCEEDED naming the call and its deadline", err)
	}
	if took < d || took > d+100*time.Millisecond {
		t.Errorf("a %v deadline stopped the call after %v", d, took)
	}
	t.Logf("deadline %v: stopped after %v: %v", d, took, err)
	// A deadline already passed fails before the call runs; a distant one
	// changes nothing.
	if _, err := c.InvokeWith("m", "sum", []Value{I64(3)}, &InvokeOptions{Deadline: time.Now().Add(-time.Second)}); status.CodeOf(err) != status.DeadlineExceeded {
		t.Errorf("passed deadline: %v", err)
	}
	checkUsable(t, c, &InvokeOptions{Deadline: time.Now().Add(time.Hour)})
}

func TestInterruptStopsOnlyRunningCalls(t *testing.T) {
	c := load(t, spinning())
	var intr Interrupt
	intr.Raise() // before the call: not its business
	checkUsable(t, c, &InvokeOptions{Interrupt: &intr})
	err, lat := stopLatency(t, c, "spin", &InvokeOptions{Interrupt: &intr}, intr.Raise)
	if status.CodeOf(err) != status.Cancelled || !strings.Contains(err.Error(), "interrupt") {
		t.Fatalf("got %v; want CANCELLED by an interrupt", err)
	}
	if lat > 100*time.Millisecond {
		t.Errorf("stopped %v after Raise; want < 100 ms", lat)
	}
	checkUsable(t, c, &InvokeOptions{Interrupt: &intr})
}

// TestConcurrentCallsStopIndependently: the checks are per call, so one
// call's token does not stop another running on the same context.
func TestConcurrentCallsStopIndependently(t *testing.T) {
	c := load(t, spinning())
	a, b := NewCancelToken(), NewCancelToken()
	errs := make(chan error, 2)
	for _, tok := range []*CancelToken{a, b} {
		go func() {
			_, err := c.InvokeWith("m", "spin", nil, &InvokeOptions{Cancel: tok})
			errs <- err
		}()
	}
	time.Sleep(30 * time.Millisecond)
	a.Cancel()
	if err := <-errs; status.CodeOf(err) != status.Cancelled {
		t.Fatalf("first stopped call: %v", err)
	}
	select {
	case err := <-errs:
		t.Fatalf("the call with the other token stopped too: %v", err)
	case <-time.After(30 * time.Millisecond):
	}
	b.Cancel()
	if err := <-errs; status.CodeOf(err) != status.Cancelled {
		t.Fatalf("second stopped call: %v", err)
	}
}

// syncCounter is a device that only counts Sync calls (the functions
// here use no other device operation).
type syncCounter struct {
	Device
	syncs atomic.Int32
}

func (d *syncCounter) Sync() error { d.syncs.Add(1); return nil }

func TestStoppedCallWaitsForItsDeviceWork(t *testing.T) {
	mod, err := LoadModule(module.Encode(spinning()))
	if err != nil {
		t.Fatal(err)
	}
	dev := &syncCounter{}
	c := NewContext(dev)
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	_, err = c.InvokeWith("m", "spin", nil, &InvokeOptions{Deadline: time.Now().Add(10 * time.Millisecond)})
	if status.CodeOf(err) != status.DeadlineExceeded {
		t.Fatalf("got %v", err)
	}
	if n := dev.syncs.Load(); n != 1 {
		t.Errorf("the stopped call synced the device %d times; want 1", n)
	}
}

// BenchmarkLoopChecks: the cost of the checks at back-edges (sum(10^5):
// 10^5 back-edges, 8·10^5 instructions).
func BenchmarkLoopChecks(b *testing.B) {
	c := NewContext(nil)
	mod, _ := LoadModule(module.Encode(sumTo()))
	c.Register(mod)
	for _, bc := range []struct {
		name string
		opts *InvokeOptions
	}{
		{"unbounded", nil},
		{"token", &InvokeOptions{Cancel: NewCancelToken()}},
		{"token+interrupt+deadline", &InvokeOptions{Cancel: NewCancelToken(), Interrupt: &Interrupt{}, Deadline: time.Now().Add(time.Hour)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.InvokeWith("m", "sum", []Value{I64(100000)}, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
