package spirv_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/status"
)

func TestVectors(t *testing.T) {
	all := append(append([]kir.Scalar{}, intTypes...), floatTypes...)
	for _, s := range all {
		for n := 1; n <= 16; n++ {
			k, b := kir.NewKernel(fmt.Sprintf("vec_%s_%d", s, n))
			k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
			vt := typ(s, n)
			x := b.Load(0, vt, b.Idx(0))
			sc := b.EmitImm(kir.Extract, kir.S(s), int64(n-1), x)
			v := b.Emit(kir.Broadcast, vt, sc)
			v = b.EmitImm(kir.Insert, vt, 0, v, b.EmitImm(kir.Extract, kir.S(s), 0, x))
			b.Store(1, b.Idx(0), v)
			b.Store(2, b.Idx(0), b.Emit(kir.LaneIota, typ(kir.I64, n)))
			for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
				if kir.ReduceKindFits(r, s) {
					b.Store(1, b.Idx(int64(n)), b.Reduce(r, x))
				}
			}
			st := b.Idx(3)
			b.StoreStrided(1, b.Idx(1), st, b.LoadStrided(0, vt, b.Idx(2), st))
			emit(t, k)
		}
	}
}

func TestControlFlow(t *testing.T) {
	k, b := kir.NewKernel("loops")
	k.NumPushConstants = 2
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.ReadWrite}, {Elem: kir.I1, Access: kir.Read}}
	n, step := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
	acc0 := b.Float(kir.V(kir.F32, 4), 0)
	cnt0 := b.Int(kir.S(kir.I32), 0)
	res := b.For(b.Idx(0), n, step, []kir.Value{acc0, cnt0}, func(b *kir.Builder, iv kir.Value, it []kir.Value) []kir.Value {
		x := b.Load(0, kir.V(kir.F32, 4), iv)
		c := b.Load(1, kir.S(kir.I1), iv)
		r := b.If(c, []kir.Type{kir.V(kir.F32, 4), kir.S(kir.I32)}, func(b *kir.Builder) []kir.Value {
			inner := b.For(b.Idx(0), b.Idx(3), b.Idx(1), []kir.Value{x}, func(b *kir.Builder, j kir.Value, it2 []kir.Value) []kir.Value {
				d := b.If(b.Cmp(kir.CmpI, kir.PredEQ, j, b.Idx(1)), []kir.Type{kir.V(kir.F32, 4)}, func(b *kir.Builder) []kir.Value {
					return []kir.Value{b.Bin(kir.Mul, it2[0], it2[0])}
				}, func(b *kir.Builder) []kir.Value { return []kir.Value{it2[0]} })
				return []kir.Value{d[0]}
			})
			return []kir.Value{b.Bin(kir.Add, it[0], inner[0]), b.Bin(kir.Add, it[1], b.Int(kir.S(kir.I32), 1))}
		}, func(b *kir.Builder) []kir.Value { return []kir.Value{it[0], it[1]} })
		b.If(c, nil, func(b *kir.Builder) []kir.Value {
			b.Store(0, iv, x)
			return nil
		}, nil)
		return r
	})
	b.Store(0, b.Idx(0), res[0])
	b.Store(0, b.Idx(8), b.Emit(kir.SIToFP, kir.S(kir.F32), res[1]))
	e := emit(t, k)
	if !e.Reports() || e.NumPushConstants != 2 {
		t.Fatalf("entry %+v", e)
	}
}

