package vmvx_test

import (
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

func TestIntegerOps(t *testing.T) {
	nops := len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)
	for _, c := range targettest.IntCases() {
		n := len(c.A)
		for _, vector := range []bool{true, false} {
			diff(t, targettest.IntOps(c.Elem, n, vector), [3]int64{1, 1, 1}, nil,
				[][]byte{targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B), make([]byte, nops*n*c.Elem.ByteSize()), make([]byte, 10*n)})
		}
	}
}

// TestIntegerScalarIndexMath exercises the interpreter's i64 fast paths
// (add, sub, mul, cmp on scalars) in a loop.
func TestIntegerScalarIndexMath(t *testing.T) {
	k, b := kir.NewKernel("index_math")
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Write}}
	k.NumPushConstants = 2
	n, s := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
	res := b.For(b.Idx(0), n, s, []kir.Value{b.Idx(0), b.Idx(1)}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		lt := b.Cmp(kir.CmpI, kir.PredULT, it[0], b.Idx(100))
		x := b.Select(lt, b.Bin(kir.Add, it[0], b.Bin(kir.Mul, i, i)), b.Bin(kir.Sub, it[0], i))
		return []kir.Value{x, b.Bin(kir.Mul, it[1], b.Idx(-3))}
	})
	b.Store(0, b.Idx(0), res[0])
	b.Store(0, b.Idx(1), res[1])
	for _, pc := range [][]int64{{10, 1}, {37, 3}, {0, 1}, {math.MaxInt64, math.MaxInt64 / 2}} {
		diff(t, k, [3]int64{1, 1, 1}, pc, [][]byte{make([]byte, 16)})
	}
}
