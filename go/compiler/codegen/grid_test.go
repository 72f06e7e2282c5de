package codegen_test

import (
	"math/rand"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// A copy whose first loop is shorter than the threads' share (an im2col
// of two groups: [2, 9, 64, 64] from a transposed input) gets that loop
// as the grid's y dimension and its next loop split along x, so that it
// has more than two workgroups; the copy's values are the same.
func TestShortLeadingLoopSplitsNextLoop(t *testing.T) {
	src := `func.func @f(%a: tensor<64x64x9x2xf32>) -> tensor<2x9x64x64xf32> {
  %e = tensor.empty() : tensor<2x9x64x64xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d2, d1, d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<64x64x9x2xf32>) outs(%e : tensor<2x9x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x9x64x64xf32>
  return %c : tensor<2x9x64x64xf32>
}`
	st := codegen.Strategy{VectorWidth: 32, WorkgroupElements: 8192}
	ds := lowerAll(t, src, st)
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want 1", len(ds))
	}
	k := ds[0].Kernel
	if g := k.Grid[1]; g.Static != 2 || g.Tile != 1 {
		t.Errorf("grid y %+v, want the 2 groups, one per workgroup row", g)
	}
	if g := k.Grid[0]; g.Static != 9 || (g.Static+g.Tile-1)/g.Tile < 2 {
		t.Errorf("grid x %+v, want the 9 taps in two or more workgroups", g)
	}
	r := rand.New(rand.NewSource(3))
	a := random(64*64*9*2, r)
	out := make([]byte, 4*len(a))
	bind := make([][]byte, len(ds[0].Bindings))
	args := ds[0].Region.ParentOp().Regions[0].Blocks[0].Args
	for i, v := range ds[0].Bindings {
		bind[i] = out
		if v == args[0] {
			bind[i] = bytesOf(a)
		}
	}
	run(t, ds[0], bind)
	got := f32s(out)
	for g := 0; g < 2; g++ {
		for p := 0; p < 9; p++ {
			for y := 0; y < 64; y++ {
				for x := 0; x < 64; x++ {
					want := a[((x*64+y)*9+p)*2+g]
					if v := got[((g*9+p)*64+y)*64+x]; v != want {
						t.Fatalf("[%d,%d,%d,%d] = %v, want %v", g, p, y, x, v, want)
					}
				}
			}
		}
	}
}
