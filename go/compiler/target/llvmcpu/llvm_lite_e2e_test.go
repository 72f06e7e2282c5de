package llvmcpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
)

// TestLLVMLiteBuildsKernels builds kernels with llvmlite's LLVM, links
// them with gree's linker and checks them against kir.Run: float chains
// (libm's fmod among them), transcendentals through libm and tiled matrix
// products.
func TestLLVMLiteBuildsKernels(t *testing.T) {
	m := needLLVM(t)
	llvmcpu.UseLLVMLite(t)
	llvmcpu.UseLinker(t, true)
	r := rand.New(rand.NewPCG(3, 4))
	for _, e := range []kir.Scalar{kir.F32, kir.F16} {
		n := 2*256 + 33
		a, b := randFloats(r, n, 4), randFloats(r, n, 4)
		copy(a, specials)
		k := elementwise("ew", e, e, 8, 256, chain)
		diffOn(t, m, k, [3]int64{3, 1, 1}, []int64{int64(n)}, [][]byte{enc(e, a), enc(e, b), make([]byte, e.ByteSize()*n)}, 0)
	}
	for _, kind := range []kir.Kind{kir.Exp, kir.Tanh, kir.Log} {
		n := 300
		a := randFloats(r, n, 3)
		if kind == kir.Log {
			for i := range a {
				a[i] = a[i]*a[i] + 0.1
			}
		}
		k := elementwise("t", kir.F32, kir.F32, 8, 256, func(b *kir.Builder, ty kir.Type, x, _ kir.Value) kir.Value { return b.Emit(kind, ty, x) })
		diffOn(t, m, k, [3]int64{2, 1, 1}, []int64{int64(n)}, [][]byte{enc(kir.F32, a), enc(kir.F32, a), make([]byte, 4*n)}, 1)
	}
	checkGemmsOn(t, m, []gemm{rowMajor("a", 37, 45, 29, false), rowMajor("b", 96, 128, 64, true)}, 96, 128, r)
}
