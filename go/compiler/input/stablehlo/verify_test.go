package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestMalformedDataMovementIsAnError checks that data-movement ops whose
// attributes do not fit their shapes are errors naming the op and its
// location (they crashed the conversion before).
func TestMalformedDataMovementIsAnError(t *testing.T) {
	cases := []struct{ op, want string }{
		{`%0 = stablehlo.broadcast_in_dim %x, dims = [7, 1] : (tensor<4x1xf32>) -> tensor<4x5xf32>`, "broadcast_dimensions [7 1] that are not distinct"},
		{`%0 = stablehlo.broadcast_in_dim %x, dims = [0, 0] : (tensor<4x1xf32>) -> tensor<4x5xf32>`, "not distinct dimensions"},
		{`%0 = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<4x1xf32>) -> tensor<4x5xf32>`, "has 1 broadcast_dimensions for an operand of rank 2"},
		{`%0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<5x4xf32>`, "broadcasts operand dimension 0 of size 4 to a result dimension of size 5"},
		{`%0 = stablehlo.transpose %x, dims = [1, 1] : (tensor<4x1xf32>) -> tensor<1x4xf32>`, "not a permutation of its 2 dimensions"},
		{`%0 = stablehlo.transpose %x, dims = [2, 0] : (tensor<4x1xf32>) -> tensor<1x4xf32>`, "not a permutation"},
		{`%0 = stablehlo.reverse %x, dims = [3] : tensor<4x1xf32>`, "reverses dimension 3 of a rank-2 tensor"},
		{`%0 = stablehlo.slice %x [0:5, 0:1] : (tensor<4x1xf32>) -> tensor<5x1xf32>`, "slice bounds [0:5:1] that do not fit dimension 0"},
		{`%0 = stablehlo.slice %x [0:4:2, 0:1] : (tensor<4x1xf32>) -> tensor<3x1xf32>`, "slice bounds [0:4:2]"},
		{`%0 = stablehlo.concatenate %x, %x, dim = 3 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<8x1xf32>`, "concatenates along dimension 3 of rank-2 tensors"},
		{`%0 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<9x1xf32>`, "concatenates 8 elements along dimension 0 into a result of size 9"},
	}
	for _, c := range cases {
		rt := c.op[strings.LastIndex(c.op, " ")+1:]
		src := "func.func @f(%x: tensor<4x1xf32>) -> " + rt + " {\n  " + c.op + "\n  return %0 : " + rt + "\n}"
		m, err := parser.Parse("v.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		err = input.Run(m)
		if err == nil || !strings.HasPrefix(err.Error(), "v.mlir:2:3: error: 'stablehlo.") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %q", c.op, err, c.want)
		}
	}
}
