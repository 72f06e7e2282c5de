package vm

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// TestParameterGlobals: every spelling of a named parameter becomes a
// constant that references the parameter and holds no data.
func TestParameterGlobals(t *testing.T) {
	src := `
util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4x8xf32>
"util.global"() <{initial_value = #stream.parameter.named<"model"::"b"> : tensor<8xf32>, sym_name = "b", sym_visibility = "private", type = tensor<8xf32>}> : () -> ()
util.global private @g = #flow.parameter.named<"global_key"> : tensor<8xi8>
func.func @f(%x: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xi8>, tensor<3xi32>) {
  %w = util.global.load @w : tensor<4x8xf32>
  %b = util.global.load @b : tensor<8xf32>
  %g = util.global.load @g : tensor<8xi8>
  %c = flow.tensor.constant #flow.parameter.named<"model"::"in \"body\""> : tensor<3xi32>
  return %w, %b, %g, %c : tensor<4x8xf32>, tensor<8xf32>, tensor<8xi8>, tensor<3xi32>
}`
	m := build(t, src)
	want := map[string]int64{"model::w": 128, "model::b": 32, "global_key": 8, `model::in "body"`: 12}
	got := map[string]int64{}
	for _, c := range m.Constants {
		if c.Parameter == nil {
			continue
		}
		if len(c.Data) != 0 {
			t.Errorf("parameter %s carries %d bytes of data", c.Parameter, len(c.Data))
		}
		got[c.Parameter.String()] = c.ByteLength()
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("parameter %s: %d bytes, want %d (have %v)", k, got[k], n, got)
		}
	}
	if !m.HasParameters() {
		t.Fatal("no parameters")
	}
	data := module.Encode(m)
	if !strings.Contains(string(data), "global_key") {
		t.Error("the encoded module lacks the parameter key")
	}
	if _, err := module.Decode(data); err != nil {
		t.Fatal(err)
	}
}