func TestThreadOps(t *testing.T) {
	for _, s := range []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64, kir.F16, kir.BF16, kir.F32, kir.F64} {
		k, b := kir.NewKernel("threads_" + s.String())
		k.WorkgroupSize = [3]int{16, 4, 1}
		k.Bindings = []kir.Binding{{Elem: s, Access: kir.ReadWrite}, {Elem: kir.I64, Access: kir.Write}}
		k.Shared = []kir.SharedAlloc{{Elem: s, Count: 64}, {Elem: s, Count: 64, Scratch: true}}
		tx, ty := b.Query(kir.ThreadID, 0), b.Query(kir.ThreadID, 1)
		lin := b.Bin(kir.Add, tx, b.Bin(kir.Mul, ty, b.Query(kir.WorkgroupSize, 0)))
		x := b.Load(0, kir.S(s), lin)
		b.StoreShared(0, lin, x)
		b.StoreShared(1, b.Idx(3), x)
		b.Barrier()
		y := b.LoadShared(0, kir.S(s), b.Bin(kir.Sub, b.Idx(63), lin))
		y2 := b.LoadShared(1, kir.V(s, 2), b.Idx(2))
		for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
			if kir.ReduceKindFits(r, s) {
				y = b.EmitImm(kir.SubgroupReduce, kir.S(s), int64(r), y)
			}
		}
		y = b.Emit(kir.SubgroupShuffle, kir.S(s), y, b.Bin(kir.Sub, lin, b.Idx(5)))
		b.Store(0, lin, y)
		b.Store(0, b.Bin(kir.Add, lin, b.Idx(64)), y2)
		b.Store(1, lin, b.Emit(kir.LaneID, kir.S(kir.I64)))
		b.Store(1, b.Idx(64), b.Emit(kir.SubgroupSize, kir.S(kir.I64)))
		b.Store(1, b.Idx(65), b.Query(kir.WorkgroupCount, 2))
		e := emit(t, k)
		if e.SubgroupSize != 32 || e.SharedBytes == 0 || e.WorkgroupSize != [3]int{16, 4, 1} {
			t.Fatalf("entry %+v", e)
		}
	}
}

func TestCapabilities(t *testing.T) {
	k, b := kir.NewKernel("k")
	k.Bindings = []kir.Binding{{Elem: kir.F64, Access: kir.ReadWrite}}
	x := b.Load(0, kir.S(kir.F64), b.Idx(0))
	b.Store(0, b.Idx(0), b.Bin(kir.Add, x, x))
	caps := map[string]bool{"Int64": true}
	_, err := spirv.Emit(k, spirv.Options{Capabilities: caps, Target: "gpu"})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "Float64") || !strings.Contains(err.Error(), "target gpu") {
		t.Fatalf("error %v", err)
	}
	caps["Float64"] = true
	e, err := spirv.Emit(k, spirv.Options{Capabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.Capabilities, ","); got != "Float64,Int64,Shader" {
		t.Fatalf("capabilities %s", got)
	}
	validate(t, "caps", e.SPIRV, "vulkan1.1")

	// f32 math without Int64 for the arithmetic, i8 needing Int8.
	k2, b2 := kir.NewKernel("k2")
	k2.Bindings = []kir.Binding{{Elem: kir.I8, Access: kir.ReadWrite}}
	y := b2.Load(0, kir.S(kir.I8), b2.Idx(0))
	b2.Store(0, b2.Idx(0), b2.Bin(kir.Add, y, y))
	_, err = spirv.Emit(k2, spirv.Options{Capabilities: map[string]bool{"Int64": true, "StorageBuffer8BitAccess": true}})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "Int8") || !strings.Contains(err.Error(), "op 2: load") {
		t.Fatalf("error %v", err)
	}
}

func TestTileOpsAreUnimplemented(t *testing.T) {
	k, b := kir.NewKernel("c")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.ReadWrite}}
	var args [12]kir.Value
	for i := range args {
		args[i] = b.Idx(1)
	}
	b.Contract(0, 1, 2, args, 0)
	_, err := spirv.Emit(k, spirv.Options{Capabilities: allCaps})
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "contract") {
		t.Fatalf("error %v", err)
	}
}

func TestStaticLoopsHaveNoStepCheck(t *testing.T) {
	k, b := kir.NewKernel("static")
	k.Shared = []kir.SharedAlloc{{Elem: kir.F32, Count: 8}}
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Write}}
	b.For(b.Idx(0), b.Idx(8), b.Idx(1), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
		b.StoreShared(0, b.Idx(3), b.Float(kir.S(kir.F32), 1))
		return nil
	})
	e := emit(t, k)
	if e.Reports() {
		t.Fatal("a kernel without dynamic checks reports errors")
	}
}
