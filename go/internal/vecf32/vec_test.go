package vecf32

import (
	"math"
	"math/rand"
	"testing"
)

func TestBinaryMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3.4e38, 1e-45}
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 100, 1000} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = r.Float32()*4-2, r.Float32()*4-2
			if r.Intn(4) == 0 {
				a[i] = specials[r.Intn(len(specials))]
			}
			if r.Intn(4) == 0 {
				b[i] = specials[r.Intn(len(specials))]
			}
			if r.Intn(8) == 0 {
				b[i] = a[i]
			}
		}
		for op := Add; op <= Min; op++ {
			got, want := make([]float32, n), make([]float32, n)
			Binary(op, got, a, b)
			generic(op, want, a, b)
			for i := range got {
				g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
				if g != w && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("op %d n %d [%d]: %v op %v = %v (%08x), want %v (%08x)", op, n, i, a[i], b[i], got[i], g, want[i], w)
				}
			}
		}
	}
}

func TestSignedZeros(t *testing.T) {
	nz := float32(math.Copysign(0, -1))
	a := []float32{0, nz, 0, nz, 0, nz, 0, nz}
	b := []float32{nz, 0, 0, nz, nz, 0, 0, nz}
	mx, mn := make([]float32, 8), make([]float32, 8)
	Binary(Max, mx, a, b)
	Binary(Min, mn, a, b)
	for i := range a {
		wantMax := !(math.Signbit(float64(a[i])) && math.Signbit(float64(b[i])))
		if math.Signbit(float64(mx[i])) == wantMax {
			t.Errorf("max(%v,%v) sign wrong", a[i], b[i])
		}
		if math.Signbit(float64(mn[i])) != (math.Signbit(float64(a[i])) || math.Signbit(float64(b[i]))) {
			t.Errorf("min(%v,%v) sign wrong", a[i], b[i])
		}
	}
}

func BenchmarkMax(b *testing.B) {
	x, y, d := make([]float32, 1024), make([]float32, 1024), make([]float32, 1024)
	b.SetBytes(4 * 1024)
	for i := 0; i < b.N; i++ {
		Binary(Max, d, x, y)
	}
}
