package llvmcpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// TestContractZero checks kir.ContractZero (C = A·B) on every path of the
// f32 microkernel (row-major and transposed B, column-major C, strided
// fallback, one-row GEMVs, masked column edges, a last column along M,
// one and several K panels,
// K = 0) and on the reference loop nest of other types: C holds NaNs
// before, which must not be read, and the result must be bit-identical to
// C += A·B over a zeroed C (the sums start at +0 either way, so a -0
// product still gives +0), and to kir.Run where the order of rounding is
// the same (the non-f32 types).
func TestContractZero(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(9, 10))
	f32 := [3]kir.Scalar{kir.F32, kir.F32, kir.F32}
	for _, sh := range [][3]int64{{13, 37, 19}, {8, 32, 600}, {1, 45, 33}, {1, 70, 300}, {16, 49, 300}, {11, 49, 40}, {6, 5, 1}, {9, 21, 0}, {1, 16, 0}} {
		M, N, K := sh[0], sh[1], sh[2]
		for _, layout := range []string{"row", "bt", "ct", "strided"} {
			st := [6]int64{max(K, 1), 1, N, 1, N, 1}
			switch layout {
			case "bt":
				st[2], st[3] = 1, max(K, 1)
			case "ct":
				st[4], st[5] = 1, M
			case "strided": // no unit stride in B: the reference loop nest
				st[2], st[3] = 2*N, 2
			}
			aN, bN := max(M*K, 1), max(2*K*N, 1)
			a, b := randFloats(r, int(aN), 1), randFloats(r, int(bN), 1)
			if K > 0 {
				a[0] = math.Copysign(0, -1) // -0 · x first: the sum must still be +0-based
			}
			nan := make([]float64, M*N)
			for i := range nan {
				nan[i] = math.NaN()
			}
			kz := contractKernel(f32, M, N, K, st, 0, kir.ContractZero)
			kz.Name += "_zero"
			x := build(t, m, kz, contractKernel(f32, M, N, K, st, 0, 0))
			got := [][]byte{enc(kir.F32, a), enc(kir.F32, b), enc(kir.F32, nan)}
			if err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, nil, got); err != nil {
				t.Fatalf("%s %v: %v", layout, sh, err)
			}
			want := [][]byte{enc(kir.F32, a), enc(kir.F32, b), make([]byte, 4*M*N)}
			if err := x.Run(1, 0, 1, [3]int64{1, 1, 1}, nil, want); err != nil {
				t.Fatalf("%s %v: %v", layout, sh, err)
			}
			for i := int64(0); i < M*N; i++ {
				g, w := value(kir.F32, got[2][4*i:]), value(kir.F32, want[2][4*i:])
				if math.Float32bits(float32(g)) != math.Float32bits(float32(w)) {
					t.Fatalf("%s %v: C[%d] = %v with C = A·B, %v with C += A·B over zeros", layout, sh, i, g, w)
				}
			}
		}
	}
	// Other types: the reference loop nest, exactly as kir.Run.
	for _, tc := range []struct {
		elems [3]kir.Scalar
		flags int64
	}{
		{[3]kir.Scalar{kir.I8, kir.I8, kir.I32}, 0},
		{[3]kir.Scalar{kir.I8, kir.I8, kir.I32}, kir.ContractUnsigned},
		{[3]kir.Scalar{kir.F16, kir.F16, kir.F16}, 0},
		{[3]kir.Scalar{kir.F64, kir.F64, kir.F64}, 0},
	} {
		for _, K := range []int64{13, 0} {
			M, N := int64(9), int64(21)
			st := [6]int64{max(K, 1), 1, N, 1, N, 1}
			scale := 2.0
			if tc.elems[0].IsInt() {
				scale = 120
			}
			in := [][]byte{enc(tc.elems[0], randFloats(r, int(max(M*K, 1)), scale)), enc(tc.elems[1], randFloats(r, int(max(K*N, 1)), scale)), enc(tc.elems[2], randFloats(r, int(M*N), 1e4))}
			diff(t, contractKernel(tc.elems, M, N, K, st, 0, tc.flags|kir.ContractZero), [3]int64{1, 1, 1}, nil, in, 0)
		}
	}
}
