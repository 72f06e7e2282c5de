package llvmcpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// epiCase is one fused Contract epilogue: which steps, the bias's stride,
// and the bounds.
type epiCase struct {
	name       string
	bias, col  bool
	biasStride int64
	res        bool
	lo, hi     float64 // NaN: no bound
}

// epiContract is g's tiled Contract followed by epilogue e: fused into
// the Contract, or as a kernel-IR sweep over the stored tile (the
// reference the fused form must match bit for bit). Bindings 3 and 4
// are the bias and the residual (laid out like C).
func epiContract(g gemm, tm, tn int64, e epiCase, fused bool) (*kir.Kernel, [3]int64) {
	more := []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}}
	return tiledContractWith(g, tm, tn, more, func(b *kir.Builder, a [12]kir.Value, m0, n0 kir.Value) {
		f32 := kir.S(kir.F32)
		bs := b.Idx(e.biasStride)
		first := m0
		if e.col {
			first = n0
		}
		biasOff := b.Bin(kir.Mul, first, bs)
		rrs, rcs := b.Idx(g.st[4]), b.Idx(g.st[5])
		ep := kir.NoContractEpilogue
		if e.bias {
			ep.Bias, ep.BiasOff, ep.BiasStride, ep.PerColumn = 3, biasOff, bs, e.col
		}
		if e.res {
			ep.Res, ep.ResOff, ep.ResRS, ep.ResCS = 4, a[6], rrs, rcs
		}
		if !math.IsNaN(e.lo) {
			ep.Lo = b.Float(f32, e.lo)
		}
		if !math.IsNaN(e.hi) {
			ep.Hi = b.Float(f32, e.hi)
		}
		if fused {
			b.ContractWith(0, 1, 2, a, 0, ep)
			return
		}
		b.Contract(0, 1, 2, a, 0)
		one := b.Idx(1)
		b.For(b.Idx(0), a[9], one, nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			b.For(b.Idx(0), a[10], one, nil, func(b *kir.Builder, j kir.Value, _ []kir.Value) []kir.Value {
				off := b.Bin(kir.Add, a[6], b.Bin(kir.Add, b.Bin(kir.Mul, i, a[7]), b.Bin(kir.Mul, j, a[8])))
				v := b.Load(2, f32, off)
				if e.bias {
					k := i
					if e.col {
						k = j
					}
					v = b.Bin(kir.Add, v, b.Load(3, f32, b.Bin(kir.Add, biasOff, b.Bin(kir.Mul, k, bs))))
				}
				if e.res {
					roff := b.Bin(kir.Add, a[6], b.Bin(kir.Add, b.Bin(kir.Mul, i, rrs), b.Bin(kir.Mul, j, rcs)))
					v = b.Bin(kir.Add, v, b.Load(4, f32, roff))
				}
				if ep.Lo >= 0 {
					v = b.Bin(kir.MaxF, v, ep.Lo)
				}
				if ep.Hi >= 0 {
					v = b.Bin(kir.MinF, v, ep.Hi)
				}
				b.Store(2, off, v)
				return nil
			})
			return nil
		})
	})
}

// TestContractEpilogueFused checks the Contract's fused epilogue against
// the same steps swept over the stored tile, bit for bit, natively: per
// row and per column biases, a residual, bounds, on the register blocks
// (full, masked, half-width, N = 49's column along M, several K panels)
// and on the paths that apply it by a sweep (one row, a column-major C,
// strided biases and residuals). The residual holds NaNs, which the
// bounds must propagate.
func TestContractEpilogueFused(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(21, 22))
	nan := math.NaN()
	cases := []epiCase{
		{name: "bias_clip", bias: true, biasStride: 1, lo: 0, hi: 0.5},
		{name: "bias", bias: true, biasStride: 1, lo: nan, hi: nan},
		{name: "bias_res", bias: true, biasStride: 1, res: true, lo: nan, hi: nan},
		{name: "colbias_relu", bias: true, col: true, biasStride: 1, lo: 0, hi: nan},
		{name: "colbias_stride2", bias: true, col: true, biasStride: 2, lo: nan, hi: 1},
		{name: "rowbias_stride3_res_clip", bias: true, biasStride: 3, res: true, lo: -0.25, hi: 0.25},
		{name: "res_min", res: true, lo: nan, hi: 0},
	}
	shapes := []gemm{
		rowMajor("m37n49k20", 37, 49, 20, false),
		rowMajor("m16n49k300", 16, 49, 300, false),
		rowMajor("m24n300k16", 24, 300, 16, false),
		rowMajor("m13n25k7", 13, 25, 7, false),
		rowMajor("m9n56k600", 9, 56, 600, false),
		rowMajor("bt_m11n40k33", 11, 40, 33, true),
		rowMajor("m1n70k30", 1, 70, 30, false),
		gemm{name: "ccol", m: 37, n: 21, k: 19, st: [6]int64{19, 1, 21, 1, 1, 37}, batch: 1},
	}
	for _, g := range shapes {
		sz := g.sizes()
		a, bb := enc(kir.F32, randFloats(r, int(sz[0]), 1)), enc(kir.F32, randFloats(r, int(sz[1]), 1))
		c0 := randFloats(r, int(sz[2]), 1)
		bias := enc(kir.F32, randFloats(r, 3*int(max(g.m, g.n)), 1))
		resv := randFloats(r, int(sz[2]), 1)
		resv[len(resv)/2] = nan
		res := enc(kir.F32, resv)
		var ks []*kir.Kernel
		var grids [][3]int64
		for _, e := range cases {
			for _, fused := range []bool{false, true} {
				k, grid := epiContract(g, 16, 64, e, fused)
				k.Name = fmt.Sprintf("%s_%s_%v", g.name, e.name, fused)
				ks, grids = append(ks, k), append(grids, grid)
			}
		}
		x := build(t, m, ks...)
		for ci, e := range cases {
			var got [2][]byte
			for v := range got {
				c, grid := enc(kir.F32, c0), grids[2*ci+v]
				if err := x.Run(2*ci+v, 0, grid[0]*grid[1]*grid[2], grid, nil, [][]byte{a, bb, c, bias, res}); err != nil {
					t.Fatalf("%s: %v", ks[2*ci+v].Name, err)
				}
				got[v] = c
			}
			for i := 0; i < len(got[0]); i += 4 {
				if string(got[0][i:i+4]) != string(got[1][i:i+4]) {
					t.Errorf("%s %s: element %d fused %v, swept %v", g.name, e.name, i/4, value(kir.F32, got[1][i:]), value(kir.F32, got[0][i:]))
					break
				}
			}
		}
	}
}
