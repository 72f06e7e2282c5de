package stablehlo_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// Unsupported forms of the indexing ops are diagnostics at the op's
// file:line:col that name the op, never panics.
func TestIndexingOpErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"variadic scatter mixing inputs", `
  %0:2 = "stablehlo.scatter"(%x, %x, %i, %u, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    stablehlo.return %b, %d : tensor<f32>, tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)`,
			"t.mlir:2:3: error: 'stablehlo.scatter' op computes result 0 from another input's values, which gree does not support"},
		{"scatter dimension numbers", `
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'stablehlo.scatter' op has scatter_dimension_numbers that do not match its operand ranks"},
		{"scatter body", `
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.cholesky"(%b) : (tensor<f32>) -> tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>`,
			"t.mlir:4:5: error: 'stablehlo.cholesky' op in a scalar region is not supported by gree yet"},
		{"gather slice sizes", `
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>`,
			"t.mlir:2:3: error: 'stablehlo.gather' op has dimension numbers or slice sizes that do not match its operand ranks"},
		{"dynamic_gather sizes", `
  %s = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2xi64>
  %0 = "stablehlo.dynamic_gather"(%x, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x3xf32>`,
			"t.mlir:3:3: error: 'stablehlo.dynamic_gather' op with slice sizes that are not constant is not supported by gree"},
		{"sort dimension", `
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 2 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'stablehlo.sort' op has dimension 2 outside the operand rank 2"},
		{"sort comparator", `
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>`,
			"t.mlir:2:3: error: 'stablehlo.sort' op needs a comparator that returns one i1"},
		{"top_k k", `
  %v, %j = chlo.top_k(%x, k = 5) : tensor<4x3xf32> -> (tensor<4x5xf32>, tensor<4x5xi32>)`,
			"t.mlir:2:3: error: 'chlo.top_k' op has k = 5 outside the last dimension's size 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "func.func @f(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) {" + c.body + "\n  return\n}\n"
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

// Random dimension numbers never make the gather and scatter conversions
// panic: they either convert or give a diagnostic.
func TestIndexingDimensionNumbersNeverPanic(t *testing.T) {
	list := func(r *rand.Rand) string {
		var xs []string
		for i := r.Intn(4); i > 0; i-- {
			xs = append(xs, fmt.Sprint(r.Intn(6)-1))
		}
		return "[" + strings.Join(xs, ", ") + "]"
	}
	r := rand.New(rand.NewSource(12))
	for i := 0; i < 300; i++ {
		gather := fmt.Sprintf(`"stablehlo.gather"(%%x, %%i) {dimension_numbers = #stablehlo.gather<offset_dims = %s, collapsed_slice_dims = %s, operand_batching_dims = %s, start_indices_batching_dims = %s, start_index_map = %s, index_vector_dim = %d>, slice_sizes = array<i64: 1, 2, 1>} : (tensor<4x3x2xf32>, tensor<2x3x2xi32>) -> tensor<2x3x2xf32>`,
			list(r), list(r), list(r), list(r), list(r), r.Intn(5)-1)
		scatter := fmt.Sprintf(`"stablehlo.scatter"(%%x, %%i, %%u) ({
  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
    stablehlo.return %%b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = %s, inserted_window_dims = %s, input_batching_dims = %s, scatter_indices_batching_dims = %s, scatter_dims_to_operand_dims = %s, index_vector_dim = %d>} : (tensor<4x3x2xf32>, tensor<2x3x2xi32>, tensor<2x3x2xf32>) -> tensor<4x3x2xf32>`,
			list(r), list(r), list(r), list(r), list(r), r.Intn(5)-1)
		for _, body := range []string{gather, scatter} {
			src := "func.func @f(%x: tensor<4x3x2xf32>, %i: tensor<2x3x2xi32>, %u: tensor<2x3x2xf32>) {\n  %0 = " + body + "\n  return\n}\n"
			m, err := parser.Parse("t.mlir", []byte(src))
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, src)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic %v on\n%s", p, src)
					}
				}()
				if input.Run(m) != nil {
					return
				}
				// Accepted forms must also lower to kernels without panics.
				if err := flow.Run(m); err != nil {
					return
				}
				m.Op.Walk(func(op *ir.Operation) bool {
					if op.Name == flow.RegionName {
						_, _ = codegen.Lower(op, "k", codegen.CPUStrategy)
						return false
					}
					return true
				})
			}()
		}
	}
}
