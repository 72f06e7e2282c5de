package linalgext_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// Malformed or unsupported iree_linalg_ext ops are diagnostics at the
// op's file:line:col that name the op.
func TestLinalgExtErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"scatter without dimension_map", `
  %0 = "iree_linalg_ext.scatter"(%u, %i, %x) ({
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  }) {operandSegmentSizes = array<i32: 2, 1>} : (tensor<2xf32>, tensor<2x1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'iree_linalg_ext.scatter' op needs a dimension_map"},
		{"sort with ins", `
  %0 = iree_linalg_ext.sort dimension(0) ins(%x : tensor<4x3xf32>) outs(%x : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'iree_linalg_ext.sort' op with ins operands is not supported by gree (sort its outs)"},
		{"gather rank", `
  %0 = iree_linalg_ext.gather dimension_map = [0, 1, 2] ins(%x, %i : tensor<4x3xf32>, tensor<2x1xi32>) outs(%u : tensor<2xf32>) -> tensor<2xf32>`,
			"t.mlir:2:3: error: 'iree_linalg_ext.gather' op has source, indices and output ranks that do not fit its dimension_map"},
		{"winograd tile", `
  %e = tensor.empty() : tensor<6x6x1x1x1x1xf32>
  %0 = iree_linalg_ext.winograd.input_transform output_tile_size(4) kernel_size(3) image_dimensions([0, 1]) ins(%x4 : tensor<4x4x1x1xf32>) outs(%e : tensor<6x6x1x1x1x1xf32>) -> tensor<6x6x1x1x1x1xf32>`,
			"t.mlir:3:3: error: 'iree_linalg_ext.winograd.input_transform' op with output tile size 4 and kernel size 3 is not supported (6 and 3 are)"},
		{"attention without k2", `
  %s = arith.constant 1.0 : f32
  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d2)>]} ins(%x, %x, %x, %s : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, f32) outs(%x : tensor<4x3xf32>) {
  ^bb0(%a: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<4x3xf32>`,
			"t.mlir:3:3: error: 'iree_linalg_ext.attention' op has indexing maps without a QKᵀ or a PV reduction dimension"},
		{"topk_v2 input indices only", `
  %0 = iree_linalg_ext.topk_v2 dimension(1) ins(%x, %i4 : tensor<4x3xf32>, tensor<4x3xi32>) outs(%x : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'iree_linalg_ext.topk_v2' op has input indices but no output indices"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>, %x4: tensor<4x4x1x1xf32>, %i4: tensor<4x3xi32>) {" + c.body + "\n  return\n}\n"
			m, err := parser.Parse("t.mlir", []byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = input.Run(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got error %v\nwant %q", err, c.want)
			}
		})
	}
}
