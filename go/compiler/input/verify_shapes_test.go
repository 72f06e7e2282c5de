package input

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestShapeContracts checks that operand shapes that break an op's
// contract are errors at the op's line in every input dialect, and that
// well-formed programs (including the prefix reads the conversions build)
// still convert.
func TestShapeContracts(t *testing.T) {
	const inner = "operand shapes do not match: input 0 (tensor<4x3xf32>) has 3 in dimension 1 where input 1 (tensor<5x6xf32>) has 5 in dimension 0 (they are summed over together"
	cases := []struct{ name, src, want string }{
		{"linalg.matmul inner dimensions", `func.func @f(%a: tensor<4x3xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<5x6xf32>) outs(%f : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %m : tensor<4x6xf32>
}`, "s.mlir:5:3: error: " + inner},
		{"stablehlo.dot inner dimensions", `func.func @f(%a: tensor<4x3xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x3xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}`, "s.mlir:2:3: error: " + inner},
		{"stablehlo.dot_general contracting dimensions", `func.func @f(%a: tensor<2x4x3xf32>, %b: tensor<2x5x6xf32>) -> tensor<2x4x6xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x3xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}`, "s.mlir:2:3: error: operand shapes do not match: input 0 (tensor<2x4x3xf32>) has 3 in dimension 2 where input 1 (tensor<2x5x6xf32>) has 5 in dimension 1"},
		{"generic reading past an input", `func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}`, "s.mlir:3:3: error: operand shapes do not match: the result (tensor<8xf32>) has 8 in dimension 0 where input 0 (tensor<4xf32>) has 4 in dimension 0 (it is smaller"},
		{"well-formed matmul", `func.func @f(%a: tensor<4x3xf32>, %b: tensor<3x6xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x3xf32>, tensor<3x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}`, ""},
		{"dynamic inner dimension", `func.func @f(%a: tensor<4x?xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x?xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := parser.Parse("s.mlir", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			err = Run(m)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v\nwant %q", err, c.want)
			}
		})
	}
}
