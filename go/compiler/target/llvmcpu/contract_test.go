package llvmcpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// contractKernel computes C += A·B for one M×N×K tile with the given
// strides (row, column) of A, B and C, all offsets 0 but C's (cOff).
func contractKernel(elems [3]kir.Scalar, m, n, kk int64, strides [6]int64, cOff int64, flags int64) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("contract_%s_%s_%s_%dx%dx%d", elems[0], elems[1], elems[2], m, n, kk))
	k.Bindings = []kir.Binding{{Elem: elems[0], Access: kir.Read}, {Elem: elems[1], Access: kir.Read}, {Elem: elems[2], Access: kir.ReadWrite}}
	var args [12]kir.Value
	vals := []int64{0, strides[0], strides[1], 0, strides[2], strides[3], cOff, strides[4], strides[5], m, n, kk}
	for i, v := range vals {
		args[i] = b.Idx(v)
	}
	b.Contract(0, 1, 2, args, flags)
	return k
}

func TestContractF32(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int64{{6, 32, 8}, {13, 37, 19}, {100, 70, 33}, {1, 1, 1}, {7, 16, 5}, {96, 256, 64}, {20, 64, 600}, {136, 70, 12}, {24, 512, 512}} {
		M, N, K := sh[0], sh[1], sh[2]
		for _, layout := range []string{"row", "bt", "ct"} {
			st := [6]int64{K, 1, N, 1, N, 1}
			switch layout {
			case "bt": // B column-major: packed transposed
				st[2], st[3] = 1, K
			case "ct": // C column-major: Cᵀ = Bᵀ·Aᵀ
				st[4], st[5] = 1, M
			}
			k := contractKernel([3]kir.Scalar{kir.F32, kir.F32, kir.F32}, M, N, K, st, 0, 0)
			a, bb, c := randFloats(r, int(M*K), 1), randFloats(r, int(K*N), 1), randFloats(r, int(M*N), 1)
			in := [][]byte{enc(kir.F32, a), enc(kir.F32, bb), enc(kir.F32, c)}
			want := clone(in)
			if err := kir.Run(k, [3]int64{1, 1, 1}, nil, want); err != nil {
				t.Fatal(err)
			}
			x := build(t, m, k)
			got := clone(in)
			if err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, nil, got); err != nil {
				t.Fatalf("%s %v: %v", layout, sh, err)
			}
			// Fused multiply-adds differ from the reference's rounding:
			// compare with a float64 reference within K ulps of the sum of
			// magnitudes.
			for i := int64(0); i < M; i++ {
				for j := int64(0); j < N; j++ {
					ci := i*st[4] + j*st[5]
					exact, mag := float64(float32(c[ci])), math.Abs(float64(float32(c[ci])))
					for p := int64(0); p < K; p++ {
						x, y := float64(float32(a[i*st[0]+p*st[1]])), float64(float32(bb[p*st[2]+j*st[3]]))
						exact += x * y
						mag += math.Abs(x * y)
					}
					g, w := value(kir.F32, got[2][4*ci:]), value(kir.F32, want[2][4*ci:])
					tol := float64(K+1) * mag * 0x1p-24
					if math.Abs(g-exact) > tol || math.Abs(w-exact) > tol {
						t.Fatalf("%s %v: C[%d,%d] = %v (kir %v), exact %v, tolerance %g", layout, sh, i, j, g, w, exact, tol)
					}
				}
			}
		}
	}
}

func TestContractOtherTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		elems [3]kir.Scalar
		flags int64
	}{
		{[3]kir.Scalar{kir.I8, kir.I8, kir.I32}, 0},
		{[3]kir.Scalar{kir.I8, kir.I8, kir.I32}, 1},
		{[3]kir.Scalar{kir.I32, kir.I32, kir.I32}, 0},
		{[3]kir.Scalar{kir.F16, kir.F16, kir.F32}, 0},
		{[3]kir.Scalar{kir.F16, kir.F16, kir.F16}, 0},
		{[3]kir.Scalar{kir.BF16, kir.BF16, kir.F32}, 0},
		{[3]kir.Scalar{kir.F64, kir.F64, kir.F64}, 0},
	} {
		M, N, K := int64(9), int64(21), int64(13)
		st := [6]int64{K, 1, N, 1, N, 1}
		k := contractKernel(tc.elems, M, N, K, st, 0, tc.flags)
		scale := 2.0
		if tc.elems[0].IsInt() {
			scale = 120
		}
		in := [][]byte{enc(tc.elems[0], randFloats(r, int(M*K), scale)), enc(tc.elems[1], randFloats(r, int(K*N), scale)), enc(tc.elems[2], randFloats(r, int(M*N), scale))}
		diff(t, k, [3]int64{1, 1, 1}, nil, in, 0)
	}
}

func TestContractOutOfBoundsIsAnError(t *testing.T) {
	m := needLLVM(t)
	k := contractKernel([3]kir.Scalar{kir.F32, kir.F32, kir.F32}, 4, 4, 4, [6]int64{4, 1, 4, 1, 4, 1}, 1, 0)
	x := build(t, m, k)
	bufs := [][]byte{make([]byte, 64), make([]byte, 64), make([]byte, 64)}
	err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, nil, bufs)
	if err == nil || !containsAll(err.Error(), "OUT_OF_RANGE", "tile outside binding 2") {
		t.Fatalf("err = %v, want an OUT_OF_RANGE error naming binding 2", err)
	}
	if kerr := kir.Run(k, [3]int64{1, 1, 1}, nil, bufs); kerr == nil {
		t.Fatalf("kir.Run accepted the tile")
	}
}
