package kir

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// divergentKernels are kernels whose barrier or subgroup op the threads
// of a group do not reach together, in a workgroup of 8 threads with
// subgroups of 8 (the same shapes as go/compiler/target/vmvx's tests).
func divergentKernels() map[string]*Kernel {
	ks := map[string]*Kernel{}
	mk := func(name string, body func(b *Builder, tid, lane Value)) {
		k, b := NewKernel(name)
		k.WorkgroupSize = [3]int{8, 1, 1}
		k.SubgroupSize = 8
		k.Bindings = []Binding{{Elem: I64, Access: ReadWrite}}
		body(b, b.Query(ThreadID, 0), b.Emit(LaneID, S(I64)))
		ks[name] = k
	}
	odd := func(b *Builder, v Value) Value { return b.Cmp(CmpI, PredEQ, b.Bin(And, v, b.Idx(1)), b.Idx(1)) }
	mk("barrier_in_if", func(b *Builder, tid, lane Value) {
		b.If(odd(b, tid), nil, func(b *Builder) []Value { b.Barrier(); return nil }, nil)
	})
	mk("two_barriers", func(b *Builder, tid, lane Value) {
		b.If(odd(b, tid), nil, func(b *Builder) []Value { b.Barrier(); return nil },
			func(b *Builder) []Value { b.Barrier(); return nil })
	})
	// Lanes 0-3 reduce inside the If while lanes 4-7 reach the reduction
	// after it: Run used to combine the two.
	mk("reduce_in_if", func(b *Builder, tid, lane Value) {
		b.If(b.Cmp(CmpI, PredSLT, lane, b.Idx(4)), nil, func(b *Builder) []Value {
			b.Store(0, tid, b.EmitImm(SubgroupReduce, S(I64), int64(ReduceAdd), tid))
			return nil
		}, nil)
		b.Store(0, b.Bin(Add, tid, b.Idx(8)), b.EmitImm(SubgroupReduce, S(I64), int64(ReduceAdd), tid))
	})
	mk("shuffle_in_loop", func(b *Builder, tid, lane Value) {
		b.For(b.Idx(0), tid, b.Idx(1), nil, func(b *Builder, i Value, _ []Value) []Value {
			b.Store(0, tid, b.Emit(SubgroupShuffle, S(I64), i, b.Idx(0)))
			return nil
		})
	})
	mk("barrier_on_data", func(b *Builder, tid, lane Value) {
		x := b.Load(0, S(I64), tid)
		b.If(b.Cmp(CmpI, PredSGT, x, b.Idx(0)), nil, func(b *Builder) []Value { b.Barrier(); return nil }, nil)
	})
	return ks
}

// divergentData is the binding divergentKernels run on: element i holds
// i mod 2, so that barrier_on_data diverges.
func divergentData() []byte {
	buf := make([]byte, 8*16)
	for i := 0; i < 16; i++ {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(i%2))
	}
	return buf
}

// TestDivergentSync: Run refuses the divergent kernels (Verify); run
// without verification reports FAILED_PRECONDITION for each, never a value
// or a hang.
func TestDivergentSync(t *testing.T) {
	for name, k := range divergentKernels() {
		if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{divergentData()}); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "uniform control flow") {
			t.Errorf("%s: Run = %v, want INVALID_ARGUMENT", name, err)
		}
		for i := 0; i < 20; i++ { // goroutine schedules vary
			err := run(k, [3]int64{1, 1, 1}, nil, [][]byte{divergentData()})
			if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), notReached) {
				t.Fatalf("%s: run = %v, want FAILED_PRECONDITION", name, err)
			}
		}
	}
}

