package vmvx_test

import (
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

func TestIntegerOps(t *testing.T) {
	nops := len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)
	cases := []struct {
		elem kir.Scalar
		a, b []byte
		n    int
	}{
		{kir.I8, i8s(0, 1, -1, math.MinInt8, math.MaxInt8, 7, -7, 100, -128, 3, 9, -1),
			i8s(0, 0, -1, -1, 2, 8, 2, -3, 1, 7, 100, 0), 12},
		{kir.I16, i16s(0, 1, -1, math.MinInt16, math.MaxInt16, 7, -7, 1000, 3, -300),
			i16s(0, -1, -1, -1, 16, 15, 2, -3, 17, 5), 10},
		{kir.I32, i32s(0, 1, -1, math.MinInt32, math.MaxInt32, 7, -7, 100000, 3, -300, 5),
			i32s(0, 0, -1, -1, 31, 32, 33, -3, -31, 7, 1<<30), 11},
		{kir.I64, i64s(0, 1, -1, math.MinInt64, math.MaxInt64, 7, -7, 1<<40, 3, -300, 9),
			i64s(0, 5, -1, -1, 63, 64, 1<<40, -3, -1<<62, 65, 2), 11},
		{kir.I1, i8s(0, 1, 0, 1), i8s(0, 0, 1, 1), 4},
	}
	for _, c := range cases {
		for _, vector := range []bool{true, false} {
			sz := c.elem.ByteSize()
			diff(t, targettest.IntOps(c.elem, c.n, vector), [3]int64{1, 1, 1}, nil,
				[][]byte{c.a, c.b, make([]byte, nops*c.n*sz), make([]byte, 10*c.n)})
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
