package torchonnx_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestOnnxErrors checks that unsupported ONNX operators and forms are
// diagnostics naming file:line:col, the ONNX op and the opset.
func TestOnnxErrors(t *testing.T) {
	const x = "!torch.vtensor<[2,4],f32>"
	cases := []struct{ body, want string }{
		{`%r = torch.operator "onnx.Foo"(%x) : (` + x + `) -> ` + x, "onnx.Foo (opset 17) is not supported by gree"},
		{`%r = torch.operator "onnx.EyeLike"(%x) : (` + x + `) -> !torch.vtensor<[2,?],f32>`, "onnx.EyeLike (opset 17) with dynamic result shapes is not supported by gree yet"},
		{`%r = torch.operator "onnx.Relu"(%x) : (` + x + `) -> !torch.vtensor`, "onnx.Relu (opset 17) unranked or malformed tensor type !torch.vtensor is not supported by gree"},
		{`%r = torch.operator "onnx.Relu"(%x) : (` + x + `) -> !torch.vtensor<[2,4],complex<f32>>`, "element type 'complex<f32>' is not supported by gree"},
		{`%r = torch.operator "onnx.Softmax"(%x) {torch.onnx.axis = 3 : si64} : (` + x + `) -> ` + x, "onnx.Softmax (opset 17) has axis 3 out of range for rank 2"},
		{`%r = torch.operator "onnx.Transpose"(%x) {torch.onnx.perm = [0 : si64, 0 : si64]} : (` + x + `) -> ` + x, "onnx.Transpose (opset 17) has an invalid perm [0 0]"},
		{`%r = torch.operator "onnx.Pad"(%x) {torch.onnx.mode = "mirror"} : (` + x + `) -> ` + x, "onnx.Pad (opset 17) mode 'mirror' is not supported by gree"},
		{`%r = torch.operator "onnx.BatchNormalization"(%x, %x, %x, %x, %x) {torch.onnx.training_mode = 1 : si64} : (` + x + `, ` + x + `, ` + x + `, ` + x + `, ` + x + `) -> ` + x, "onnx.BatchNormalization (opset 17) in training mode needs rank-1 inputs of 4 channels (input 1)"},
		{`%r = torch.operator "onnx.Resize"(%x) {torch.onnx.antialias = 1 : si64} : (` + x + `) -> ` + x, "onnx.Resize (opset 17) with antialias needs mode linear or cubic and keep_aspect_ratio_policy stretch"},
		{`%r = torch.operator "onnx.Conv"(%x, %x) : (` + x + `, ` + x + `) -> ` + x, "onnx.Conv (opset 17) needs inputs of rank >= 3 with matching weights"},
	}
	for _, c := range cases {
		src := "func.func @f(%x: " + x + ") attributes {torch.onnx_meta.opset_version = 17 : si64} {\n  " + c.body + "\n  return\n}\n"
		m, err := parser.Parse("bad.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: parse: %v", c.want, err)
		}
		err = input.Run(m)
		if err == nil {
			t.Errorf("%s: no error", c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "bad.mlir:2:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %q, want bad.mlir:2:… containing %q", err, c.want)
		}
	}
}

// TestOnnxSignatureTypes checks the mapping of torch types to builtin
// tensors (signless, unsigned remembered).
func TestOnnxSignatureTypes(t *testing.T) {
	src := `func.func @f(%a: !torch.vtensor<[1,?,3],si64>, %b: !torch.vtensor<[],ui8>, %c: !torch.vtensor<[2],bf16>) -> !torch.vtensor<[],ui8> {
  return %b : !torch.vtensor<[],ui8>
}
`
	m, err := parser.Parse("sig.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatal(err)
	}
	got := m.String()
	want := "function_type = (tensor<1x?x3xi64>, tensor<i8>, tensor<2xbf16>) -> tensor<i8>"
	if !strings.Contains(got, want) {
		t.Errorf("converted module lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "torch.") && !strings.Contains(got, "torch.onnx_meta") {
		t.Errorf("torch ops or types remain:\n%s", got)
	}
}
