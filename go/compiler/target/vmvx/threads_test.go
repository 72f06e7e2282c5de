package vmvx_test

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/vmvx"
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

// divergentKernels are kernels whose barrier or subgroup op the threads
// of a group do not reach together, in a workgroup of 8 threads with
// subgroups of 8 (the shapes of go/compiler/kir's TestDivergentSync).
func divergentKernels() map[string]*kir.Kernel {
	ks := map[string]*kir.Kernel{}
	mk := func(name string, body func(b *kir.Builder, tid, lane kir.Value)) {
		k, b := kir.NewKernel(name)
		k.WorkgroupSize = [3]int{8, 1, 1}
		k.SubgroupSize = 8
		k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.ReadWrite}}
		body(b, b.Query(kir.ThreadID, 0), b.Emit(kir.LaneID, kir.S(kir.I64)))
		ks[name] = k
	}
	i64 := kir.S(kir.I64)
	odd := func(b *kir.Builder, v kir.Value) kir.Value {
		return b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, v, b.Idx(1)), b.Idx(1))
	}
	barrier := func(b *kir.Builder) []kir.Value { b.Barrier(); return nil }
	mk("barrier_in_if", func(b *kir.Builder, tid, lane kir.Value) { b.If(odd(b, tid), nil, barrier, nil) })
	mk("two_barriers", func(b *kir.Builder, tid, lane kir.Value) { b.If(odd(b, tid), nil, barrier, barrier) })
	mk("reduce_in_if", func(b *kir.Builder, tid, lane kir.Value) {
		b.If(b.Cmp(kir.CmpI, kir.PredSLT, lane, b.Idx(4)), nil, func(b *kir.Builder) []kir.Value {
			b.Store(0, tid, b.EmitImm(kir.SubgroupReduce, i64, int64(kir.ReduceAdd), tid))
			return nil
		}, nil)
		b.Store(0, b.Bin(kir.Add, tid, b.Idx(8)), b.EmitImm(kir.SubgroupReduce, i64, int64(kir.ReduceAdd), tid))
	})
	mk("shuffle_in_loop", func(b *kir.Builder, tid, lane kir.Value) {
		b.For(b.Idx(0), tid, b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			b.Store(0, tid, b.Emit(kir.SubgroupShuffle, i64, i, b.Idx(0)))
			return nil
		})
	})
	mk("barrier_on_data", func(b *kir.Builder, tid, lane kir.Value) {
		x := b.Load(0, i64, tid)
		b.If(b.Cmp(kir.CmpI, kir.PredSGT, x, b.Idx(0)), nil, barrier, nil)
	})
	return ks
}

// TestDivergentKernels: both interpreters refuse a kernel whose barrier or
// subgroup op is in divergent control flow (kir.Verify, INVALID_ARGUMENT);
// the vmvx runtime, given the bytecode anyway, reports FAILED_PRECONDITION
// as kir's interpreter does without verification (kir's
// TestDivergentSync), never values or a hang.
func TestDivergentKernels(t *testing.T) {
	data := func() [][]byte {
		buf := make([]byte, 8*16)
		for i := 0; i < 16; i++ {
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(i%2))
		}
		return [][]byte{buf}
	}
	for name, k := range divergentKernels() {
		errKir := kir.Run(k, [3]int64{1, 1, 1}, nil, data())
		_, errEmit := vmvx.Emit([]*kir.Kernel{k})
		for _, err := range []error{errKir, errEmit} {
			if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "uniform control flow") {
				t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
			}
		}
		code, err := vmvx.EmitUnverified(k)
		if err != nil {
			t.Fatal(err)
		}
		x, err := rt.Load(code)
		if err != nil {
			t.Fatal(err)
		}
		err = x.RunWorkgroup(newState(), 0, [3]int64{}, [3]int64{1, 1, 1}, nil, data())
		if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "not reached by every thread of its group") {
			t.Errorf("%s: RunWorkgroup = %v, want FAILED_PRECONDITION", name, err)
		}
	}
}
