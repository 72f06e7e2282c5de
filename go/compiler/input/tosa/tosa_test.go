package tosa_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestTosaErrors checks that unsupported TOSA ops and malformed
// attributes are diagnostics naming file:line:col and the op.
func TestTosaErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`%r = tosa.rfft2d %x : (tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.rfft2d' op expects 1 inputs and 2 results"},
		{`%r = tosa.custom %x {domain_name = "d", implementation_attrs = "", operator_name = "op"} : (tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.custom' op is not supported"},
		{`%r = tosa.clamp %x : (tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.clamp' op needs min_val and max_val"},
		{`%r = tosa.rescale %x {input_zp = 0 : i32, output_zp = 0 : i32, multiplier = array<i32: 1>, shift = array<i8: 2>, scale32 = true, double_round = false, per_channel = false} : (tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.rescale' op rescales integers only"},
		{`%r = tosa.transpose %x {perms = array<i32: 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.transpose' op has an invalid permutation"},
		{`%r = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>`, "'tosa.reduce_sum' op needs an 'axis' within the input rank 2"},
		{`%r = tosa.bitwise_and %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>`, "'tosa.bitwise_and' op is not defined for elements of type f32"},
		{`%t = "tosa.const"() <{values = dense<0> : tensor<100xi8>}> : () -> tensor<100xi8>
  %i = tosa.cast %x : (tensor<2x4xf32>) -> tensor<2x4xi8>
  %r = tosa.table %i, %t : (tensor<2x4xi8>, tensor<100xi8>) -> tensor<2x4xi8>`, "'tosa.table' op needs a 256-entry table"},
		{`%s = tosa.const_shape {values = dense<[1, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.pad %x, %s, %c : (tensor<2x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<9x9xf32>`, "'tosa.pad' op has padding [1 0 1 0] that does not give the result shape"},
		{`%r = tosa.mul %x, %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1xi8>) -> tensor<2x4xf32>`, "'tosa.mul' op needs a constant operand #2"},
		{`%w = "tosa.const"() <{values = dense<1.0> : tensor<3x2x2x4xf32>}> : () -> tensor<3x2x2x4xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %i = tosa.reshape %x {new_shape = array<i64: 1, 2, 1, 4>} : (tensor<2x4xf32>) -> tensor<1x2x1x4xf32>
  %r = tosa.conv2d %i, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x1x4xf32>, tensor<3x2x2x4xf32>, tensor<3xf32>) -> tensor<1x1x1x3xf32>`, "'tosa.conv2d' op has a result shape [1 1 1 3] that does not match"},
		{`%i = tosa.cast %x : (tensor<2x4xf32>) -> tensor<2x4xi32>
  %r = tosa.rescale %i {input_zp = 0 : i32, output_zp = 0 : i32, multiplier = array<i32: 1, 2>, shift = array<i8: 2, 3>, scale32 = true, double_round = false, per_channel = true} : (tensor<2x4xi32>) -> tensor<2x4xi8>`, "'tosa.rescale' op needs 4 multipliers and shifts (per_channel = true)"},
	}
	for _, c := range cases {
		src := "func.func @f(%x: tensor<2x4xf32>, %y: tensor<1xi8>) -> () {\n  " + c.body + "\n  return\n}\n"
		m, err := parser.Parse("bad.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: parse: %v", c.want, err)
		}
		err = input.Run(m)
		if err == nil {
			t.Errorf("%s: no error", c.want)
			continue
		}
		line := strings.Count(src[:strings.Index(src, "%r =")], "\n") + 1
		prefix := "bad.mlir:" + string(rune('0'+line)) + ":3: error: "
		if !strings.Contains(err.Error(), prefix+c.want) {
			t.Errorf("got %q, want it to contain %q", err, prefix+c.want)
		}
	}
}
