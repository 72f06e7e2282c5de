package gpu_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/status"
)

// The tests of int64_test.go and int64_programs_test.go run every kernel
// with and without index narrowing; these check what is particular to it.

// TestNarrowIndicesKeepsData checks that NarrowIndices alone leaves i64
// data as it is, narrows every index and computes the same, with push
// constants within the int32 range.
func TestNarrowIndicesKeepsData(t *testing.T) {
	k, b := kir.NewKernel("mixed")
	k.NumPushConstants = 1
	k.WorkgroupSize = [3]int{8, 1, 1}
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.I64, Access: kir.Write}}
	i := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(8)), b.Query(kir.ThreadID, 0))
	n := b.Query(kir.PushConstant, 0)
	x := b.Load(0, kir.S(kir.I64), i)
	y := b.Bin(kir.Add, b.Bin(kir.Mul, x, b.Idx(1<<33)), b.Bin(kir.Sub, n, i)) // data and an index
	b.Store(1, b.Bin(kir.RemU, y, b.Idx(16)), i)                               // data as an offset
	b.Store(1, b.Bin(kir.Add, i, b.Idx(16)), y)
	xs := intValues()[:32]
	in := [][]byte{targettest.EncInts(kir.I64, xs), make([]byte, 8*32)}
	checkLowered(t, k, [3]int64{2, 1, 1}, []int64{-7}, in, lowering{name: "narrow only", lower: gpu.NarrowIndices, narrow: true, keepsData: true})
	var loads, indices int
	var walk func(*kir.Block)
	walk = func(blk *kir.Block) {
		for _, op := range blk.Ops {
			switch op.Kind {
			case kir.Load:
				if k.Types[op.Results[0]].Elem == kir.I64 {
					loads++
				}
			case kir.WorkgroupID, kir.ThreadID, kir.PushConstant:
				if k.Types[op.Results[0]].Elem == kir.I32 {
					indices++
				}
			}
			for _, r := range op.Regions {
				walk(r)
			}
		}
	}
	walk(k.Body)
	if loads != 1 || indices != 3 {
		t.Fatalf("%d i64 loads and %d i32 queries, want 1 and 3\n%s", loads, indices, k)
	}
}

// TestNarrowIndicesRejectsWideLoopBounds checks the error for a loop
// bound that is a constant beyond 32 bits.
func TestNarrowIndicesRejectsWideLoopBounds(t *testing.T) {
	k, b := kir.NewKernel("wide_loop")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Write}}
	b.For(b.Idx(0), b.Idx(1<<40), b.Idx(1<<39), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
		b.Store(0, b.Idx(0), b.Float(kir.S(kir.F32), 1))
		return nil
	})
	err := gpu.NarrowIndices(k)
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "loop bound") {
		t.Fatalf("got %v, want FAILED_PRECONDITION about the loop bound", err)
	}
}

// TestStrategyWithoutNarrowIndices runs the GPU strategy tests with i64
// index arithmetic (the emulation of i64 data alone); the other tests run
// them with LowerInt64's default, index narrowing.
func TestStrategyWithoutNarrowIndices(t *testing.T) {
	gpu.WithIndexNarrowing(false, func() error {
		t.Run("legalized", TestLegalizedKernelsMatchTileKernels)
		t.Run("cpu", TestGPUStrategyAgreesWithCPU)
		return nil
	})
}
