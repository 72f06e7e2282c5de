package ptx_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/ptx"
	"github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/status"
)

// loopsKernel has loops with loop-carried vectors, nested ifs with
// results, a run-time step and a predicated store.
func loopsKernel() *kir.Kernel {
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
	return k
}

func TestControlFlow(t *testing.T) {
	v := emit(t, loopsKernel())["sm_80"]
	e := v.Entries[0]
	if !e.Reports() || e.NumPushConstants != 2 || e.NumParams() != 7 {
		t.Fatalf("entry %+v", e)
	}
	if !strings.Contains(string(v.PTX), "atom.global.cas.b64") {
		t.Fatal("no step or bounds check")
	}
}

// threadKernel uses shared memory, barriers and every subgroup op on s in
// a workgroup of ws threads with subgroups of sg.
func threadKernel(s kir.Scalar, ws [3]int, sg int) *kir.Kernel {
	threads := int64(ws[0] * ws[1] * ws[2])
	k, b := kir.NewKernel(fmt.Sprintf("threads_%s_%d_%d", s, threads, sg))
	k.WorkgroupSize = ws
	k.SubgroupSize = sg
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	k.Shared = []kir.SharedAlloc{{Elem: s, Count: threads + 4}, {Elem: s, Count: 8, Scratch: true}}
	tx, ty, tz := b.Query(kir.ThreadID, 0), b.Query(kir.ThreadID, 1), b.Query(kir.ThreadID, 2)
	wg := b.Query(kir.WorkgroupID, 0)
	lin := b.Bin(kir.Add, tx, b.Bin(kir.Mul, b.Bin(kir.Add, ty, b.Bin(kir.Mul, tz, b.Query(kir.WorkgroupSize, 1))), b.Query(kir.WorkgroupSize, 0)))
	gid := b.Bin(kir.Add, lin, b.Bin(kir.Mul, wg, b.Idx(threads)))
	x := b.Load(0, kir.S(s), gid)
	b.StoreShared(0, b.Bin(kir.Add, lin, b.Idx(2)), x)
	b.StoreShared(1, b.Idx(3), x)
	b.Barrier()
	out := int64(0)
	put := func(v kir.Value) {
		b.Store(1, b.Bin(kir.Add, gid, b.Idx(out)), v)
		out += 4 * threads
	}
	put(b.LoadShared(0, kir.S(s), b.Bin(kir.Sub, b.Idx(threads+3), lin))) // includes the zeroed ends
	for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
		if kir.ReduceKindFits(r, s) {
			put(b.EmitImm(kir.SubgroupReduce, kir.S(s), int64(r), x))
		}
	}
	put(b.Emit(kir.SubgroupShuffle, kir.S(s), x, b.Bin(kir.Sub, b.Bin(kir.Mul, lin, b.Idx(3)), b.Idx(5))))
	b.BarrierBindings()
	b.Store(2, gid, b.Emit(kir.LaneID, kir.S(kir.I64)))
	b.Store(2, b.Bin(kir.Add, gid, b.Idx(4*threads)), b.Emit(kir.SubgroupSize, kir.S(kir.I64)))
	b.Store(2, b.Bin(kir.Add, gid, b.Idx(8*threads)), b.Query(kir.WorkgroupCount, 0))
	return k
}

// threadShapes are the workgroup shapes and subgroup sizes of the thread
// tests: full and partial warps, sub-warp subgroups, 2-D and 3-D blocks.
var threadShapes = []struct {
	ws [3]int
	sg int
}{{[3]int{16, 4, 1}, 32}, {[3]int{16, 4, 1}, 8}, {[3]int{12, 1, 1}, 8}, {[3]int{40, 1, 1}, 32},
	{[3]int{4, 3, 2}, 0}, {[3]int{24, 1, 1}, 32}, {[3]int{1, 1, 1}, 32}, {[3]int{8, 2, 3}, 16}}

func TestThreadOps(t *testing.T) {
	for _, sh := range threadShapes {
		for _, s := range append(append([]kir.Scalar{}, intTypes...), floatTypes...) {
			k := threadKernel(s, sh.ws, sh.sg)
			v := emit(t, k)["sm_80"]
			e := v.Entries[0]
			if e.BlockSize != sh.ws || e.SharedBytes == 0 || !e.Reports() {
				t.Fatalf("entry %+v", e)
			}
			text := string(v.PTX)
			want := fmt.Sprintf(".reqntid %d, %d, %d", sh.ws[0], sh.ws[1], sh.ws[2])
			for _, w := range []string{want, "bar.sync 0", "membar.cta", "shfl.sync.idx.b32", ".shared .align 16 .b8"} {
				if !strings.Contains(text, w) {
					t.Fatalf("%s: no %q in\n%s", k.Name, w, text)
				}
			}
		}
	}
}

func TestSubgroupsAcrossWarpsAreUnimplemented(t *testing.T) {
	k := threadKernel(kir.I32, [3]int{64, 1, 1}, 64)
	_, err := ptx.Emit([]*kir.Kernel{k}, options(t, "sm_80"))
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "does not divide 32") {
		t.Fatalf("error %v", err)
	}
}

func TestAtomics(t *testing.T) {
	v := emit(t, atomicKernel())["sm_60"]
	for _, w := range []string{"atom.global.or.b32", "atom.global.and.b32"} {
		if !strings.Contains(string(v.PTX), w) {
			t.Fatalf("no %s", w)
		}
	}
}

