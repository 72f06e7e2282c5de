package gpu_test

import (
	"encoding/binary"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
)

// loopKernel sums i·i+c over i = lo, lo+3, … < hi (push constants 0 and
// 1) with an inner constant loop of c = 0..1, storing the sum and the
// iteration count.
func loopKernel() *kir.Kernel {
	k, b := kir.NewKernel("loops")
	k.NumPushConstants = 2
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Write}}
	lo, hi := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
	res := b.For(lo, hi, b.Idx(3), []kir.Value{b.Idx(0), b.Idx(0)}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		sq := b.Bin(kir.Mul, i, i)
		in := b.For(b.Idx(0), b.Idx(2), b.Idx(1), []kir.Value{it[0]}, func(b *kir.Builder, c kir.Value, acc []kir.Value) []kir.Value {
			return []kir.Value{b.Bin(kir.Add, acc[0], b.Bin(kir.Add, sq, c))}
		})
		return []kir.Value{in[0], b.Bin(kir.Add, it[1], b.Idx(1))}
	})
	b.Store(0, b.Idx(0), res[0])
	b.Store(0, b.Idx(1), res[1])
	b.Append(&kir.Op{Kind: kir.Yield})
	return k
}

func TestUnrollInnerLoopsKeepsResults(t *testing.T) {
	run := func(k *kir.Kernel, lo, hi int64) [2]int64 {
		out := make([]byte, 16)
		if err := kir.Run(k, [3]int64{1, 1, 1}, []int64{lo, hi}, [][]byte{out}); err != nil {
			t.Fatal(err)
		}
		return [2]int64{int64(binary.LittleEndian.Uint64(out)), int64(binary.LittleEndian.Uint64(out[8:]))}
	}
	ref := loopKernel()
	un := loopKernel()
	gpu.UnrollInnerLoops(un, 8)
	if err := kir.Verify(un); err != nil {
		t.Fatalf("%v\n%s", err, un)
	}
	for lo := int64(-5); lo < 5; lo++ {
		for hi := lo - 3; hi < lo+80; hi++ {
			if got, want := run(un, lo, hi), run(ref, lo, hi); got != want {
				t.Fatalf("lo %d hi %d: got %v, want %v\n%s", lo, hi, got, want, un)
			}
		}
	}
}

func TestLoopIterations(t *testing.T) {
	k := loopKernel()
	if _, ok := gpu.LoopIterations(k); ok {
		t.Fatal("a loop over push constants has a known trip count")
	}
	k, b := kir.NewKernel("static")
	b.For(b.Idx(0), b.Idx(100), b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		b.For(b.Idx(0), b.Idx(10), b.Idx(2), nil, func(b *kir.Builder, j kir.Value, _ []kir.Value) []kir.Value { return nil })
		return nil
	})
	b.Append(&kir.Op{Kind: kir.Yield})
	if n, ok := gpu.LoopIterations(k); !ok || n != 100*(1+5) {
		t.Fatalf("got %d, %v; want 600", n, ok)
	}
}

// TestLoopIterationsThroughSignedDivisions: a thread's element range whose
// length may be negative (its start past the end) still bounds the loop
// when divided by a positive step, so a short element-wise kernel is not
// unrolled for lavapipe's budget.
func TestLoopIterationsThroughSignedDivisions(t *testing.T) {
	k, b := kir.NewKernel("short")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Write}}
	k.WorkgroupSize = [3]int{64, 1, 1}
	k.Grid[0] = kir.GridDim{Static: 3, Tile: 192}
	tid := b.Query(kir.ThreadID, 0)
	start := b.Bin(kir.Mul, tid, b.Idx(3))
	end := b.Bin(kir.MinS, b.Bin(kir.Add, start, b.Idx(3)), b.Idx(3))
	n := b.Bin(kir.DivS, b.Bin(kir.Sub, end, start), b.Idx(4)) // may be negative
	stop := b.Bin(kir.Add, start, b.Bin(kir.Mul, n, b.Idx(4)))
	b.For(start, stop, b.Idx(4), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		b.Store(0, i, b.Float(kir.S(kir.F32), 1))
		return nil
	})
	got, ok := gpu.LoopIterations(k)
	// Intervals lose that the start and the stop move together: the
	// bound is the start's range over the step, far under any budget.
	if !ok || got > 64 {
		t.Fatalf("LoopIterations = %d, %v; want at most 64, true", got, ok)
	}
}
