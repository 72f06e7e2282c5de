package codegen_test

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// TestMaxPoolVectorizesAcrossOutputs checks that a 3×3 stride-2 max pool
// (a reduction over a small static window with an order-free combiner)
// is vectorized along the output columns, each lane one output reducing
// its window, not along the window's 3-element rows; and that it
// computes the pool, NaN included.
func TestMaxPoolVectorizesAcrossOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	const C, H, W, OH, OW = 3, 23, 23, 11, 11
	src := `func.func @f(%x: tensor<1x3x23x23xf32>) -> tensor<1x3x11x11xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x3x11x11xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x3x11x11xf32>) -> tensor<1x3x11x11xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, kh, kw) -> (n, c, h * 2 + kh, w * 2 + kw)>, affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>, affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %k : tensor<1x3x23x23xf32>, tensor<3x3xf32>) outs(%f : tensor<1x3x11x11xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x3x11x11xf32>
  return %r : tensor<1x3x11x11xf32>
}`
	for _, st := range []codegen.Strategy{codegen.CPUStrategy, {VectorWidth: 8, WorkgroupElements: 64}} {
		ds := lowerAll(t, src, st)
		// The fill of −Inf, then the pool.
		if len(ds) != 2 {
			t.Fatalf("%d dispatches, want 2", len(ds))
		}
		pool := ds[1]
		text := pool.Kernel.String()
		if strings.Contains(text, "reduce max") || !strings.Contains(text, "load_strided") {
			t.Errorf("the pool is not vectorized along its output columns:\n%s", text)
		}
		r := rand.New(rand.NewSource(3))
		x := random(C*H*W, r)
		x[5*W+7] = float32(math.NaN())
		ninf := make([]float32, C*OH*OW)
		for i := range ninf {
			ninf[i] = float32(math.Inf(-1))
		}
		bind := bindArgs(pool, [][]byte{bytesOf(x)}, func(v *ir.Value) int { return sizeOf(v) })
		for i, v := range pool.Bindings {
			if len(bind[i]) == 4*C*OH*OW && sizeOf(v) == 4*C*OH*OW {
				bind[i] = bytesOf(ninf)
			}
		}
		run(t, pool, bind)
		got := f32s(bind[0])
		for c := 0; c < C; c++ {
			for i := 0; i < OH; i++ {
				for j := 0; j < OW; j++ {
					want := float32(math.Inf(-1))
					for a := 0; a < 3; a++ {
						for b := 0; b < 3; b++ {
							v := x[c*H*W+(2*i+a)*W+2*j+b]
							if v != v || want != want {
								want = float32(math.NaN())
							} else if v > want {
								want = v
							}
						}
					}
					g := got[(c*OH+i)*OW+j]
					if g != want && !(g != g && want != want) {
						t.Fatalf("output (%d,%d,%d) = %v, want %v", c, i, j, g, want)
					}
				}
			}
		}
	}
}
