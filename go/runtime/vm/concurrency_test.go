package vm

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// counter is sumTo's module plus @add(x): total += x; return total, on an
// i64 global.
func counter() *module.Module {
	m := sumTo()
	m.Globals = []module.Global{{Name: "total", Kind: module.KindI64, Mutable: true}}
	m.Functions = append(m.Functions, module.Function{
		Name: "add", Args: []module.Kind{module.KindI64}, Results: []module.Kind{module.KindI64},
		Regs: []module.Kind{module.KindI64, module.KindI64, module.KindI64},
		Code: []module.Instr{
			{Op: module.OpGlobalLoad, Index: 0, Dst: []int32{1}},
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{2}, Src: []int32{1, 0}},
			{Op: module.OpGlobalStore, Index: 0, Src: []int32{2}},
			{Op: module.OpReturn, Src: []int32{2}},
		},
	})
	m.Exports = append(m.Exports, module.Export{Name: "add", Function: 1})
	return m
}

// TestConcurrentInvokes: goroutines calling one context get what one
// goroutine gets, and calls updating a global lose no update (run with
// -race: a torn or unsynchronized global is a reported race).
func TestConcurrentInvokes(t *testing.T) {
	c := load(t, counter())
	want := map[int64]int64{}
	for n := int64(0); n < 50; n++ {
		res, err := c.Invoke("m", "sum", []Value{I64(n)})
		if err != nil {
			t.Fatal(err)
		}
		want[n] = res[0].I
	}
	const goroutines, calls = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				n := int64((g*31 + i) % 50)
				res, err := c.Invoke("m", "sum", []Value{I64(n)})
				if err != nil || res[0].I != want[n] {
					errs <- fmt.Errorf("goroutine %d: sum(%d) = %v, %v; want %d", g, n, res, err, want[n])
					return
				}
				// Multiples of 1<<32 plus 1: a torn i64 would show.
				res, err = c.Invoke("m", "add", []Value{I64(1<<32 + 1)})
				if err != nil || res[0].I <= 0 || res[0].I%(1<<32+1) != 0 || res[0].I > goroutines*calls*(1<<32+1) {
					errs <- fmt.Errorf("goroutine %d: add returned %v, %v", g, res, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	res, err := c.Invoke("m", "add", []Value{I64(0)})
	if want := int64(goroutines * calls * (1<<32 + 1)); err != nil || res[0].I != want {
		t.Errorf("after the calls the total is %v, %v; want %d (no update lost)", res, err, want)
	}
}

// TestStateUse: functions that store a mutable global (or call one that
// does) are writers, those that only load one readers, the rest take no
// lock.
func TestStateUse(t *testing.T) {
	m := counter()
	m.Globals = append(m.Globals, module.Global{Name: "k", Kind: module.KindI64}, module.Global{Name: "m", Kind: module.KindI64, Mutable: true})
	fn := func(name string, code ...module.Instr) {
		m.Functions = append(m.Functions, module.Function{Name: name, Results: []module.Kind{module.KindI64},
			Regs: []module.Kind{module.KindI64}, Code: append(code, module.Instr{Op: module.OpReturn, Src: []int32{0}})})
	}
	fn("const", module.Instr{Op: module.OpGlobalLoad, Index: 1, Dst: []int32{0}})             // 2
	fn("reads", module.Instr{Op: module.OpGlobalLoad, Index: 2, Dst: []int32{0}})             // 3
	fn("calls_add", module.Instr{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{0}}, // 4
		module.Instr{Op: module.OpCall, Index: 1, Src: []int32{0}, Dst: []int32{0}})
	fn("calls_reads", module.Instr{Op: module.OpCall, Index: 3, Dst: []int32{0}}) // 5
	got := stateUse(m, nil)
	want := []uint8{stateNone, stateWrite, stateNone, stateRead, stateWrite, stateRead}
	if !slices.Equal(got, want) {
		t.Fatalf("stateUse = %v, want %v", got, want)
	}
}
