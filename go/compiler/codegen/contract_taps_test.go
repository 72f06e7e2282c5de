package codegen_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// tappedSrc is a convolution with unit strides as the ONNX importer's
// tapped contraction: P[m, q] = Σ_c Σ_i Σ_j W[m, i, j, c] · X[c, q +
// i·wp + j + off] over q < n, plus a bias per row and a ReLU.
func tappedSrc(M, C, KH, KW, wp, L, n, off int64) string {
	return fmt.Sprintf(`func.func @f(%%w: tensor<%[1]dx%[3]dx%[4]dx%[2]dxf32>, %%x: tensor<%[2]dx%[6]dxf32>, %%b: tensor<%[1]dxf32>) -> tensor<%[1]dx%[7]dxf32> {
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%[1]dx%[7]dxf32>
  %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<%[1]dx%[7]dxf32>) -> tensor<%[1]dx%[7]dxf32>
  %%p = linalg.generic {indexing_maps = [affine_map<(m, q, c, i, j) -> (m, i, j, c)>, affine_map<(m, q, c, i, j) -> (c, q + i * %[5]d + j + %[8]d)>, affine_map<(m, q, c, i, j) -> (m, q)>], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%%w, %%x : tensor<%[1]dx%[3]dx%[4]dx%[2]dxf32>, tensor<%[2]dx%[6]dxf32>) outs(%%f : tensor<%[1]dx%[7]dxf32>) {
  ^bb0(%%a: f32, %%y: f32, %%acc: f32):
    %%m1 = arith.mulf %%a, %%y : f32
    %%s = arith.addf %%acc, %%m1 : f32
    linalg.yield %%s : f32
  } -> tensor<%[1]dx%[7]dxf32>
  %%e2 = tensor.empty() : tensor<%[1]dx%[7]dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(m, q) -> (m, q)>, affine_map<(m, q) -> (m)>, affine_map<(m, q) -> (m, q)>], iterator_types = ["parallel", "parallel"]} ins(%%p, %%b : tensor<%[1]dx%[7]dxf32>, tensor<%[1]dxf32>) outs(%%e2 : tensor<%[1]dx%[7]dxf32>) {
  ^bb0(%%v: f32, %%c: f32, %%o: f32):
    %%t = arith.addf %%v, %%c : f32
    %%u = arith.maximumf %%t, %%z : f32
    linalg.yield %%u : f32
  } -> tensor<%[1]dx%[7]dxf32>
  return %%r : tensor<%[1]dx%[7]dxf32>
}`, M, C, KH, KW, wp, L, n, off)
}

// A tapped contraction runs as one Contract per tap summed in the C tile
// (the bias and ReLU in the last one's stores where the strategy fuses
// epilogues) where the strategy has ContractTaps; without it, or with a constant offset in B's column
// index (not a tapped contraction), it stays a loop nest. All give the
// sums of the definition.
func TestTappedContract(t *testing.T) {
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	fused := codegen.Strategy{VectorWidth: 8, WorkgroupElements: 64, Contract: true, ContractTile: [2]int64{16, 32}, ContractEpilogue: true, ContractTaps: true}
	noTaps := fused
	noTaps.ContractTaps = false
	for _, c := range []struct {
		M, C, KH, KW, H, W, off int64
		st                      codegen.Strategy
		contracts               int
	}{
		{M: 20, C: 7, KH: 3, KW: 3, H: 9, W: 11, st: codegen.CPUStrategy, contracts: 9},
		{M: 37, C: 12, KH: 3, KW: 2, H: 8, W: 13, st: fused, contracts: 6},
		{M: 5, C: 4, KH: 1, KW: 5, H: 3, W: 17, st: fused, contracts: 5},
		{M: 6, C: 4, KH: 2, KW: 2, H: 5, W: 6, off: 1, st: fused, contracts: 0},
		{M: 9, C: 5, KH: 3, KW: 3, H: 6, W: 8, st: noTaps, contracts: 0},
		{M: 3, C: 2, KH: 7, KW: 8, H: 9, W: 10, st: fused, contracts: 0}, // 56 taps, over maxContractTaps
	} {
		name := fmt.Sprintf("%dx%dx%dx%d_%dx%d_off%d", c.M, c.C, c.KH, c.KW, c.H, c.W, c.off)
		t.Run(name, func(t *testing.T) {
			OH, OW := c.H-c.KH+1, c.W-c.KW+1
			n := (OH-1)*c.W + OW - c.off
			L := c.H * c.W
			ds := lowerAll(t, tappedSrc(c.M, c.C, c.KH, c.KW, c.W, L, n, c.off), c.st)
			got := 0
			for _, d := range ds {
				got += strings.Count(d.Kernel.String(), "contract")
			}
			if got != c.contracts {
				t.Fatalf("%d contract ops, want %d:\n%s", got, c.contracts, ds[len(ds)-1].Kernel)
			}
			r := rand.New(rand.NewSource(3))
			w, x, b := random(int(c.M*c.KH*c.KW*c.C), r), random(int(c.C*L), r), random(int(c.M), r)
			args := [][]byte{bytesOf(w), bytesOf(x), bytesOf(b)}
			var out []byte
			for _, d := range ds {
				bind := bindArgs(d, args, sizeOf)
				run(t, d, bind)
				out = bind[0]
			}
			p := f32s(out)
			for m := int64(0); m < c.M; m++ {
				for q := int64(0); q < n; q++ {
					want := float64(b[m])
					for ch := int64(0); ch < c.C; ch++ {
						for i := int64(0); i < c.KH; i++ {
							for j := int64(0); j < c.KW; j++ {
								want += float64(w[((m*c.KH+i)*c.KW+j)*c.C+ch]) * float64(x[ch*L+q+i*c.W+j+c.off])
							}
						}
					}
					want = math.Max(want, 0)
					if g := float64(p[m*n+q]); math.Abs(g-want) > 1e-4 {
						t.Fatalf("P[%d, %d] = %v, want %v", m, q, g, want)
					}
				}
			}
		})
	}
}
