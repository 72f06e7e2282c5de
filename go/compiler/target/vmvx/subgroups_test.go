package vmvx_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
)

// subgroupKernel: each thread of a ws workgroup with subgroups of sg
// (kir.Kernel.SubgroupSize) reads its element of type s and writes, in
// slots of its own, the subgroup reductions of it by every kind that
// applies, shuffles of it (by lane+1, −1, 3·lane−5), a reduction and a
// shuffle inside a uniform loop and inside an If on the workgroup id, and
// in an i64 binding its lane id, the subgroup size and shuffles of its
// linear id.
func subgroupKernel(s kir.Scalar, ws [3]int, sg int) (*kir.Kernel, int64, int64) {
	k, b := kir.NewKernel(fmt.Sprintf("subgroups_%s_%dx%dx%d_%d", s, ws[0], ws[1], ws[2], sg))
	k.WorkgroupSize = ws
	k.SubgroupSize = sg
	threads := int64(ws[0] * ws[1] * ws[2])
	const slots, islots = 16, 4
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	st, i64 := kir.S(s), kir.S(kir.I64)
	tx, ty, tz := b.Query(kir.ThreadID, 0), b.Query(kir.ThreadID, 1), b.Query(kir.ThreadID, 2)
	wx, wy := b.Query(kir.WorkgroupSize, 0), b.Query(kir.WorkgroupSize, 1)
	lin := b.Bin(kir.Add, tx, b.Bin(kir.Mul, wx, b.Bin(kir.Add, ty, b.Bin(kir.Mul, wy, tz))))
	wg := b.Query(kir.WorkgroupID, 0)
	gid := b.Bin(kir.Add, lin, b.Bin(kir.Mul, wg, b.Idx(threads)))
	lane := b.Emit(kir.LaneID, i64)
	x := b.Load(0, st, gid)
	var vals []kir.Value
	for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
		if kir.ReduceKindFits(r, s) {
			vals = append(vals, b.EmitImm(kir.SubgroupReduce, st, int64(r), x))
		}
	}
	for _, l := range []kir.Value{b.Bin(kir.Add, lane, b.Idx(1)), b.Idx(-1), b.Bin(kir.Sub, b.Bin(kir.Mul, lane, b.Idx(3)), b.Idx(5))} {
		vals = append(vals, b.Emit(kir.SubgroupShuffle, st, x, l))
	}
	loop := b.For(b.Idx(0), b.Idx(3), b.Idx(1), []kir.Value{x}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		sh := b.Emit(kir.SubgroupShuffle, st, it[0], b.Bin(kir.Add, lane, b.Bin(kir.Add, i, b.Idx(1))))
		return []kir.Value{b.Bin(kir.Add, sh, b.EmitImm(kir.SubgroupReduce, st, int64(kir.ReduceAdd), it[0]))}
	})
	vals = append(vals, loop[0])
	odd := b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, wg, b.Idx(1)), b.Idx(1))
	vals = append(vals, b.If(odd, []kir.Type{st}, func(b *kir.Builder) []kir.Value {
		return []kir.Value{b.EmitImm(kir.SubgroupReduce, st, int64(kir.ReduceMul), x)}
	}, func(b *kir.Builder) []kir.Value {
		return []kir.Value{b.Emit(kir.SubgroupShuffle, st, x, b.Idx(2))}
	})[0])
	if len(vals) > slots {
		panic("too many values")
	}
	for i, v := range vals {
		b.Store(1, b.Bin(kir.Add, b.Bin(kir.Mul, gid, b.Idx(slots)), b.Idx(int64(i))), v)
	}
	ivals := []kir.Value{
		lane,
		b.Emit(kir.SubgroupSize, i64),
		b.Emit(kir.SubgroupShuffle, i64, lin, b.Bin(kir.Add, lane, b.Idx(1))),
		b.EmitImm(kir.SubgroupReduce, i64, int64(kir.ReduceAdd), lin),
	}
	for i, v := range ivals {
		b.Store(2, b.Bin(kir.Add, b.Bin(kir.Mul, gid, b.Idx(islots)), b.Idx(int64(i))), v)
	}
	return k, slots, islots
}