// TestABI checks the parameter list, .reqntid and the entry description
// against go/schemas/cuda's kernel ABI.
func TestABI(t *testing.T) {
	k, b := kir.NewKernel("main$dispatch-0")
	k.WorkgroupSize = [3]int{64, 2, 1}
	k.NumPushConstants = 2
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.F16, Access: kir.Write}, {Elem: kir.I8, Access: kir.ReadWrite}}
	x := b.Load(0, kir.S(kir.I32), b.Query(kir.PushConstant, 1))
	b.Store(1, b.Query(kir.PushConstant, 0), b.Emit(kir.SIToFP, kir.S(kir.F16), x))
	b.Store(2, b.Idx(0), b.Emit(kir.TruncI, kir.S(kir.I8), x))
	k2, b2 := kir.NewKernel("main$dispatch-0") // the same name: a unique symbol
	b2.Barrier()
	vs := emit(t, k, k2)
	v := vs["sm_90"]
	if v.Arch != "sm_90" || v.PTXVersion != 78 || len(v.Entries) != 2 {
		t.Fatalf("variant %+v", v)
	}
	e := v.Entries[0]
	if e.Name != "main$dispatch-0" || e.Symbol != "main$dispatch_0" || v.Entries[1].Symbol != "main$dispatch_0_1" {
		t.Fatalf("symbols %q %q", e.Symbol, v.Entries[1].Symbol)
	}
	if e.BlockSize != [3]int{64, 2, 1} || e.NumPushConstants != 2 || !e.Reports() || e.NumParams() != 9 ||
		fmt.Sprint(e.Bindings) != fmt.Sprint([]cuda.Access{cuda.Read, cuda.Write, cuda.ReadWrite}) {
		t.Fatalf("entry %+v", e)
	}
	if v.Entries[1].Reports() || v.Entries[1].NumParams() != 0 {
		t.Fatalf("entry %+v", v.Entries[1])
	}
	text := string(v.PTX)
	if !strings.HasPrefix(text[strings.Index(text, ".version"):], ".version 7.8\n.target sm_90\n.address_size 64\n") {
		t.Fatalf("header:\n%s", text)
	}
	params := regexp.MustCompile(`\.param \.u64 (\S+)_param_(\d+)`).FindAllStringSubmatch(text, -1)
	if len(params) != 9 {
		t.Fatalf("%d params", len(params))
	}
	// Pointers (cvta'd), then lengths, then the status buffer, then the
	// push constants.
	loads := regexp.MustCompile(`ld\.param\.u64 (%rd\d+), \[\S+_param_(\d+)\];\n(\tcvta)?`).FindAllStringSubmatch(text, -1)
	var kinds []string
	for _, l := range loads[:9] {
		if l[3] != "" {
			kinds = append(kinds, "ptr")
		} else {
			kinds = append(kinds, "val")
		}
	}
	if got := strings.Join(kinds, " "); got != "ptr ptr ptr val val val ptr val val" {
		t.Fatalf("parameter loads %s", got)
	}
	if !strings.Contains(text, ".reqntid 64, 2, 1") || strings.Count(text, "atom.global.cas.b64") != 3 {
		t.Fatalf("PTX:\n%s", text)
	}
	if vs["sm_60"].PTXVersion != 60 || vs["sm_80"].PTXVersion != 70 {
		t.Fatalf("versions %d %d", vs["sm_60"].PTXVersion, vs["sm_80"].PTXVersion)
	}
}

func TestUnimplemented(t *testing.T) {
	k, b := kir.NewKernel("c")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.ReadWrite}}
	var args [12]kir.Value
	for i := range args {
		args[i] = b.Idx(1)
	}
	b.Contract(0, 1, 2, args, 0)
	_, err := ptx.Emit([]*kir.Kernel{k}, options(t, "sm_80"))
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "contract") {
		t.Fatalf("error %v", err)
	}
	for _, kind := range []kir.Kind{kir.Exp, kir.Sin, kir.Erf, kir.PowF, kir.RemF} {
		k, b := kir.NewKernel("m")
		k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.ReadWrite}}
		x := b.Load(0, kir.S(kir.F32), b.Idx(0))
		var y kir.Value
		if kind == kir.PowF || kind == kir.RemF {
			y = b.Bin(kind, x, x)
		} else {
			y = b.Emit(kind, kir.S(kir.F32), x)
		}
		b.Store(0, b.Idx(0), y)
		_, err := ptx.Emit([]*kir.Kernel{k}, options(t, "sm_80"))
		if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "mathexp.Expand") {
			t.Fatalf("%s: error %v", kind, err)
		}
	}
}

func TestSharedLimit(t *testing.T) {
	k, b := kir.NewKernel("big")
	k.Shared = []kir.SharedAlloc{{Elem: kir.F32, Count: 8 << 10}, {Elem: kir.F32, Count: 5 << 10}}
	b.StoreShared(0, b.Idx(0), b.Float(kir.S(kir.F32), 1))
	_, err := ptx.Emit([]*kir.Kernel{k}, options(t, "sm_80"))
	if status.CodeOf(err) != status.ResourceExhausted {
		t.Fatalf("error %v", err)
	}
	k.Shared = k.Shared[:1]
	v := emit(t, k)["sm_80"]
	if v.Entries[0].SharedBytes != 32<<10 || v.Entries[0].Reports() {
		t.Fatalf("entry %+v", v.Entries[0])
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
	v := emit(t, k)["sm_80"]
	if v.Entries[0].Reports() || strings.Contains(string(v.PTX), "atom") {
		t.Fatalf("a kernel without dynamic checks reports errors:\n%s", v.PTX)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []ptx.Options{{Arch: "gfx90a", PTXVersion: 78}, {Arch: "sm_80", PTXVersion: 60}, {Arch: "sm_80", PTXVersion: 5}} {
		if _, err := ptx.Emit(nil, o); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("%+v: error %v", o, err)
		}
	}
}
