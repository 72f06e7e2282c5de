package halmodule

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
	"github.com/gree-ml/gree/go/runtime/modules/check"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// Calls from several goroutines on one context: every result must equal
// what one goroutine computes for the same inputs, while the calls'
// buffers go back to the shared cache and are recycled across calls.

const concurrentProgram = `
func.func @ew(%a: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<8192xf32> {
  %m = arith.mulf %a, %b : tensor<8192xf32>
  %t = math.tanh %m : tensor<8192xf32>
  %s = arith.addf %t, %a : tensor<8192xf32>
  return %s : tensor<8192xf32>
}
func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %x = arith.addf %m, %a : tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}
util.global private mutable @counter = dense<0.0> : tensor<f32>
func.func @bump() -> tensor<f32> {
  %v = util.global.load @counter : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = arith.addf %v, %one : tensor<f32>
  util.global.store %n, @counter : tensor<f32>
  return %n : tensor<f32>
}
util.global private mutable @total = 0 : i64
func.func @accumulate(%x: i64) -> i64 {
  %v = util.global.load @total : i64
  %n = arith.addi %v, %x : i64
  util.global.store %n, @total : i64
  return %n : i64
}
func.func @expect(%x: i32) {
  check.expect_true(%x) : i32
  return
}
`

// compileFor compiles concurrentProgram for target, skipping when the
// target cannot compile here.
func compileFor(t testing.TB, target string) *vm.Module {
	t.Helper()
	if err := compiler.TargetUnavailable(target); err != nil {
		t.Skipf("%s is not available here: %v", target, err)
	}
	out, err := compiler.Compile([]byte(concurrentProgram), compiler.Options{Filename: "concurrent.mlir", Backends: []string{target}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.LoadModule(out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// f32View returns a host buffer view of vals with shape.
func f32View(t testing.TB, shape []int64, vals []float32) *hal.BufferView {
	data := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	v, err := hal.HostBufferViewOf(shape, hal.ElementFloat32, data)
	if err != nil {
		t.Fatal(err)
	}
	// Released when the test ends, not by the garbage collector during a
	// later test (whose count of live host bytes it would upset).
	t.Cleanup(func() { v.Buffer.Release() })
	return v
}

// inputs returns the seed-th pair of arguments of fn.
func inputs(t testing.TB, fn string, seed int) []vm.Value {
	shape, n := []int64{8192}, 8192
	if fn == "mm" {
		shape, n = []int64{64, 64}, 64*64
	}
	var out []vm.Value
	for k := 0; k < 2; k++ {
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(math.Sin(float64(i*(k+3)+seed*7919))) * 1.5
		}
		out = append(out, vm.RefValue(f32View(t, shape, vals)))
	}
	return out
}

// resultBytes copies the bytes of a call's one buffer-view result.
func resultBytes(t testing.TB, res []vm.Value) []byte {
	if len(res) != 1 {
		t.Fatalf("%d results, want 1", len(res))
	}
	return bytes.Clone(res[0].Ref.(*hal.BufferView).Bytes())
}

func TestConcurrentCallsMatchOneGoroutine(t *testing.T) {
	const goroutines, calls, seeds = 8, 40, 4
	for _, target := range []string{"vmvx", "llvm-cpu"} {
		for _, driver := range []string{"local-sync", "local-task"} {
			t.Run(target+"/"+driver, func(t *testing.T) {
				m := compileFor(t, target)
				dev, err := local.NewDriver(driver, 2).CreateDevice(0, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer dev.Close()
				c := vm.NewContext(New(dev))
				defer c.Close()
				if err := c.Register(m); err != nil {
					t.Fatal(err)
				}
				name := m.Name()
				// One goroutine first: the results every later call must
				// reproduce exactly.
				want := map[string][][]byte{}
				args := map[string][][]vm.Value{}
				for _, fn := range []string{"ew", "mm"} {
					for s := 0; s < seeds; s++ {
						in := inputs(t, fn, s)
						res, err := c.Invoke(name, fn, in)
						if err != nil {
							t.Fatal(err)
						}
						want[fn] = append(want[fn], resultBytes(t, res))
						args[fn] = append(args[fn], in)
						c.Release(res, in)
					}
				}
				var wg sync.WaitGroup
				errs := make(chan error, goroutines)
				for g := 0; g < goroutines; g++ {
					wg.Add(1)
					go func(g int) {
						defer wg.Done()
						for i := 0; i < calls; i++ {
							fn := []string{"ew", "mm"}[(g+i)%2]
							s := (g + i) % seeds
							res, err := c.Invoke(name, fn, args[fn][s])
							if err != nil {
								errs <- fmt.Errorf("goroutine %d call %d (%s): %w", g, i, fn, err)
								return
							}
							if got := res[0].Ref.(*hal.BufferView).Bytes(); !bytes.Equal(got, want[fn][s]) {
								errs <- fmt.Errorf("goroutine %d call %d: %s(seed %d) differs from the one-goroutine result", g, i, fn, s)
								return
							}
							// Back to the shared cache: other goroutines'
							// calls recycle the storage.
							c.Release(res, args[fn][s])
						}
					}(g)
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		}
	}
}

func TestConcurrentCallsOnModuleGlobals(t *testing.T) {
	const goroutines, calls = 8, 50
	m := compileFor(t, "vmvx")
	dev, err := local.NewDriver("local-task", 2).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	b := New(dev)
	c := vm.NewContext(b)
	defer c.Close()
	if err := c.Register(m); err != nil {
		t.Fatal(err)
	}
	name := m.Name()
	var wg sync.WaitGroup
	errs := make(chan error, 2*goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				// Calls updating a global are ordered (the context's
				// state lock): none fails, none loses an update.
				res, err := c.Invoke(name, "accumulate", []vm.Value{vm.I64(1)})
				if err != nil {
					errs <- fmt.Errorf("accumulate: %w", err)
					return
				}
				if n := res[0].I; n < 1 || n > goroutines*calls {
					errs <- fmt.Errorf("accumulate returned %d, outside [1, %d]", n, goroutines*calls)
					return
				}
				res, err = c.Invoke(name, "bump", nil)
				if err != nil {
					errs <- fmt.Errorf("bump: %w", err)
					return
				}
				v := math.Float32frombits(binary.LittleEndian.Uint32(res[0].Ref.(*hal.BufferView).Bytes()))
				// The result is the global's new buffer too: only the
				// global's reference is left, as when a caller drops its
				// result.
				b.Disown([]any{res[0].Ref}, nil)
				if v < 1 || v > goroutines*calls || v != float32(int(v)) {
					errs <- fmt.Errorf("bump returned %v, not a count in [1, %d]", v, goroutines*calls)
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
	res, err := c.Invoke(name, "accumulate", []vm.Value{vm.I64(0)})
	if err != nil || res[0].I != goroutines*calls {
		t.Fatalf("after the calls accumulate(0) = %v, %v; want %d", res, err, goroutines*calls)
	}
	res, err = c.Invoke(name, "bump", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := math.Float32frombits(binary.LittleEndian.Uint32(res[0].Ref.(*hal.BufferView).Bytes())); v != goroutines*calls+1 {
		t.Fatalf("after the calls bump() = %v, want %d", v, goroutines*calls+1)
	}
	b.Disown([]any{res[0].Ref}, nil)
}

func TestCheckFailuresBelongToTheirCall(t *testing.T) {
	const goroutines, calls = 8, 30
	if err := compiler.TargetUnavailable("vmvx"); err != nil {
		t.Skip(err)
	}
	out, err := compiler.Compile([]byte(concurrentProgram), compiler.Options{Filename: "concurrent.mlir", Backends: []string{"vmvx"}})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := vm.LoadModule(out)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := local.NewDriver("local-sync", 1).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	b := New(dev)
	c := vm.NewContext(b)
	defer c.Close()
	chk := check.New(b.HostView)
	if err := c.RegisterNative(chk); err != nil {
		t.Fatal(err)
	}
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	name := mod.Name()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				pass := (g+i)%2 == 0
				x := int32(0)
				if pass {
					x = int32(g + 1)
				}
				_, err := c.Invoke(name, "expect", []vm.Value{vm.I32(x)})
				switch {
				case pass && err != nil:
					errs <- fmt.Errorf("a passing call failed (another call's failure?): %v", err)
					return
				case !pass && (status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "Expected 0 to be nonzero.") || strings.Count(err.Error(), "Expected") != 1):
					errs <- fmt.Errorf("a failing call returned %v, want FAILED_PRECONDITION with its one failure", err)
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
	if f := chk.Failures(); len(f) != 0 {
		t.Errorf("failures of calls also went to the module: %v", f)
	}
}

// BenchmarkConcurrentCalls measures small calls on one context from
// GOMAXPROCS goroutines (-cpu 1,2,…); /serialized takes one lock around
// every call, as contexts did before calls ran concurrently.
func BenchmarkConcurrentCalls(b *testing.B) {
	for _, serialized := range []bool{false, true} {
		name := "concurrent"
		if serialized {
			name = "serialized"
		}
		b.Run(name, func(b *testing.B) {
			m := compileFor(b, "vmvx")
			dev, err := local.NewDriver("local-sync", 1).CreateDevice(0, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Close()
			c := vm.NewContext(New(dev))
			defer c.Close()
			if err := c.Register(m); err != nil {
				b.Fatal(err)
			}
			in := inputs(b, "ew", 0)
			var mu sync.Mutex
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if serialized {
						mu.Lock()
					}
					res, err := c.Invoke(m.Name(), "ew", in)
					if serialized {
						mu.Unlock()
					}
					if err != nil {
						b.Error(err)
						return
					}
					c.Release(res, in)
				}
			})
		})
	}
}
