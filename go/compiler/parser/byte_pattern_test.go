package parser

import (
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// TestUtilGlobalBytePattern checks "= #util.byte_pattern<N> : T": every
// byte of the splat value is N, whatever the element type.
func TestUtilGlobalBytePattern(t *testing.T) {
	src := `util.global private @w {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<4x2xf32>
util.global private @b = #util.byte_pattern<255> : tensor<3xi16>
func.func @f() -> tensor<4x2xf32> {
  %p = util.global.address @w : !util.ptr<tensor<4x2xf32>>
  %v = util.global.load.indirect %p : !util.ptr<tensor<4x2xf32>> -> tensor<4x2xf32>
  return %v : tensor<4x2xf32>
}`
	m, err := Parse("g.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := m.Lookup("w").Attr("initial_value").(*ir.DenseElementsAttr)
	if math.Float32bits(float32(w.FloatAt(5))) != 0x01010101 {
		t.Errorf("f32 byte pattern 1: got %g", w.FloatAt(5))
	}
	if b := m.Lookup("b").Attr("initial_value").(*ir.DenseElementsAttr); b.IntAt(2) != -1 {
		t.Errorf("i16 byte pattern 255: got %d", b.IntAt(2))
	}
	if !strings.Contains(m.String(), `"util.global.load.indirect"`) {
		t.Errorf("indirect load not parsed:\n%s", m)
	}
	_, err = Parse("g.mlir", []byte(`util.global private @x = #util.byte_pattern<1> : tensor<?xf32>`))
	if err == nil || !strings.Contains(err.Error(), "g.mlir:1:26: error: 'util.global' initial value '#util.byte_pattern<1>' is not supported by gree") {
		t.Errorf("dynamic byte pattern: got %v", err)
	}
}