// TestSubgroupSizes: kir.Run and vmvx agree for every subgroup size a
// kernel may ask for — 8, 16, 32 and 64 in a workgroup of 64 threads,
// partial subgroups, the default — on every element type; vmvx's own
// subgroups are 32 wide, and the others are emulated (through one
// shared array per element type).
func TestSubgroupSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		ws    [3]int
		sgs   []int
		types []kir.Scalar
	}{
		{[3]int{64, 1, 1}, []int{0, 8, 16, 32, 64}, []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64, kir.F16, kir.BF16, kir.F32, kir.F64}},
		{[3]int{16, 4, 1}, []int{8, 16, 32, 64}, []kir.Scalar{kir.F32, kir.I32}},
		{[3]int{4, 4, 4}, []int{8, 16, 64}, []kir.Scalar{kir.F32}},
		{[3]int{48, 1, 1}, []int{0, 8, 16, 32, 64}, []kir.Scalar{kir.F32, kir.I64}},
		{[3]int{5, 3, 1}, []int{4, 8, 16, 32}, []kir.Scalar{kir.I32}},
	}
	const groups = 3
	for _, c := range cases {
		threads := c.ws[0] * c.ws[1] * c.ws[2]
		for _, sg := range c.sgs {
			for _, s := range c.types {
				k, slots, islots := subgroupKernel(s, c.ws, sg)
				n := groups * threads
				out := diff(t, k, [3]int64{groups, 1, 1}, nil, [][]byte{
					bufOf(s, r, n), make([]byte, int(slots)*n*s.ByteSize()), make([]byte, 8*int(islots)*n)})
				// The lane ids and sizes are kir's subgroups.
				size := sg
				if size == 0 {
					size = kir.MaxSubgroupSize
				}
				size = min(size, threads)
				for g := 0; g < n; g++ {
					l := g % threads
					lane := int64(binary.LittleEndian.Uint64(out[2][8*(int(islots)*g):]))
					got := int64(binary.LittleEndian.Uint64(out[2][8*(int(islots)*g+1):]))
					if lane != int64(l%size) || got != int64(size) {
						t.Fatalf("%s: thread %d: lane %d of %d, want %d of %d", k.Name, l, lane, got, l%size, size)
					}
				}
			}
		}
	}
}

// TestSubgroupEmulation: vmvx runs its own 32-wide subgroups natively
// and emulates others with one shared array per element type exchanged.
func TestSubgroupEmulation(t *testing.T) {
	for _, c := range []struct {
		ws       [3]int
		sg       int
		emulated bool
	}{
		{[3]int{64, 1, 1}, 0, false}, {[3]int{64, 1, 1}, 32, false}, {[3]int{16, 1, 1}, 32, false},
		{[3]int{16, 1, 1}, 64, false}, {[3]int{64, 1, 1}, 8, true}, {[3]int{64, 1, 1}, 64, true},
		{[3]int{48, 1, 1}, 64, true}, {[3]int{1, 1, 1}, 8, false},
	} {
		k, _, _ := subgroupKernel(kir.F32, c.ws, c.sg)
		x, err := vmvx.Translate([]*kir.Kernel{k})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if c.emulated {
			want = 2 // f32 and i64
		}
		if got := len(x.Entries[0].Shared) - len(k.Shared); got != want {
			t.Errorf("workgroup %v, subgroups of %d: %d scratch allocations, want %d", c.ws, c.sg, got, want)
		}
	}
}

// TestCooperativeCombine: the shape of codegen's cooperative reductions
// (per-thread strided loops, a subgroup reduction, lane 0 storing to
// shared memory, a barrier, every thread folding the partial sums) for
// the subgroup sizes of GPU targets.
func TestCooperativeCombine(t *testing.T) {
	const threads, n = 64, 1000
	r := rand.New(rand.NewPCG(5, 6))
	for _, sg := range []int{8, 16, 32, 64} {
		k, b := kir.NewKernel(fmt.Sprintf("coop_%d", sg))
		k.WorkgroupSize = [3]int{threads, 1, 1}
		k.SubgroupSize = sg
		k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}}
		k.Shared = []kir.SharedAlloc{{Elem: kir.F32, Count: threads / int64(sg), Scratch: true}}
		f := kir.S(kir.F32)
		tid := b.Query(kir.ThreadID, 0)
		row := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(n))
		part := b.For(tid, b.Idx(n), b.Idx(threads), []kir.Value{b.Float(f, 0)}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
			return []kir.Value{b.Bin(kir.Add, it[0], b.Load(0, f, b.Bin(kir.Add, row, i)))}
		})
		s := b.EmitImm(kir.SubgroupReduce, f, int64(kir.ReduceAdd), part[0])
		lane := b.Emit(kir.LaneID, kir.S(kir.I64))
		b.If(b.Cmp(kir.CmpI, kir.PredEQ, lane, b.Idx(0)), nil, func(b *kir.Builder) []kir.Value {
			b.StoreShared(0, b.Bin(kir.DivS, tid, b.Idx(int64(sg))), s)
			return nil
		}, nil)
		b.Barrier()
		total := b.LoadShared(0, f, b.Idx(0))
		for i := int64(1); i < threads/int64(sg); i++ {
			total = b.Bin(kir.Add, total, b.LoadShared(0, f, b.Idx(i)))
		}
		b.Barrier()
		b.If(b.Cmp(kir.CmpI, kir.PredEQ, tid, b.Idx(0)), nil, func(b *kir.Builder) []kir.Value {
			b.Store(1, b.Query(kir.WorkgroupID, 0), total)
			return nil
		}, nil)
		diff(t, k, [3]int64{4, 1, 1}, nil, [][]byte{f32s(randF32(r, 4*n, 10)...), make([]byte, 4*4)})
	}
}