// subgroupProbe: every thread of a workgroup of ws threads with subgroups
// of sg stores, at 8·linear, its lane id, the subgroup size, the sum and
// the maximum of linear ids over its subgroup, and the linear ids of
// lanes lane+1, −1 and 3·lane−5 (mod the subgroup's threads) read by
// shuffles.
func subgroupProbe(ws [3]int, sg int) *Kernel {
	k, b := NewKernel(fmt.Sprintf("probe_%d", sg))
	k.WorkgroupSize = ws
	k.SubgroupSize = sg
	k.Bindings = []Binding{{Elem: I64, Access: Write}}
	tx, ty, tz := b.Query(ThreadID, 0), b.Query(ThreadID, 1), b.Query(ThreadID, 2)
	wx, wy := b.Query(WorkgroupSize, 0), b.Query(WorkgroupSize, 1)
	lin := b.Bin(Add, tx, b.Bin(Mul, wx, b.Bin(Add, ty, b.Bin(Mul, wy, tz))))
	lane := b.Emit(LaneID, S(I64))
	vals := []Value{
		lane,
		b.Emit(SubgroupSize, S(I64)),
		b.EmitImm(SubgroupReduce, S(I64), int64(ReduceAdd), lin),
		b.EmitImm(SubgroupReduce, S(I64), int64(ReduceMaxS), lin),
		b.Emit(SubgroupShuffle, S(I64), lin, b.Bin(Add, lane, b.Idx(1))),
		b.Emit(SubgroupShuffle, S(I64), lin, b.Idx(-1)),
		b.Emit(SubgroupShuffle, S(I64), lin, b.Bin(Sub, b.Bin(Mul, lane, b.Idx(3)), b.Idx(5))),
	}
	base := b.Bin(Mul, lin, b.Idx(8))
	for i, v := range vals {
		b.Store(0, b.Bin(Add, base, b.Idx(int64(i))), v)
	}
	return k
}

// probeWant is what subgroupProbe stores for linear thread l.
func probeWant(l, threads, sg int64) []int64 {
	if sg <= 0 {
		sg = MaxSubgroupSize
	}
	sg = min(sg, threads)
	base := l / sg * sg
	n := min(sg, threads-base)
	lane := l - base
	mod := func(x int64) int64 { return base + (x%n+n)%n }
	return []int64{lane, sg, n*base + n*(n-1)/2, base + n - 1, mod(lane + 1), mod(-1), mod(3*lane - 5)}
}

// TestSubgroupSizes: Run honours Kernel.SubgroupSize (0: MaxSubgroupSize)
// in full and partial subgroups.
func TestSubgroupSizes(t *testing.T) {
	for _, c := range []struct {
		ws  [3]int
		sgs []int
	}{
		{[3]int{64, 1, 1}, []int{0, 1, 8, 16, 32, 64, 128}},
		{[3]int{16, 2, 2}, []int{8, 16, 32, 64}},
		{[3]int{48, 1, 1}, []int{0, 16, 32, 64}},
		{[3]int{5, 3, 1}, []int{4, 8, 32}},
	} {
		threads := int64(c.ws[0] * c.ws[1] * c.ws[2])
		for _, sg := range c.sgs {
			k := subgroupProbe(c.ws, sg)
			out := make([]byte, 8*8*threads)
			if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{out}); err != nil {
				t.Fatal(err)
			}
			for l := int64(0); l < threads; l++ {
				for i, w := range probeWant(l, threads, int64(sg)) {
					if got := int64(binary.LittleEndian.Uint64(out[8*(8*l+int64(i)):])); got != w {
						t.Fatalf("workgroup %v, subgroups of %d: thread %d value %d = %d, want %d", c.ws, sg, l, i, got, w)
					}
				}
			}
		}
	}
}

