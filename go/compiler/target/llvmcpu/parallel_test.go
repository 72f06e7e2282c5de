package llvmcpu_test

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// TestParallelParts builds an executable of several kernels, one of them
// a copy of another under a new name, as parallel LLVM modules and runs
// every entry against kir.Run.
func TestParallelParts(t *testing.T) {
	m := needLLVM(t)
	ks := []*kir.Kernel{
		elementwise("a", kir.F32, kir.F32, 1, 256, chain),
		elementwise("b", kir.F32, kir.F32, 8, 256, chain),
		elementwise("c", kir.F64, kir.F64, 16, 256, chain),
		elementwise("d", kir.F32, kir.F32, 1, 256, chain), // same code as "a"
	}
	srcs, x, err := llvmcpu.TranslateParts(ks, m, 4)
	if err != nil {
		t.Fatal(err)
	}
	_, single, err := llvmcpu.Translate(ks, m)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]schema.Entry{}, single.Entries...)
	want[3].Symbol = want[0].Symbol
	if !reflect.DeepEqual(x.Entries, want) {
		t.Fatalf("entries %v, want %v", x.Entries, want)
	}
	if len(srcs) != 3 {
		t.Fatalf("%d parts, want one per distinct kernel (3)", len(srcs))
	}
	for i, src := range srcs {
		if !strings.Contains(src, "@"+x.Entries[i].Symbol+"(") {
			t.Fatalf("part %d lacks %s", i, x.Entries[i].Symbol)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	exe := build(t, m, ks...)
	r := rand.New(rand.NewPCG(3, 4))
	n := 2*256 + 5
	for i, k := range ks {
		e := k.Bindings[0].Elem
		in := [][]byte{enc(e, randFloats(r, n, 4)), enc(e, randFloats(r, n, 4)), make([]byte, e.ByteSize()*n)}
		grid := [3]int64{3, 1, 1}
		want, got := clone(in), clone(in)
		if err := kir.Run(k, grid, []int64{int64(n)}, want); err != nil {
			t.Fatal(err)
		}
		if err := exe.Run(i, 0, 3, grid, []int64{int64(n)}, got); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		compare(t, k, "parallel parts", want, got, 0)
	}
}

// TestPartsBalanceCode checks that a kernel goes to the module with the
// least LLVM code so far, not round robin: after a large kernel and a
// small one, the next small one joins the small one's module.
func TestPartsBalanceCode(t *testing.T) {
	m := needLLVM(t)
	big := elementwise("big", kir.F64, kir.F64, 16, 256, chain)
	small := elementwise("small", kir.F32, kir.F32, 1, 256, chain)
	other := elementwise("other", kir.F32, kir.F32, 2, 256, chain)
	size := func(k *kir.Kernel) int {
		srcs, _, err := llvmcpu.TranslateParts([]*kir.Kernel{k}, m, 1)
		if err != nil {
			t.Fatal(err)
		}
		return len(srcs[0])
	}
	if size(big) <= size(small) {
		t.Fatalf("test setup: the 16-lane f64 kernel (%d bytes of IR) is not larger than the 1-lane f32 one (%d)", size(big), size(small))
	}
	srcs, x, err := llvmcpu.TranslateParts([]*kir.Kernel{big, small, other}, m, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 {
		t.Fatalf("%d parts, want 2", len(srcs))
	}
	if strings.Contains(srcs[0], "@"+x.Entries[2].Symbol+"(") || !strings.Contains(srcs[1], "@"+x.Entries[2].Symbol+"(") {
		t.Fatalf("the third kernel did not join the smaller module")
	}
}
