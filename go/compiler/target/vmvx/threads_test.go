package vmvx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// threaded: each thread of a (sx, sy, 1) workgroup stores its element into
// shared memory, waits at a barrier, reads its neighbour's, reduces over
// its subgroup, shuffles, and writes the results.
func threaded(sx, sy int) *kir.Kernel {
	k, b := kir.NewKernel("threads")
	k.WorkgroupSize = [3]int{sx, sy, 1}
	n := int64(sx * sy)
	k.Shared = []kir.SharedAlloc{{Elem: kir.F32, Count: n}}
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	f := kir.S(kir.F32)
	tx, ty := b.Query(kir.ThreadID, 0), b.Query(kir.ThreadID, 1)
	lin := b.Bin(kir.Add, tx, b.Bin(kir.Mul, ty, b.Query(kir.WorkgroupSize, 0)))
	base := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(n))
	x := b.Load(0, f, b.Bin(kir.Add, base, lin))
	b.StoreShared(0, lin, x)
	b.Barrier()
	next := b.Bin(kir.RemS, b.Bin(kir.Add, lin, b.Idx(1)), b.Idx(n))
	y := b.LoadShared(0, f, next)
	b.Barrier()
	b.StoreShared(0, lin, b.Bin(kir.Mul, y, x))
	b.Barrier()
	z := b.LoadShared(0, f, b.Bin(kir.RemS, b.Bin(kir.Add, lin, b.Idx(3)), b.Idx(n)))
	sum := b.EmitImm(kir.SubgroupReduce, f, int64(kir.ReduceAdd), z)
	mx := b.EmitImm(kir.SubgroupReduce, f, int64(kir.ReduceMaxF), y)
	lane := b.Emit(kir.LaneID, kir.S(kir.I64))
	sh := b.Emit(kir.SubgroupShuffle, f, x, b.Bin(kir.Add, lane, b.Idx(5)))
	out := b.Bin(kir.Mul, b.Bin(kir.Add, base, lin), b.Idx(4))
	for i, v := range []kir.Value{y, sum, mx, sh} {
		b.Store(1, b.Bin(kir.Add, out, b.Idx(int64(i))), v)
	}
	ids := b.Bin(kir.Mul, b.Bin(kir.Add, base, lin), b.Idx(3))
	for i, v := range []kir.Value{lane, b.Emit(kir.SubgroupSize, kir.S(kir.I64)), b.Query(kir.WorkgroupCount, 0)} {
		b.Store(2, b.Bin(kir.Add, ids, b.Idx(int64(i))), v)
	}
	return k
}

func TestThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, ws := range [][2]int{{4, 1}, {8, 2}, {16, 3}, {1, 1}} {
		n := ws[0] * ws[1]
		const groups = 3
		in := randInts(r, groups*n, 50)
		diff(t, threaded(ws[0], ws[1]), [3]int64{groups, 1, 1}, nil,
			[][]byte{f32s(in...), make([]byte, 4*4*groups*n), make([]byte, 8*3*groups*n)})
	}
}

// TestDivergentBarrier: a barrier only some threads reach is an error in
// both interpreters, not a hang.
func TestDivergentBarrier(t *testing.T) {
	k, b := kir.NewKernel("divergent")
	k.WorkgroupSize = [3]int{4, 1, 1}
	even := b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, b.Query(kir.ThreadID, 0), b.Idx(1)), b.Idx(0))
	b.If(even, nil, func(b *kir.Builder) []kir.Value {
		b.Barrier()
		return nil
	}, nil)
	want := status.FailedPrecondition
	if err := kir.Run(k, [3]int64{1, 1, 1}, nil, nil); status.CodeOf(err) != want {
		t.Errorf("kir.Run: %v, want %v", err, want)
	}
	x := load(t, k)
	if err := x.RunWorkgroup(newState(), 0, [3]int64{}, [3]int64{1, 1, 1}, nil, nil); status.CodeOf(err) != want {
		t.Errorf("RunWorkgroup: %v, want %v", err, want)
	}
}
