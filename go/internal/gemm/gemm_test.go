package gemm

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"
)

// operand is the layout of one matrix inside a slice.
type operand struct {
	off, rs, cs int
	n           int // slice length
}

// layout returns a random layout for a rows×cols operand: row-major or
// column-major (transposed), possibly with padding between rows or columns,
// non-unit element strides, an offset, or reversed order.
func layout(r *rand.Rand, rows, cols int, kind int) operand {
	pad := 0
	if r.Intn(2) == 0 {
		pad = r.Intn(5)
	}
	step := 1
	if kind >= 2 {
		step = 1 + r.Intn(3)
	}
	var o operand
	switch kind % 2 {
	case 0: // row-major
		o.cs = step
		o.rs = cols*step + pad
	default: // column-major
		o.rs = step
		o.cs = rows*step + pad
	}
	o.off = r.Intn(7)
	span := (rows-1)*o.rs + (cols-1)*o.cs
	if r.Intn(8) == 0 {
		// Reverse the rows: start at the last one.
		o.off += (rows - 1) * o.rs
		o.rs = -o.rs
	}
	o.n = o.off + span + 1 + r.Intn(5)
	if o.rs < 0 {
		o.n = o.off + (cols-1)*o.cs + 1 + r.Intn(5)
	}
	return o
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// check runs F32's algorithm with kernel kern on one problem and compares
// with a float64 reference; the tolerance is k+8 units of rounding (2⁻²⁴)
// of Σ|a||b| plus |c|, per element of C.
func check(t *testing.T, kern *kernel, r *rand.Rand, m, n, k int, ao, bo, co operand) {
	t.Helper()
	a, b, c := randSlice(r, ao.n), randSlice(r, bo.n), randSlice(r, co.n)
	ref := make([]float64, len(c))
	bound := make([]float64, len(c))
	for i, v := range c {
		ref[i] = float64(v)
		bound[i] = math.Abs(float64(v))
	}
	sum, abs := make([]float64, n), make([]float64, n)
	for i := 0; i < m; i++ {
		clear(sum)
		clear(abs)
		for p := 0; p < k; p++ {
			av := float64(a[ao.off+i*ao.rs+p*ao.cs])
			bp := bo.off + p*bo.rs
			for j := range sum {
				x := av * float64(b[bp+j*bo.cs])
				sum[j] += x
				abs[j] += math.Abs(x)
			}
		}
		for j := range sum {
			ci := co.off + i*co.rs + j*co.cs
			ref[ci] += sum[j]
			bound[ci] += abs[j]
		}
	}
	f32(kern, m, n, k, a, ao.off, ao.rs, ao.cs, b, bo.off, bo.rs, bo.cs, c, co.off, co.rs, co.cs)
	eps := float64(k+8) * 0x1p-24
	for i := range c {
		if d := math.Abs(float64(c[i]) - ref[i]); d > eps*bound[i] || math.IsNaN(d) {
			t.Fatalf("%s m=%d n=%d k=%d A%+v B%+v C%+v: c[%d]=%g, want %g (bound %g)",
				kern.name, m, n, k, ao, bo, co, i, c[i], ref[i], eps*bound[i])
		}
	}
}

func TestRandomShapes(t *testing.T) {
	for _, kern := range kernels() {
		t.Run(kern.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(1))
			iters := 1500
			if testing.Short() {
				iters = 300
			}
			for it := 0; it < iters; it++ {
				m, n, k := 1+r.Intn(70), 1+r.Intn(70), 1+r.Intn(70)
				ak, bk, ck := it%4, (it/4)%4, r.Intn(4)
				if it%3 == 0 {
					ck = 0 // mostly the direct, row-major C path
				}
				check(t, kern, r, m, n, k, layout(r, m, k, ak), layout(r, k, n, bk), layout(r, m, n, ck))
			}
		})
	}
}

// TestLargeShapes runs every combination of the sizes with the kernel F32
// uses, and the smaller ones (and 517³) with the others.
func TestLargeShapes(t *testing.T) {
	sizes := []int{128, 256, 517}
	for _, kern := range kernels() {
		t.Run(kern.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(2))
			for _, m := range sizes {
				for _, n := range sizes {
					for _, k := range sizes {
						if (testing.Short() || kern != active) && m*n*k > 256*256*256 && m*n*k != 517*517*517 {
							continue
						}
						ak, bk := r.Intn(2), r.Intn(2)
						check(t, kern, r, m, n, k, layout(r, m, k, ak), layout(r, k, n, bk), layout(r, m, n, 0))
					}
				}
			}
			// All four transpose combinations, and a column-major C.
			for ak := 0; ak < 2; ak++ {
				for bk := 0; bk < 2; bk++ {
					m, n, k := 129, 517, 300
					check(t, kern, r, m, n, k, layout(r, m, k, ak), layout(r, k, n, bk), layout(r, m, n, 0))
					check(t, kern, r, m, n, k, layout(r, m, k, ak), layout(r, k, n, bk), layout(r, m, n, 1))
				}
			}
		})
	}
}

