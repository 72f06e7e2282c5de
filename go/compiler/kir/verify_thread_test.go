package kir

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// threadKernel starts a kernel of 64 threads (two subgroups) with an f32
// binding and a shared allocation of 64 f32, returning the thread id and
// the lane id.
func threadKernel(name string) (*Kernel, *Builder, Value, Value) {
	k, b := NewKernel(name)
	k.WorkgroupSize = [3]int{64, 1, 1}
	k.NumPushConstants = 1
	k.Bindings = []Binding{{Elem: F32, Access: ReadWrite}}
	k.Shared = []SharedAlloc{{Elem: F32, Count: 64}}
	return k, b, b.Query(ThreadID, 0), b.Emit(LaneID, S(I64))
}

func f32Reduce(b *Builder, x Value) Value {
	return b.EmitImm(SubgroupReduce, S(F32), int64(ReduceAdd), x)
}

func nop(*Builder) []Value { return nil }

// TestVerifyTileOpsOneThread: Contract and DWConv verify in one-thread
// workgroups only.
func TestVerifyTileOpsOneThread(t *testing.T) {
	contract := func(ws [3]int) *Kernel {
		k, b := NewKernel("mm")
		k.WorkgroupSize = ws
		k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: ReadWrite}}
		var args [12]Value
		for i := range args {
			args[i] = b.Idx(1)
		}
		b.Contract(0, 1, 2, args, 0)
		return k
	}
	dwconv := func(ws [3]int) *Kernel {
		k, b := NewKernel("dw")
		k.WorkgroupSize = ws
		k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: Write}}
		var args [DWConvArgs]Value
		for i := range args {
			args[i] = b.Idx(1)
		}
		b.DWConv(0, 1, 2, args, NoDWConvEpilogue)
		return k
	}
	for _, mk := range []func([3]int) *Kernel{contract, dwconv} {
		if err := Verify(mk([3]int{1, 1, 1})); err != nil {
			t.Errorf("one thread: %v", err)
		}
		for _, ws := range [][3]int{{4, 1, 1}, {1, 2, 1}, {1, 1, 8}} {
			err := Verify(mk(ws))
			if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "one-thread workgroups only") {
				t.Errorf("workgroup %v: %v", ws, err)
			}
		}
	}
	// Run refuses the kernel of the racing 4-thread contraction too.
	k := contract([3]int{4, 1, 1})
	bufs := [][]byte{make([]byte, 4), make([]byte, 4), make([]byte, 4)}
	if err := Run(k, [3]int64{1, 1, 1}, nil, bufs); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Run: %v", err)
	}
}

