package torchonnx_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestOnnxReduceRuntimeAxes checks reductions whose axes are a run-time
// input: when the static shapes fit more than one set of reduced
// dimensions (keepdims=0), each is reduced and the axes' bit mask selects
// one; too many choices, or axes of unknown length, are errors.
func TestOnnxReduceRuntimeAxes(t *testing.T) {
	src := func(x, axes, r string) string {
		return "func.func @f(%x: " + x + ", %a: " + axes + ") -> " + r +
			" attributes {torch.onnx_meta.opset_version = 18 : si64} {\n" +
			`  %r = torch.operator "onnx.ReduceMean"(%x, %a) {torch.onnx.keepdims = 0 : si64} : (` + x + ", " + axes + ") -> " + r + "\n" +
			"  return %r : " + r + "\n}\n"
	}
	m, err := parser.Parse("r.mlir", []byte(src("!torch.vtensor<[3,2,2],f32>", "!torch.vtensor<[1],si64>", "!torch.vtensor<[3,2],f32>")))
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatalf("convert: %v", err)
	}
	got := m.String()
	// Two candidate reductions (dimension 1 or 2), the axes' mask (shli,
	// ori) and the selection against masks 2 and 4.
	for _, want := range []string{`"arith.shli"`, `"arith.ori"`, "value = 2 : i64", "value = 4 : i64"} {
		if !strings.Contains(got, want) {
			t.Errorf("converted function lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"reduction"`) + strings.Count(got, "#linalg.iterator_type<reduction>"); n < 3 {
		t.Errorf("want 3 reductions (mask and two candidates), found %d:\n%s", n, got)
	}

	bad := []struct{ x, axes, r, want string }{
		{"!torch.vtensor<[2,2,2,2,2,2,2,2],f32>", "!torch.vtensor<[4],si64>", "!torch.vtensor<[2,2,2,2],f32>", "9 or more sets of dimensions fit"},
		{"!torch.vtensor<[3,2,2],f32>", "!torch.vtensor<[2],si64>", "!torch.vtensor<[3,2],f32>", "whose dimensions the shapes do not determine"},
	}
	for _, c := range bad {
		m, err := parser.Parse("r.mlir", []byte(src(c.x, c.axes, c.r)))
		if err != nil {
			t.Fatal(err)
		}
		err = input.Run(m)
		if err == nil || !strings.Contains(err.Error(), "onnx.ReduceMean (opset 18)") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an onnx.ReduceMean error containing %q", c.x, err, c.want)
		}
	}
}
