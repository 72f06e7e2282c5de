package tosa_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// tosaOpNames lists every TOSA op the parser knows.
var tosaOpNames = []string{
	"abs", "add", "argmax", "arithmetic_right_shift", "avg_pool2d", "bitwise_and", "bitwise_not",
	"bitwise_or", "bitwise_xor", "cast", "ceil", "clamp", "clz", "concat", "conv2d", "conv3d", "cos",
	"custom", "depthwise_conv2d", "div", "equal", "erf", "exp", "fft2d", "floor", "fully_connected",
	"gather", "greater", "greater_equal", "identity", "intdiv", "log", "logical_and", "logical_left_shift",
	"logical_not", "logical_or", "logical_right_shift", "logical_xor", "matmul", "max_pool2d", "maximum",
	"minimum", "mul", "negate", "pad", "pow", "reciprocal", "reduce_all", "reduce_any", "reduce_max",
	"reduce_min", "reduce_prod", "reduce_product", "reduce_sum", "rescale", "reshape", "resize", "reverse",
	"rfft2d", "rsqrt", "scatter", "select", "sigmoid", "sin", "slice", "sub", "table", "tanh", "tile",
	"transpose", "transpose_conv2d",
}

// TestTosaMalformedNeverPanics converts every TOSA op with operand lists
// and attributes that do not fit it: each must convert or fail with a
// diagnostic, never panic.
func TestTosaMalformedNeverPanics(t *testing.T) {
	operands := map[string]string{
		"%a": "tensor<2x3xf32>", "%i": "tensor<2x3xi8>", "%s": "!tosa.shape<2>", "%z": "tensor<i32>",
		"%q": "tensor<1x4x4x2xi8>", "%u": "tensor<1xi8>", "%d": "tensor<?x4x4x2xi8>", "%e": "tensor<4x?xf32>",
	}
	lists := [][]string{{}, {"%a"}, {"%s"}, {"%z"}, {"%a", "%s"}, {"%i", "%i"}, {"%a", "%a", "%a"}, {"%q", "%q", "%u"},
		{"%q", "%u", "%u", "%u", "%u"}, {"%z", "%s", "%s", "%s"}, {"%a", "%z"}, {"%q", "%a", "%z", "%u", "%u"},
		{"%q", "%s", "%u"}, {"%q", "%q", "%s"}, {"%a", "%s", "%s"}, {"%q", "%q", "%q", "%s", "%s"}, {"%i", "%s", "%s", "%s", "%s"},
		{"%d"}, {"%d", "%q", "%u"}, {"%d", "%d", "%u", "%u", "%u"}, {"%e"}, {"%e", "%e"}, {"%e", "%a", "%a"}, {"%d", "%s", "%s", "%s"}}
	results := []string{"tensor<2x3xf32>", "tensor<1x4x4x2xi32>", "tensor<i1>", "tensor<3x2xi8>", "tensor<2x3xf32>, tensor<2x3xf32>",
		"tensor<?x4x4x2xi32>", "tensor<?x3x3x2xi8>", "tensor<?x4xf32>"}
	attrs := []string{"", "{axis = 5 : i32}", "{axis = 0 : i32, shift = 40 : i8, perms = array<i32: 1, 0>, pad = array<i64: -1, 0>}",
		"{kernel = array<i64: 9, 9>, stride = array<i64: 0, 0>, scale = array<i64: 0, 0, 0, 0>, mode = BILINEAR}",
		"{multiplier = array<i32: 1, 2, 3>, shift = array<i8: 1>, per_channel = true, new_shape = array<i64: 6>, multiples = array<i64: 2>}"}
	n := 0
	for _, name := range tosaOpNames {
		for _, ops := range lists {
			for _, res := range results {
				for _, at := range attrs {
					var tys []string
					for _, o := range ops {
						tys = append(tys, operands[o])
					}
					src := "func.func @f(%a: tensor<2x3xf32>, %i: tensor<2x3xi8>, %z: tensor<i32>, %q: tensor<1x4x4x2xi8>, %u: tensor<1xi8>, %d: tensor<?x4x4x2xi8>, %e: tensor<4x?xf32>) {\n" +
						"  %s = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>\n" +
						fmt.Sprintf("  %%r = tosa.%s %s %s : (%s) -> (%s)\n  return\n}\n", name, strings.Join(ops, ", "), at, strings.Join(tys, ", "), res)
					if strings.Contains(res, ",") {
						src = strings.Replace(src, "%r =", "%r, %r2 =", 1)
					}
					m, err := parser.Parse("fuzz.mlir", []byte(src))
					if err != nil {
						continue
					}
					n++
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Errorf("panic converting:\n%s\n%v", src, p)
							}
						}()
						_ = input.Run(m)
					}()
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d programs parsed", n)
	}
}