// TestVerifyUniformAccepts: synchronizing ops in uniform control flow,
// including the shapes of codegen's cooperative reductions.
func TestVerifyUniformAccepts(t *testing.T) {
	cases := map[string]func(b *Builder, tid, lane Value){
		"top level": func(b *Builder, tid, lane Value) {
			b.Barrier()
			b.Emit(SubgroupShuffle, S(F32), f32Reduce(b, b.Float(S(F32), 1)), b.Bin(Add, lane, b.Idx(1)))
		},
		"cooperative combine": func(b *Builder, tid, lane Value) {
			// Each thread's strided loop (bounds from its id) ends before
			// the subgroup reduction; lane 0 stores, then a barrier.
			part := b.For(tid, b.Query(PushConstant, 0), b.Idx(64), []Value{b.Float(S(F32), 0)}, func(b *Builder, i Value, it []Value) []Value {
				return []Value{b.Bin(Add, it[0], b.Load(0, S(F32), i))}
			})
			s := f32Reduce(b, part[0])
			b.If(b.Cmp(CmpI, PredEQ, lane, b.Idx(0)), nil, func(b *Builder) []Value {
				b.StoreShared(0, b.Bin(DivS, tid, b.Idx(32)), s)
				return nil
			}, nil)
			b.Barrier()
			b.LoadShared(0, S(F32), b.Idx(0))
			b.Barrier()
		},
		"tree combine": func(b *Builder, tid, lane Value) {
			b.StoreShared(0, tid, b.Float(S(F32), 1))
			b.Barrier()
			b.For(b.Idx(0), b.Idx(6), b.Idx(1), nil, func(b *Builder, i Value, _ []Value) []Value {
				s := b.Bin(ShrS, b.Idx(32), i)
				b.If(b.Cmp(CmpI, PredSLT, tid, s), nil, func(b *Builder) []Value {
					x := b.LoadShared(0, S(F32), tid)
					y := b.LoadShared(0, S(F32), b.Bin(Add, tid, s))
					b.StoreShared(0, tid, b.Bin(Add, x, y))
					return nil
				}, nil)
				b.Barrier()
				return nil
			})
		},
		"uniform if and for": func(b *Builder, tid, lane Value) {
			n := b.Bin(Mul, b.Query(PushConstant, 0), b.Query(WorkgroupSize, 0))
			b.For(b.Query(WorkgroupID, 0), n, b.Emit(SubgroupSize, S(I64)), nil, func(b *Builder, i Value, _ []Value) []Value {
				b.If(b.Cmp(CmpI, PredSLT, i, b.Query(WorkgroupCount, 1)), nil, func(b *Builder) []Value {
					b.Barrier()
					f32Reduce(b, b.Float(S(F32), 2))
					return nil
				}, nop)
				return nil
			})
		},
		"uniform carried values and results": func(b *Builder, tid, lane Value) {
			r := b.For(b.Idx(0), b.Idx(4), b.Idx(1), []Value{b.Idx(0), b.Float(S(F32), 0)}, func(b *Builder, i Value, it []Value) []Value {
				b.If(b.Cmp(CmpI, PredSGT, it[0], b.Idx(1)), nil, func(b *Builder) []Value {
					b.Barrier()
					return nil
				}, nil)
				// it[1] takes a non-uniform value, it[0] stays uniform.
				return []Value{b.Bin(Add, it[0], i), b.Load(0, S(F32), tid)}
			})
			c := b.If(b.Cmp(CmpI, PredEQ, r[0], b.Query(PushConstant, 0)), []Type{S(I64)}, func(b *Builder) []Value {
				return []Value{b.Idx(1)}
			}, func(b *Builder) []Value { return []Value{b.Query(WorkgroupID, 2)} })
			b.If(b.Cmp(CmpI, PredNE, c[0], b.Idx(0)), nil, func(b *Builder) []Value {
				b.Emit(SubgroupShuffle, S(F32), r[1], b.Idx(0))
				return nil
			}, nil)
		},
		"non-uniform if without sync": func(b *Builder, tid, lane Value) {
			b.If(b.Cmp(CmpI, PredSLT, tid, b.Idx(3)), nil, func(b *Builder) []Value {
				b.Store(0, tid, b.Float(S(F32), 1))
				return nil
			}, nil)
			b.Barrier()
		},
	}
	for name, body := range cases {
		k, b, tid, lane := threadKernel(name)
		body(b, tid, lane)
		if err := Verify(k); err != nil {
			t.Errorf("%s: %v\n%s", name, err, k)
		}
	}
}

