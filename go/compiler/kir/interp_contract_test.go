package kir

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// contractKernel builds one Contract of an m×k by k×n f32 tile into C
// (row-major, rows of n) with flags.
func contractKernel(m, n, k int64, flags int64) *Kernel {
	kern, b := NewKernel("mm")
	kern.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: ReadWrite}}
	b.Contract(0, 1, 2, [12]Value{
		b.Idx(0), b.Idx(max(k, 1)), b.Idx(1),
		b.Idx(0), b.Idx(n), b.Idx(1),
		b.Idx(0), b.Idx(n), b.Idx(1),
		b.Idx(m), b.Idx(n), b.Idx(k),
	}, flags)
	return kern
}

func f32Bytes(xs []float32) []byte {
	out := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// TestContractZero checks ContractZero: C's prior contents (NaN here) are
// not read, the sums start at +0 (a -0 product gives +0, as adding it to
// a zero-filled C does), the products are added in k order, and K = 0
// writes zeros.
func TestContractZero(t *testing.T) {
	const m, n, k = 2, 3, 4
	a := []float32{1, 2, 3, 4, -0.0, 1e30, 0, -1e30}
	bm := make([]float32, k*n)
	for i := range bm {
		bm[i] = float32(i%5) - 2
	}
	bm[0], bm[3], bm[6], bm[9] = 1, 0, 0, 0 // row 1, column 0: -0·1 + 1e30·0 + 0·0 + -1e30·0 = +0 from +0
	nan := float32(math.NaN())
	for _, kk := range []int64{k, 0} {
		kern := contractKernel(m, n, kk, ContractZero)
		if err := Verify(kern); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(kern.String(), "] = b2[") {
			t.Errorf("printer does not show C = A·B:\n%s", kern)
		}
		c := f32Bytes([]float32{nan, nan, nan, nan, nan, nan})
		ab, bb := f32Bytes(a), f32Bytes(bm)
		if kk == 0 {
			ab, bb = nil, nil // not read: no bounds against them
		}
		if err := Run(kern, [3]int64{1, 1, 1}, nil, [][]byte{ab, bb, c}); err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < n; j++ {
				want := float32(0)
				for p := int64(0); p < kk; p++ {
					want += a[i*k+p] * bm[p*n+j]
				}
				got := math.Float32frombits(binary.LittleEndian.Uint32(c[4*(i*n+j):]))
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Errorf("K=%d: C[%d,%d] = %v (%#x), want %v (%#x)", kk, i, j, got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
	}
	// Without the flag, the same tile adds to C.
	kern := contractKernel(1, 1, 1, 0)
	c := f32Bytes([]float32{5})
	if err := Run(kern, [3]int64{1, 1, 1}, nil, [][]byte{f32Bytes([]float32{2}), f32Bytes([]float32{3}), c}); err != nil {
		t.Fatal(err)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(c)); got != 11 {
		t.Errorf("C += A·B gave %v, want 11", got)
	}
}
