package codegen_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// A reduction shorter than the strategy's width (a global average pool's
// 7×7 = 49 elements) is summed in vectors of about √n lanes rather than
// entirely by the scalar remainder, and still sums every element once.
func TestShortReductionVectorized(t *testing.T) {
	for _, tc := range []struct {
		n     int
		lanes int // 0: not vectorized
	}{{1, 0}, {2, 2}, {7, 4}, {49, 8}, {100, 16}, {255, 16}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			src := strings.ReplaceAll(`func.func @f(%a: tensor<5xNxf32>) -> tensor<5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<5xNxf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}`, "N", fmt.Sprint(tc.n))
			ds := lowerAll(t, src, codegen.CPUStrategy)
			d := ds[len(ds)-1]
			text := d.Kernel.String()
			if tc.lanes == 0 {
				if strings.Contains(text, "reduce add") {
					t.Fatalf("a %d-element reduction was vectorized:\n%s", tc.n, text)
				}
			} else if want := fmt.Sprintf(": vector<%dxf32>", tc.lanes); !strings.Contains(text, "reduce add") || !strings.Contains(text, want) {
				t.Fatalf("a %d-element reduction is not summed in %d-lane vectors:\n%s", tc.n, tc.lanes, text)
			}
			r := rand.New(rand.NewSource(int64(tc.n)))
			a := random(5*tc.n, r)
			bind := bindArgs(d, [][]byte{bytesOf(a)}, sizeOf)
			run(t, d, bind)
			got := f32s(bind[0])
			for i := 0; i < 5; i++ {
				want := 0.0
				for k := 0; k < tc.n; k++ {
					want += float64(a[i*tc.n+k])
				}
				if math.Abs(float64(got[i])-want) > 1e-6*float64(tc.n) {
					t.Fatalf("row %d: got %v want %v", i, got[i], want)
				}
			}
		})
	}
}