// TestVerifyUniformRejects: a synchronizing op nested in control flow
// that depends on the thread, the lane, a subgroup op or a load.
func TestVerifyUniformRejects(t *testing.T) {
	sync := map[string]func(b *Builder, lane Value){
		"barrier":          func(b *Builder, lane Value) { b.Barrier() },
		"subgroup_reduce":  func(b *Builder, lane Value) { f32Reduce(b, b.Float(S(F32), 1)) },
		"subgroup_shuffle": func(b *Builder, lane Value) { b.Emit(SubgroupShuffle, S(I64), lane, b.Idx(0)) },
	}
	conds := map[string]func(b *Builder, tid, lane Value) Value{
		"thread id": func(b *Builder, tid, lane Value) Value { return b.Cmp(CmpI, PredSLT, tid, b.Idx(2)) },
		"lane id":   func(b *Builder, tid, lane Value) Value { return b.Cmp(CmpI, PredSLT, lane, b.Idx(4)) },
		"load": func(b *Builder, tid, lane Value) Value {
			return b.Cmp(CmpF, FPredOGT, b.Load(0, S(F32), b.Idx(0)), b.Float(S(F32), 0))
		},
		"shared load": func(b *Builder, tid, lane Value) Value {
			return b.Cmp(CmpF, FPredOGT, b.LoadShared(0, S(F32), b.Idx(0)), b.Float(S(F32), 0))
		},
		"subgroup reduce": func(b *Builder, tid, lane Value) Value {
			return b.Cmp(CmpF, FPredOGT, f32Reduce(b, b.Float(S(F32), 1)), b.Float(S(F32), 0))
		},
		"shuffle": func(b *Builder, tid, lane Value) Value {
			return b.Cmp(CmpI, PredEQ, b.Emit(SubgroupShuffle, S(I64), b.Idx(1), b.Idx(0)), b.Idx(1))
		},
		"select": func(b *Builder, tid, lane Value) Value {
			return b.Select(b.Cmp(CmpI, PredEQ, tid, b.Idx(0)), b.Int(S(I1), 1), b.Int(S(I1), 0))
		},
		"if result": func(b *Builder, tid, lane Value) Value {
			r := b.If(b.Cmp(CmpI, PredEQ, tid, b.Idx(0)), []Type{S(I1)}, func(b *Builder) []Value {
				return []Value{b.Int(S(I1), 1)}
			}, func(b *Builder) []Value { return []Value{b.Int(S(I1), 1)} })
			return r[0]
		},
		"for result": func(b *Builder, tid, lane Value) Value {
			r := b.For(b.Idx(0), b.Idx(2), b.Idx(1), []Value{b.Idx(0)}, func(b *Builder, i Value, it []Value) []Value {
				return []Value{b.Bin(Add, it[0], lane)}
			})
			return b.Cmp(CmpI, PredEQ, r[0], b.Idx(0))
		},
	}
	for sname, s := range sync {
		for cname, cond := range conds {
			k, b, tid, lane := threadKernel(cname)
			c := cond(b, tid, lane)
			b.If(c, nil, func(b *Builder) []Value { return nil }, func(b *Builder) []Value {
				s(b, lane)
				return nil
			})
			wantRejected(t, k, sname+" under "+cname, s2kind(sname), "(if), whose condition")
		}
		// For bounds: lo, hi and step.
		for i := 0; i < 3; i++ {
			k, b, tid, lane := threadKernel("for")
			bounds := []Value{b.Idx(0), b.Idx(8), b.Idx(1)}
			bounds[i] = b.Bin(Add, bounds[i], tid)
			b.For(bounds[0], bounds[1], bounds[2], nil, func(b *Builder, _ Value, _ []Value) []Value {
				s(b, lane)
				return nil
			})
			wantRejected(t, k, sname+" in a for", s2kind(sname), "(for), whose bounds")
		}
	}
	// Nesting: a uniform If inside a divergent one inside a uniform For;
	// the message names the divergent If (op #9).
	k, b, tid, _ := threadKernel("nested")
	b.For(b.Idx(0), b.Idx(2), b.Idx(1), nil, func(b *Builder, _ Value, _ []Value) []Value {
		b.If(b.Cmp(CmpI, PredEQ, tid, b.Idx(0)), nil, func(b *Builder) []Value {
			b.If(b.Cmp(CmpI, PredEQ, b.Query(WorkgroupID, 0), b.Idx(0)), nil, func(b *Builder) []Value {
				b.Barrier()
				return nil
			}, nil)
			return nil
		}, nil)
		return nil
	})
	wantRejected(t, k, "nested", "(barrier)", "nested in op #9 (if)")
	// A loop-carried value that becomes non-uniform in a later iteration.
	k, b, tid, _ = threadKernel("carried")
	b.For(b.Idx(0), b.Idx(4), b.Idx(1), []Value{b.Idx(0)}, func(b *Builder, i Value, it []Value) []Value {
		b.If(b.Cmp(CmpI, PredSGT, it[0], b.Idx(0)), nil, func(b *Builder) []Value {
			b.Barrier()
			return nil
		}, nil)
		return []Value{b.Bin(Add, b.Bin(Add, it[0], i), b.Bin(Mul, b.Bin(Add, i, i), tid))}
	})
	wantRejected(t, k, "carried", "(barrier)", "(if), whose condition")
	// The rule is static: it holds in a one-thread workgroup too.
	k, b, tid, _ = threadKernel("one")
	k.WorkgroupSize = [3]int{1, 1, 1}
	b.If(b.Cmp(CmpI, PredEQ, tid, b.Idx(0)), nil, func(b *Builder) []Value {
		b.Barrier()
		return nil
	}, nil)
	wantRejected(t, k, "one thread", "(barrier)", "uniform control flow")
}

func s2kind(name string) string { return "(" + name + ")" }

func wantRejected(t *testing.T, k *Kernel, what string, words ...string) {
	t.Helper()
	err := Verify(k)
	if status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("%s: Verify = %v, want INVALID_ARGUMENT\n%s", what, err, k)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not mention %q", what, err, w)
		}
	}
}
