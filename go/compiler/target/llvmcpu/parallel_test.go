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

// TestPartsShareHelpers compiles Contracts in several parts: each
// microkernel is defined (hidden, with the arguments every call passes as
// one constant made constants; its row kernel internal) in one part and
// declared in the others, also when its owner has no kernel that calls
// it, and every product is right.
func TestPartsShareHelpers(t *testing.T) {
	m := needLLVM(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // Emit makes one part per thread
	r := rand.New(rand.NewPCG(5, 6))
	gs := []gemm{rowMajor("a", 37, 70, 300, false), rowMajor("b", 64, 96, 40, true), rowMajor("c", 50, 33, 129, false), rowMajor("d", 9, 130, 17, true)}
	products := make([]*kir.Kernel, len(gs))
	grids := make([][3]int64, len(gs))
	for i, g := range gs {
		products[i], grids[i] = tiledContract(g, 32, 64)
	}
	// The product, then a small kernel (the second part) and a large one
	// (back to the first part, whose kernels' code is still the smaller):
	// the second part, without a product, is the helpers' owner.
	mixed := []*kir.Kernel{products[0], elementwise("e", kir.F32, kir.F32, 1, 256, chain), elementwise("g", kir.F64, kir.F64, 16, 256, chain)}
	for _, tc := range []struct {
		name  string
		ks    []*kir.Kernel
		parts int
	}{
		{"four products", products, 4},
		{"one product", mixed, 2},
	} {
		one := len(tc.ks) != len(gs)
		runtime.GOMAXPROCS(tc.parts)
		srcs, _, err := llvmcpu.TranslateParts(tc.ks, m, tc.parts)
		if err != nil {
			t.Fatal(err)
		}
		defs, decls, rows := map[string]int{}, map[string]int{}, map[string]int{}
		owner := -1
		for p, src := range srcs {
			for _, line := range strings.Split(src, "\n") {
				if name, ok := strings.CutPrefix(line, "define internal void @"); ok && strings.Contains(name, ".rows(") {
					name, _, _ = strings.Cut(name, "(")
					rows[name]++
				}
				if name, ok := strings.CutPrefix(line, "define hidden void @"); ok {
					name, _, _ = strings.Cut(name, "(")
					defs[name]++
					owner = p
					// Every call passes C's column stride as 1: the
					// shared definition has it as a constant.
					if !strings.Contains(line, "%ccs.arg") {
						t.Errorf("%s: %s does not have C's column stride as a constant: %.200s", tc.name, name, line)
					}
				}
				if name, ok := strings.CutPrefix(line, "declare hidden void @"); ok {
					name, _, _ = strings.Cut(name, "(")
					decls[name]++
				}
			}
		}
		if len(defs) == 0 {
			t.Fatalf("%s: no shared helper", tc.name)
		}
		for name, n := range defs {
			if n != 1 || rows[name+".rows"] != 1 {
				t.Errorf("%s: %s defined in %d parts, its row kernel in %d", tc.name, name, n, rows[name+".rows"])
			}
		}
		if one && strings.Contains(srcs[owner], "tiled_a") {
			t.Errorf("%s: the helper stayed with the product (part %d)", tc.name, owner)
		}
		if len(decls) == 0 {
			t.Errorf("%s: no part declares a shared helper", tc.name)
		}
		x := build(t, m, tc.ks...)
		for e, k := range tc.ks {
			if !one || e == 0 {
				checkGemmEntry(t, x, e, gs[e], grids[e], tc.name+" "+k.Name, r)
			}
		}
	}
}