// TestThin covers the matrix-vector-like paths: m or n at most thinDim,
// with every layout of A and B.
func TestThin(t *testing.T) {
	for _, kern := range kernels() {
		t.Run(kern.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(10))
			for _, s := range [][3]int{{1, 1000, 300}, {3, 200, 77}, {300, 2, 129}, {1000, 1, 1000}, {8, 130, 65}, {5, 7, 200}} {
				m, n, k := s[0], s[1], s[2]
				for l := 0; l < 16; l++ {
					check(t, kern, r, m, n, k, layout(r, m, k, l%4), layout(r, k, n, l/4), layout(r, m, n, r.Intn(4)))
				}
			}
		})
	}
}

// TestBlockEdges crosses the kernels' mc, kc and nc block boundaries.
func TestBlockEdges(t *testing.T) {
	for _, kern := range kernels() {
		t.Run(kern.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(3))
			for _, s := range [][3]int{
				{kern.mc + 1, kern.nr + 1, kern.kc + 1},
				{2*kern.mc - 1, 3, 2*kern.kc + 3},
				{kern.mr, kern.nc + 5, 9},
				{kern.mr * 3, kern.nr * 2, kern.kc},
			} {
				m, n, k := s[0], s[1], s[2]
				check(t, kern, r, m, n, k, layout(r, m, k, 0), layout(r, k, n, 0), layout(r, m, n, 0))
			}
		})
	}
}

// TestBroadcast uses zero strides: repeated rows or columns of A and B, and
// elements of C that collect several updates.
func TestBroadcast(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, kern := range kernels() {
		for _, s := range [][3]int{{1, 1, 1}, {3, 5, 7}, {40, 50, 30}, {64, 64, 64}} {
			m, n, k := s[0], s[1], s[2]
			name := fmt.Sprintf("%s/%dx%dx%d", kern.name, m, n, k)
			t.Run(name, func(t *testing.T) {
				// A's rows all equal, B's columns all equal.
				check(t, kern, r, m, n, k, operand{off: 1, rs: 0, cs: 1, n: k + 1}, operand{rs: 1, cs: 0, n: k}, layout(r, m, n, 0))
				// A scalar times everything.
				check(t, kern, r, m, n, k, operand{n: 1}, layout(r, k, n, 1), layout(r, m, n, 2))
				// Every row of C is the same storage.
				check(t, kern, r, m, n, k, layout(r, m, k, 0), layout(r, k, n, 0), operand{rs: 0, cs: 1, n: n})
				// Every column of C is the same storage.
				check(t, kern, r, m, n, k, layout(r, m, k, 1), layout(r, k, n, 0), operand{rs: 1, cs: 0, n: m})
				// Rows of C overlap by all but one element.
				check(t, kern, r, m, n, k, layout(r, m, k, 0), layout(r, k, n, 1), operand{rs: 1, cs: 1, n: m + n})
				// All of C is one element.
				check(t, kern, r, m, n, k, layout(r, m, k, 0), layout(r, k, n, 0), operand{n: 1})
			})
		}
	}
}

// TestGenericPath runs F32 itself with the portable kernel.
func TestGenericPath(t *testing.T) {
	saved := active
	active = goKernel
	defer func() { active = saved }()
	r := rand.New(rand.NewSource(5))
	for _, s := range [][3]int{{33, 45, 70}, {5, 300, 20}, {130, 9, 260}} {
		m, n, k := s[0], s[1], s[2]
		a, b := randSlice(r, m*k), randSlice(r, k*n)
		c := make([]float32, m*n)
		want := make([]float32, m*n)
		F32(m, n, k, a, 0, k, 1, b, 0, n, 1, c, 0, n, 1)
		small32(m, n, k, a, 0, k, 1, b, 0, n, 1, want, 0, n, 1)
		for i := range c {
			if d := math.Abs(float64(c[i] - want[i])); d > 1e-4*float64(k) {
				t.Fatalf("%v: c[%d]=%g, want %g", s, i, c[i], want[i])
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	c := []float32{1, 2}
	for _, s := range [][3]int{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}, {-1, 2, 2}} {
		F32(s[0], s[1], s[2], nil, 0, 0, 0, nil, 0, 0, 0, c, 0, 1, 1)
		F64(s[0], s[1], s[2], nil, 0, 0, 0, nil, 0, 0, 0, nil, 0, 1, 1)
	}
	if c[0] != 1 || c[1] != 2 {
		t.Fatalf("C changed: %v", c)
	}
}

func TestOutOfBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"A", func() {
			F32(2, 2, 2, make([]float32, 3), 0, 2, 1, make([]float32, 4), 0, 2, 1, make([]float32, 4), 0, 2, 1)
		}},
		{"B", func() {
			F32(2, 2, 2, make([]float32, 4), 0, 2, 1, make([]float32, 4), 1, 2, 1, make([]float32, 4), 0, 2, 1)
		}},
		{"C", func() {
			F32(2, 2, 2, make([]float32, 4), 0, 2, 1, make([]float32, 4), 0, 2, 1, make([]float32, 4), 0, -2, 1)
		}},
		{"C", func() {
			F64(2, 2, 2, make([]float64, 4), 0, 2, 1, make([]float64, 4), 0, 2, 1, make([]float64, 3), 0, 2, 1)
		}},
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "gemm: "+tc.name+" ") {
					t.Errorf("%s out of bounds: panic %q", tc.name, msg)
				}
			}()
			tc.f()
		}()
	}
}

