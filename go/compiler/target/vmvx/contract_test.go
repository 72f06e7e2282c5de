package vmvx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// matmul: workgroup (i, j) computes the tm×tn tile of C = A·B (M×K times
// K×N; B given transposed when bT) with one Contract over the full K.
func matmul(ea, eb, ec kir.Scalar, bT bool, tm, tn int64, flags int64) *kir.Kernel {
	k, b := kir.NewKernel("matmul")
	k.Bindings = []kir.Binding{{Elem: ea, Access: kir.Read}, {Elem: eb, Access: kir.Read}, {Elem: ec, Access: kir.ReadWrite}}
	k.NumPushConstants = 3 // M, N, K
	m, n, kk := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1), b.Query(kir.PushConstant, 2)
	i0 := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 1), b.Idx(tm))
	j0 := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(tn))
	rows := b.Bin(kir.MinS, b.Idx(tm), b.Bin(kir.Sub, m, i0))
	cols := b.Bin(kir.MinS, b.Idx(tn), b.Bin(kir.Sub, n, j0))
	one := b.Idx(1)
	bOff, bRS, bCS := j0, n, one
	if bT {
		bOff, bRS, bCS = b.Bin(kir.Mul, j0, kk), one, kk
	}
	b.Contract(0, 1, 2, [12]kir.Value{
		b.Bin(kir.Mul, i0, kk), kk, one,
		bOff, bRS, bCS,
		b.Bin(kir.Add, b.Bin(kir.Mul, i0, n), j0), n, one,
		rows, cols, kk}, flags)
	return k
}

func TestContract(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const M, N, K = 37, 29, 41
	pcs := []int64{M, N, K}
	grid := [3]int64{(N + 7) / 8, (M + 15) / 16, 1}
	for _, bT := range []bool{false, true} {
		// f32 with small integers: exact in any order of accumulation.
		a, bb, c := randInts(r, M*K, 8), randInts(r, K*N, 8), randInts(r, M*N, 100)
		diff(t, matmul(kir.F32, kir.F32, kir.F32, bT, 16, 8, 0), grid, pcs, [][]byte{f32s(a...), f32s(bb...), f32s(c...)})
		big := [][]byte{f32s(randInts(r, 128*128, 4)...), f32s(randInts(r, 128*128, 4)...), make([]byte, 4*128*128)}
		diff(t, matmul(kir.F32, kir.F32, kir.F32, bT, 64, 64, 0), [3]int64{2, 2, 1}, []int64{128, 128, 128}, big)
		a64 := make([]float64, M*K)
		for i := range a64 {
			a64[i] = float64(r.IntN(17) - 8)
		}
		diff(t, matmul(kir.F64, kir.F64, kir.F64, bT, 16, 8, 0), grid, pcs, [][]byte{f64s(a64...), f64s(a64[:K*N]...), make([]byte, 8*M*N)})
		// Integers: i8·i8 → i32, signed and unsigned; i16·i8 → i64.
		for _, flags := range []int64{0, 1} {
			diff(t, matmul(kir.I8, kir.I8, kir.I32, bT, 16, 8, flags), grid, pcs,
				[][]byte{bufOf(kir.I8, r, M*K), bufOf(kir.I8, r, K*N), bufOf(kir.I32, r, M*N)})
			diff(t, matmul(kir.I16, kir.I8, kir.I64, bT, 16, 8, flags), grid, pcs,
				[][]byte{bufOf(kir.I16, r, M*K), bufOf(kir.I8, r, K*N), bufOf(kir.I64, r, M*N)})
		}
		// Half precision accumulates in its own type, in order: exact.
		for _, e := range []kir.Scalar{kir.F16, kir.BF16} {
			diff(t, matmul(e, e, e, bT, 16, 8, 0), grid, pcs,
				[][]byte{bufOf(e, r, M*K), bufOf(e, r, K*N), bufOf(e, r, M*N)})
		}
		diff(t, matmul(kir.F16, kir.F16, kir.F32, bT, 16, 8, 0), grid, pcs,
			[][]byte{bufOf(kir.F16, r, M*K), bufOf(kir.F16, r, K*N), f32s(randF32(r, M*N, 1)...)})
	}
}

// TestContractZero checks flag bit 1 (C = A·B): C's stale contents are not
// read, and the result equals C += A·B over a zeroed C, with K = 0 writing
// zeros; both against kir.Run.
func TestContractZero(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const M, N = 37, 29
	grid := [3]int64{(N + 7) / 8, (M + 15) / 16, 1}
	for _, K := range []int64{41, 300, 0} {
		pcs := []int64{M, N, K}
		for _, bT := range []bool{false, true} {
			type tc struct {
				ea, eb, ec kir.Scalar
				flags      int64
			}
			cases := []tc{{kir.F32, kir.F32, kir.F32, 0}, {kir.F64, kir.F64, kir.F64, 0},
				{kir.I8, kir.I8, kir.I32, 0}, {kir.I8, kir.I8, kir.I32, kir.ContractUnsigned},
				{kir.F16, kir.F16, kir.F16, 0}, {kir.F16, kir.F16, kir.F32, 0}}
			for _, c := range cases {
				in := func(e kir.Scalar, n int64) []byte {
					if e == kir.F32 {
						return f32s(randInts(r, int(max(n, 1)), 8)...)
					}
					if e == kir.F64 {
						return f64s(make([]float64, max(n, 1))...)
					}
					return bufOf(e, r, int(max(n, 1)))
				}
				a, b := in(c.ea, M*K), in(c.eb, K*N)
				stale := bufOf(c.ec, r, M*N)
				got := diff(t, matmul(c.ea, c.eb, c.ec, bT, 16, 8, c.flags|kir.ContractZero), grid, pcs, [][]byte{a, b, stale})
				want := diff(t, matmul(c.ea, c.eb, c.ec, bT, 16, 8, c.flags), grid, pcs, [][]byte{a, b, make([]byte, len(stale))})
				if string(got[2]) != string(want[2]) {
					t.Errorf("K=%d bT=%v %s·%s→%s flags %d: C = A·B differs from C += A·B over zeros", K, bT, c.ea, c.eb, c.ec, c.flags)
				}
			}
		}
	}
}
