package codegen_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// A Contract with few rows over many columns (a 1×1 convolution with 16
// output channels) gets column tiles four times as wide on a
// tile-invariant target, and the fixed tiles elsewhere.
func TestContractFewRowsWideColumns(t *testing.T) {
	src := `func.func @f(%a: tensor<16x32xf32>, %b: tensor<32x3136xf32>) -> tensor<16x3136xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x3136xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x3136xf32>) -> tensor<16x3136xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x32xf32>, tensor<32x3136xf32>) outs(%f : tensor<16x3136xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x3136xf32>
  return %m : tensor<16x3136xf32>
}`
	for _, tc := range []struct {
		minWG, want int64
	}{{16, 512}, {0, 128}} {
		st := codegen.Strategy{VectorWidth: 32, WorkgroupElements: 8192, Contract: true, ContractTile: [2]int64{96, 128}, ContractMinWorkgroups: tc.minWG}
		ds := lowerAll(t, src, st)
		if got := ds[len(ds)-1].Kernel.Grid[0].Tile; got != tc.want {
			t.Errorf("ContractMinWorkgroups %d: column tile %d, want %d", tc.minWG, got, tc.want)
		}
	}
}
