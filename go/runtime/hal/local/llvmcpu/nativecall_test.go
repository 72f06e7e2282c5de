package llvmcpu

import (
	"encoding/binary"
	"io"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// deepStackIR is a kernel that writes 1 MiB of its own stack (volatile
// stores, so none is elided) and then, for each workgroup i of its range,
// out[i] = buf[i mod 2^17] + 1 = 3*(i mod 2^17) + 1: far more stack than a
// goroutine starts with, so a kernel run on the goroutine's stack would
// corrupt memory or fault.
const deepStackIR = `define i64 @gree_entry_0(ptr %d, i64 %f, i64 %n) {
entry:
  %buf = alloca [131072 x i64], align 64
  %bindings = load ptr, ptr %d
  %out = load ptr, ptr %bindings
  br label %fill
fill:
  %j = phi i64 [0, %entry], [%j1, %fill]
  %p = getelementptr i64, ptr %buf, i64 %j
  %v = mul i64 %j, 3
  store volatile i64 %v, ptr %p
  %j1 = add i64 %j, 1
  %more = icmp ult i64 %j1, 131072
  br i1 %more, label %fill, label %head
head:
  %end = add i64 %f, %n
  br label %loop
loop:
  %i = phi i64 [%f, %head], [%i1, %body]
  %c = icmp ult i64 %i, %end
  br i1 %c, label %body, label %done
body:
  %k = and i64 %i, 131071
  %q = getelementptr i64, ptr %buf, i64 %k
  %x = load volatile i64, ptr %q
  %y = add i64 %x, 1
  %o = getelementptr i64, ptr %out, i64 %i
  store i64 %y, ptr %o
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i64 0
}
`

// TestNativeCallsStackAndGC runs a kernel that needs a deep stack from
// many goroutines at once while the garbage collector and Go's CPU
// profiler (its signals land in the kernels) run: every workgroup's
// output is right, so kernels run on stacks of their own (or through
// purego, off linux/amd64), a collection waits for them and a profiling
// signal in one is harmless.
func TestNativeCallsStackAndGC(t *testing.T) {
	x := &schema.Executable{Triple: hostArch() + "-unknown-linux-gnu", CPU: "generic",
		Entries: []schema.Entry{{Name: "k", Symbol: "gree_entry_0", NumBindings: 1}}, Object: linkIR(t, deepStackIR)}
	e, err := Load(encode(t, x))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const total, goroutines, rounds = 1 << 12, 8, 200
	out := make([]byte, 8*total)
	c, err := e.Prepare(0, [3]int64{total, 1, 1}, nil, [][]byte{out})
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatal(err)
	}
	defer pprof.StopCPUProfile()
	stop := make(chan struct{})
	gcDone := make(chan struct{})
	go func() { // collections while kernels run
		defer close(gcDone)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			per := int64(total / goroutines)
			for r := 0; r < rounds; r++ {
				if err := c.Run(int64(g)*per, per); err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	<-gcDone
	c.Release()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := 0; i < total; i++ {
		if got, want := binary.LittleEndian.Uint64(out[8*i:]), uint64(3*(i%131072)+1); got != want {
			t.Fatalf("out[%d] = %d, want %d", i, got, want)
		}
	}
}