// TestConcurrent computes the four quadrants of C from four goroutines.
func TestConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	const m, n, k = 200, 180, 150
	a, b := randSlice(r, m*k), randSlice(r, k*n)
	want := make([]float32, m*n)
	F32(m, n, k, a, 0, k, 1, b, 0, n, 1, want, 0, n, 1)
	for rep := 0; rep < 4; rep++ {
		c := make([]float32, m*n)
		var wg sync.WaitGroup
		for q := 0; q < 4; q++ {
			i0, j0 := q/2*(m/2), q%2*(n/2)
			wg.Go(func() {
				F32(m/2, n/2, k, a, i0*k, k, 1, b, j0, n, 1, c, i0*n+j0, n, 1)
			})
		}
		wg.Wait()
		for i := range c {
			if c[i] != want[i] {
				t.Fatalf("c[%d]=%g, want %g", i, c[i], want[i])
			}
		}
	}
}

func TestF64(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for it := 0; it < 200; it++ {
		m, n, k := 1+r.Intn(20), 1+r.Intn(20), 1+r.Intn(20)
		ao, bo, co := layout(r, m, k, it%4), layout(r, k, n, (it/4)%4), layout(r, m, n, r.Intn(4))
		a, b, c := make([]float64, ao.n), make([]float64, bo.n), make([]float64, co.n)
		for _, s := range [][]float64{a, b, c} {
			for i := range s {
				s[i] = r.NormFloat64()
			}
		}
		ref := append([]float64(nil), c...)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					s += a[ao.off+i*ao.rs+p*ao.cs] * b[bo.off+p*bo.rs+j*bo.cs]
				}
				ref[co.off+i*co.rs+j*co.cs] += s
			}
		}
		F64(m, n, k, a, ao.off, ao.rs, ao.cs, b, bo.off, bo.rs, bo.cs, c, co.off, co.rs, co.cs)
		for i := range c {
			if math.Abs(c[i]-ref[i]) > 1e-12*float64(k)*(1+math.Abs(ref[i])) {
				t.Fatalf("m=%d n=%d k=%d: c[%d]=%g, want %g", m, n, k, i, c[i], ref[i])
			}
		}
	}
}

func benchmarkF32(bm *testing.B, size int) {
	r := rand.New(rand.NewSource(8))
	a, b := randSlice(r, size*size), randSlice(r, size*size)
	c := make([]float32, size*size)
	for bm.Loop() {
		F32(size, size, size, a, 0, size, 1, b, 0, size, 1, c, 0, size, 1)
	}
	flops := 2 * float64(size) * float64(size) * float64(size)
	bm.ReportMetric(flops*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkF32_256(b *testing.B)  { benchmarkF32(b, 256) }
func BenchmarkF32_512(b *testing.B)  { benchmarkF32(b, 512) }
func BenchmarkF32_1024(b *testing.B) { benchmarkF32(b, 1024) }

// BenchmarkKernels runs the blocked algorithm with each micro-kernel this
// machine supports.
func BenchmarkKernels(bm *testing.B) {
	r := rand.New(rand.NewSource(9))
	const size = 512
	a, b := randSlice(r, size*size), randSlice(r, size*size)
	c := make([]float32, size*size)
	for _, kern := range kernels() {
		bm.Run(fmt.Sprintf("%s/%d", kern.name, size), func(bm *testing.B) {
			for bm.Loop() {
				f32(kern, size, size, size, a, 0, size, 1, b, 0, size, 1, c, 0, size, 1)
			}
			bm.ReportMetric(2*size*size*size*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
