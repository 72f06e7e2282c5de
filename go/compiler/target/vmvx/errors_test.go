package vmvx_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
	schema "github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// runError runs k on one workgroup through both interpreters and checks
// both fail with code; the runtime's message must mention each of words.
func runError(t *testing.T, k *kir.Kernel, pcs []int64, bufs [][]byte, code status.Code, words ...string) {
	t.Helper()
	if err := kir.Run(k, [3]int64{1, 1, 1}, pcs, clone(bufs)); status.CodeOf(err) != code {
		t.Errorf("kir.Run %v: %v, want %v", pcs, err, code)
	}
	err := load(t, k).RunWorkgroup(newState(), 0, [3]int64{}, [3]int64{1, 1, 1}, pcs, clone(bufs))
	if status.CodeOf(err) != code {
		t.Fatalf("RunWorkgroup: %v, want %v", err, code)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("RunWorkgroup error %q does not mention %q", err, w)
		}
	}
}

func TestOutOfBounds(t *testing.T) {
	mk := func(kind kir.Kind, lanes int) *kir.Kernel {
		k, b := kir.NewKernel("oob")
		k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.ReadWrite}}
		k.NumPushConstants = 2
		off, stride := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
		vt := kir.V(kir.F32, lanes)
		switch kind {
		case kir.Load:
			b.Store(0, b.Idx(0), b.Reduce(kir.ReduceAdd, b.Load(0, vt, off)))
		case kir.Store:
			b.Store(0, off, b.Float(vt, 1))
		case kir.LoadStrided:
			b.Store(0, b.Idx(0), b.Reduce(kir.ReduceAdd, b.LoadStrided(0, vt, off, stride)))
		case kir.StoreStrided:
			b.StoreStrided(0, off, stride, b.Float(vt, 1))
		}
		return k
	}
	buf := [][]byte{make([]byte, 4*16)}
	for _, kind := range []kir.Kind{kir.Load, kir.Store, kir.LoadStrided, kir.StoreStrided} {
		for _, pc := range [][]int64{{-1, 1}, {13, 1}, {16, 1}, {4, 4}, {5, -4}, {1 << 62, 1}, {8, 1 << 62}, {8, -(1 << 62)}} {
			if (kind == kir.Load || kind == kir.Store) && pc[1] != 1 {
				continue
			}
			runError(t, mk(kind, 4), pc, buf, status.OutOfRange, `"oob"`, "binding 0", "offset")
		}
		// In bounds: no error.
		diff(t, mk(kind, 4), [3]int64{1, 1, 1}, []int64{12, 1}, buf)
	}
	// Contract tiles reaching outside their buffers.
	k := matmul(kir.F32, kir.F32, kir.F32, false, 16, 16, 0)
	runError(t, k, []int64{16, 16, 17}, [][]byte{make([]byte, 4*16*16), make([]byte, 4*16*16), make([]byte, 4*16*16)}, status.OutOfRange, "contract")
}

func TestNonPositiveStep(t *testing.T) {
	k, b := kir.NewKernel("step")
	k.NumPushConstants = 1
	b.For(b.Idx(0), b.Idx(10), b.Query(kir.PushConstant, 0), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value { return nil })
	runError(t, k, []int64{0}, nil, status.InvalidArgument, "step")
	runError(t, k, []int64{-2}, nil, status.InvalidArgument, "step")
}

func TestRunArguments(t *testing.T) {
	x := load(t, elementwise(kir.F32, 8, 64))
	st := newState()
	if err := x.RunWorkgroup(st, 1, [3]int64{}, [3]int64{1, 1, 1}, []int64{1}, make([][]byte, 3)); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("bad entry: %v", err)
	}
	if err := x.RunWorkgroup(st, 0, [3]int64{}, [3]int64{1, 1, 1}, nil, make([][]byte, 3)); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("missing push constants: %v", err)
	}
	if err := x.RunWorkgroup(st, 0, [3]int64{}, [3]int64{1, 1, 1}, []int64{1}, make([][]byte, 2)); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("missing bindings: %v", err)
	}
	if got := x.EntryName(0); got != "ew_f32_8" {
		t.Errorf("EntryName = %q", got)
	}
	if got := x.EntryBindings(0); len(got) != 3 || got[2].Access != schema.Write || got[0].Elem != schema.F32 {
		t.Errorf("EntryBindings = %v", got)
	}
}

// TestEmitSeveralKernels: entry i is kernels[i].
func TestEmitSeveralKernels(t *testing.T) {
	ks := []*kir.Kernel{elementwise(kir.F32, 8, 64), rowReduce(kir.F32, 4, [3]kir.ReduceKind{}), targettest.IntOps(kir.I32, 3, true)}
	ex, err := vmvx.Translate(ks)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range ks {
		if ex.Entries[i].Name != k.Name {
			t.Errorf("entry %d is %q, want %q", i, ex.Entries[i].Name, k.Name)
		}
	}
	// A kernel that does not verify is reported with its index.
	bad, b := kir.NewKernel("bad")
	b.Store(0, b.Idx(0), b.Idx(1))
	if _, err := vmvx.Emit([]*kir.Kernel{ks[0], bad}); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "kernel 1") {
		t.Errorf("Emit(bad) = %v", err)
	}
}

// TestRegisterReuse: a long chain of wide vectors needs only a few vector
// registers.
func TestRegisterReuse(t *testing.T) {
	k, b := kir.NewKernel("chain")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.ReadWrite}}
	vt := kir.V(kir.F32, 1024)
	zero := b.Idx(0)
	x := b.Load(0, vt, zero)
	for i := 0; i < 200; i++ {
		x = b.Bin(kir.Add, b.Bin(kir.Mul, x, x), x)
	}
	b.Store(0, zero, x)
	ex, err := vmvx.Translate([]*kir.Kernel{k})
	if err != nil {
		t.Fatal(err)
	}
	vecs := 0
	for _, r := range ex.Entries[0].Regs {
		if r.Lanes > 1 {
			vecs++
		}
	}
	if vecs > 4 {
		t.Errorf("%d vector registers for a chain with 3 live values", vecs)
	}
}
