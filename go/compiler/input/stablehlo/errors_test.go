package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestStableHLOUnsupportedIsAnError checks that StableHLO ops and
// attributes gree does not convert fail with file:line:col and the op's
// name (never a panic, never a silently wrong program).
func TestStableHLOUnsupportedIsAnError(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown op", `%0 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>`,
			`e.mlir:2:3: error: 'stablehlo.triangular_solve' op is not supported by gree yet`},
		{"rng state layout", `%s = stablehlo.constant dense<1> : tensor<5xi32>
  %ns, %0 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<5xi32>) -> (tensor<5xi32>, tensor<4x4xf32>)`,
			`e.mlir:3:3: error: 'stablehlo.rng_bit_generator' op has a state of type tensor<5xi32>`},
		{"rng integer distribution", `%lo = stablehlo.constant dense<0> : tensor<i32>
  %sh = stablehlo.constant dense<[4, 4]> : tensor<2xi64>
  %i = stablehlo.rng %lo, %lo, %sh, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<4x4xi32>
  %0 = stablehlo.convert %i : (tensor<4x4xi32>) -> tensor<4x4xf32>`,
			`e.mlir:4:3: error: 'stablehlo.rng' op with i32 results is not supported by gree yet`},
		{"complex max reduction", `%c = stablehlo.complex %a, %a : tensor<4x4xcomplex<f32>>
  %z = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %p = stablehlo.reduce(%c init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
  %r = stablehlo.real %p : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %0 = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>`,
			`e.mlir:4:46: error: 'stablehlo.maximum' op in a complex reduction body is not supported by gree yet`},
		{"fft of f16", `%h = stablehlo.convert %a : (tensor<4x4xf32>) -> tensor<4x4xf16>
  %f = stablehlo.fft %h, type = RFFT, length = [4] : (tensor<4x4xf16>) -> tensor<4x3xcomplex<f16>>
  %r = stablehlo.real %f : (tensor<4x3xcomplex<f16>>) -> tensor<4x3xf16>
  %0 = stablehlo.pad %a, %a0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>`,
			`e.mlir:3:3: error: 'stablehlo.fft' op on f16 elements is not supported by gree yet (f32 and f64 only)`},
		{"ordered complex compare", `%c = stablehlo.complex %a, %a : tensor<4x4xcomplex<f32>>
  %p = stablehlo.compare LT, %c, %c : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xi1>
  %0 = stablehlo.select %p, %a, %a : tensor<4x4xi1>, tensor<4x4xf32>`,
			`e.mlir:3:3: error: 'stablehlo.compare' op orders complex numbers (only EQ and NE compare them)`},
		{"tuple escapes", `%t = stablehlo.tuple %a, %a : tuple<tensor<4x4xf32>, tensor<4x4xf32>>
  %0 = "stablehlo.optimization_barrier"(%t) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x4xf32>`,
			`e.mlir:3:3: error: 'stablehlo.optimization_barrier' op uses a tuple value`},
		{"dynamic pad amounts", `%lo = "stablehlo.get_dimension_size"(%a) {dimension = 0 : i64} : (tensor<4x4xf32>) -> tensor<i32>
  %l2 = stablehlo.reshape %lo : (tensor<i32>) -> tensor<1xi32>
  %l = stablehlo.concatenate %l2, %l2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %z = stablehlo.constant dense<0> : tensor<2xi32>
  %0 = stablehlo.dynamic_pad %a, %a0, %z, %z, %l : (tensor<4x4xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x4xf32>`,
			`e.mlir:6:3: error: 'stablehlo.dynamic_pad' op with padding amounts that are not constants is not supported by gree yet`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "func.func @main(%a: tensor<4x4xf32>, %a0: tensor<f32>) -> tensor<4x4xf32> {\n  " + c.body + "\n  return %0 : tensor<4x4xf32>\n}"
			m, err := parser.Parse("e.mlir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			err = input.Run(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %q", err, c.want)
			}
		})
	}
}

// TestCollectivesNeedOneDevice checks that collectives over groups of
// several devices are errors (gree runs a program on one device) while
// single-member groups convert.
func TestCollectivesNeedOneDevice(t *testing.T) {
	body := `func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`
	for _, c := range []struct{ module, group, want string }{
		{"module {\n", "[[0, 1]]> : tensor<1x2xi64>", "c.mlir:3:3: error: 'stablehlo.all_reduce' op has replica groups of 2 devices"},
		{"module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n", "[[0]]> : tensor<1x1xi64>", ""},
	} {
		src := c.module + strings.Replace(body, "[[0, 1]]> : tensor<1x2xi64>", c.group, 1) + "\n}"
		m, err := parser.Parse("c.mlir", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		err = input.Run(m)
		if c.want == "" && err != nil {
			t.Errorf("one-device all_reduce: %v", err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