// TestOutOfBoundsReported: every kind of access outside its buffer fails
// the run with OUT_OF_RANGE naming the op and the binding or allocation,
// in one-thread and in multi-thread workgroups (where the other threads
// wait at a barrier).
func TestOutOfBoundsReported(t *testing.T) {
	type tc struct {
		name  string
		build func(b *Builder, off, tid Value) // thread tid touches only its elements
		words []string
	}
	f4 := V(F32, 4)
	cases := []tc{
		{"load", func(b *Builder, off, tid Value) { b.Store(0, tid, b.Reduce(ReduceAdd, b.Load(1, f4, off))) }, []string{"load", "binding 1"}},
		{"store", func(b *Builder, off, tid Value) { b.Store(0, b.Bin(Add, off, tid), b.Float(S(F32), 1)) }, []string{"store", "binding 0"}},
		{"load_strided", func(b *Builder, off, tid Value) {
			b.Store(0, tid, b.Reduce(ReduceAdd, b.LoadStrided(1, f4, b.Idx(0), off)))
		}, []string{"load_strided", "binding 1"}},
		{"store_strided", func(b *Builder, off, tid Value) {
			b.StoreStrided(0, b.Bin(Mul, tid, b.Idx(4)), off, b.Float(f4, 1))
		}, []string{"store_strided", "binding 0"}},
		{"load_shared", func(b *Builder, off, tid Value) { b.Store(0, tid, b.LoadShared(0, S(F32), off)) }, []string{"load_shared", "shared allocation 0"}},
		{"store_shared", func(b *Builder, off, tid Value) { b.StoreShared(0, b.Bin(Add, off, tid), b.Float(S(F32), 1)) }, []string{"store_shared", "shared allocation 0"}},
		{"contract", func(b *Builder, off, tid Value) {
			var a [12]Value
			for i, x := range []int64{0, 4, 1, 0, 4, 1, 0, 4, 1, 4, 4, 4} {
				a[i] = b.Idx(x)
			}
			a[6] = off // C's offset
			b.Contract(1, 1, 0, a, 0)
		}, []string{"contract", "binding 0"}},
		{"dwconv", func(b *Builder, off, tid Value) {
			var a [DWConvArgs]Value
			// One channel, 4×4 input and output, a 1×1 kernel.
			for i, x := range []int64{0, 16, 4, 0, 1, 1, 1, 0, 16, 4, 1, 4, 4, 4, 4, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0} {
				a[i] = b.Idx(x)
			}
			a[7] = off // the output's offset
			b.DWConv(1, 1, 0, a, NoDWConvEpilogue)
		}, []string{"dwconv", "binding 0"}},
	}
	for _, c := range cases {
		for _, threads := range []int{1, 4} {
			if threads > 1 && (c.name == "contract" || c.name == "dwconv") {
				continue // tile ops: one-thread workgroups only
			}
			k, b := NewKernel("oob_" + c.name)
			k.WorkgroupSize = [3]int{threads, 1, 1}
			k.NumPushConstants = 1
			k.Bindings = []Binding{{Elem: F32, Access: ReadWrite}, {Elem: F32, Access: Read}}
			k.Shared = []SharedAlloc{{Elem: F32, Count: 8}}
			off, tid := b.Query(PushConstant, 0), b.Query(ThreadID, 0)
			if threads > 1 {
				// Thread 1 faults; the others wait at the barrier.
				off = b.Select(b.Cmp(CmpI, PredEQ, tid, b.Idx(1)), off, b.Idx(0))
			}
			c.build(b, off, tid)
			b.Barrier()
			bufs := func() [][]byte { return [][]byte{make([]byte, 4*16), make([]byte, 4*16)} }
			if err := Run(k, [3]int64{1, 1, 1}, []int64{0}, bufs()); err != nil {
				t.Fatalf("%s, %d threads, in bounds: %v", c.name, threads, err)
			}
			for _, off := range []int64{-2, 40, math.MaxInt64} {
				err := Run(k, [3]int64{1, 1, 1}, []int64{off}, bufs())
				if status.CodeOf(err) != status.OutOfRange {
					t.Fatalf("%s, %d threads, offset %d: %v, want OUT_OF_RANGE", c.name, threads, off, err)
				}
				for _, w := range c.words {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s, %d threads: %q does not mention %q", c.name, threads, err, w)
					}
				}
			}
		}
	}
}

// TestBarrierOrdersSharedMemory: values stored to shared memory before a
// barrier are seen by every thread after it, in every round.
func TestBarrierOrdersSharedMemory(t *testing.T) {
	k, b := NewKernel("rounds")
	k.WorkgroupSize = [3]int{32, 2, 1}
	k.Shared = []SharedAlloc{{Elem: I64, Count: 64}}
	k.Bindings = []Binding{{Elem: I64, Access: Write}}
	lin := b.Bin(Add, b.Query(ThreadID, 0), b.Bin(Mul, b.Query(ThreadID, 1), b.Idx(32)))
	r := b.For(b.Idx(0), b.Idx(50), b.Idx(1), []Value{lin}, func(b *Builder, i Value, it []Value) []Value {
		b.StoreShared(0, lin, it[0])
		b.Barrier()
		next := b.LoadShared(0, S(I64), b.Bin(RemS, b.Bin(Add, lin, b.Idx(1)), b.Idx(64)))
		b.Barrier()
		return []Value{next}
	})
	b.Store(0, lin, r[0])
	out := make([]byte, 8*64)
	if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{out}); err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 64; l++ {
		if got := int64(binary.LittleEndian.Uint64(out[8*l:])); got != int64((l+50)%64) {
			t.Fatalf("thread %d ends with %d, want %d", l, got, (l+50)%64)
		}
	}
}
