package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestRegionCaptureErrors: what a scalar region body cannot read from
// outside (a tensor of rank > 0) is an error at the op that reads it, and
// a diagnostic at a name-only location prints that location as MLIR does
// (`<unknown>:0: error: loc("name"): ...`).
func TestRegionCaptureErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"rank-1 capture in a reduce body", `func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%acc: tensor<f32>, %e: tensor<f32>) {
    %s = stablehlo.reduce(%v init: %z) across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
     reducer(%p: tensor<f32>, %q: tensor<f32>) {
      %r = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }
    %r = stablehlo.add %acc, %s : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  return %0 : tensor<2xf32>
}`, `c.mlir:5:5: error: 'stablehlo.reduce' op uses a value of type tensor<3xf32> defined outside its region; an element-wise region body can only use rank-0 tensors from outside`},
		{"name-only location", `func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @foo(%x) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc5)
  return %0 : tensor<3xf32>
}
#loc5 = loc("eq")`, `<unknown>:0: error: loc("eq"): 'stablehlo.custom_call' op calls the custom target "foo"`},
		{"nested name location", `#loc4 = loc("sort")
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @foo(%x) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc11)
  return %0 : tensor<3xf32>
}
#loc11 = loc("sort:"(#loc4))`, `<unknown>:0: error: loc("sort:"("sort")): 'stablehlo.custom_call' op`},
		{"unknown location", `func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @foo(%x) : (tensor<3xf32>) -> tensor<3xf32> loc(unknown)
  return %0 : tensor<3xf32>
}`, `<unknown>:0: error: 'stablehlo.custom_call' op`},
		{"name with a file position", `func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @foo(%x) : (tensor<3xf32>) -> tensor<3xf32> loc("eq"("model.py":7:3))
  return %0 : tensor<3xf32>
}`, `model.py:7:3: error: 'stablehlo.custom_call' op`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := parser.Parse("c.mlir", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			err = input.Run(m)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v\nwant the prefix %q", err, c.want)
			}
		})
	}
}
