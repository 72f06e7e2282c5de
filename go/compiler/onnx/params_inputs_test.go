package onnx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// inputsModel has the graph inputs x (f32), W (also an initializer, so
// not counted), k (i64) and u (u8): y = x·W, plus outputs using k and u.
func inputsModel(kDims ...any) *onnxpb.ModelProto {
	return model(&onnxpb.GraphProto{
		Name: proto.String("inputs"),
		Input: []*onnxpb.ValueInfoProto{
			tensorVI("x", onnxpb.TensorProto_FLOAT, 2, 16),
			tensorVI("W", onnxpb.TensorProto_FLOAT, 16, 8),
			tensorVI("k", onnxpb.TensorProto_INT64, kDims...),
			tensorVI("u", onnxpb.TensorProto_UINT8, 4),
		},
		Output: []*onnxpb.ValueInfoProto{
			tensorVI("y", onnxpb.TensorProto_FLOAT, 2, 8),
			tensorVI("k2", onnxpb.TensorProto_INT64, kDims...),
			tensorVI("u2", onnxpb.TensorProto_UINT8, 4),
		},
		Initializer: []*onnxpb.TensorProto{rawF32("W", []int64{16, 8}, ramp(128, 0.5))},
		Node: []*onnxpb.NodeProto{
			node("MatMul", []string{"x", "W"}, []string{"y"}),
			node("Add", []string{"k", "k"}, []string{"k2"}),
			node("Add", []string{"u", "u"}, []string{"u2"}),
		},
	}, 17)
}

func TestExternalizedInputs(t *testing.T) {
	opts := Options{ExternalizeParams: true, ParamsMinElements: 100, ExternalizeInputs: true, InputParamsFrom: 1}
	out, params, err := ImportWithParams(inputsModel(3), opts)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		// Globals in IREE's order: the inputs, then the initializers.
		"  util.global private @\"_params.k\" {noinline} = #flow.parameter.named<\"model\"::\"k\"> : tensor<3xi64>\n" +
			"  util.global private @\"_params.u\" {noinline} = #flow.parameter.named<\"model\"::\"u\"> : tensor<4xi8>\n" +
			"  util.global private @\"_params.W\"",
		// x (index 0) stays the only argument.
		"func.func @inputs(%arg0: !torch.vtensor<[2,16],f32>) -> (",
		"= util.global.load @\"_params.k\" : tensor<3xi64>",
		"torch_c.from_builtin_tensor %0 : tensor<3xi64> -> !torch.vtensor<[3],si64>",
		"torch_c.from_builtin_tensor %2 : tensor<4xi8> -> !torch.vtensor<[4],ui8>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	// Inputs have no values in the model: only W goes to the archive.
	if len(params) != 1 || params[0].Key != "W" {
		t.Errorf("params %+v, want W only", params)
	}
	// Threshold 0: no argument is left.
	out, _, err = ImportWithParams(inputsModel(3), Options{ExternalizeParams: true, ExternalizeInputs: true})
	if err != nil || !strings.Contains(string(out), "func.func @inputs() -> (") || strings.Contains(string(out), "%arg") {
		t.Errorf("threshold 0: %v\n%s", err, out)
	}
	// Without --externalize-params the threshold has no effect, as in IREE.
	out, _, err = ImportWithParams(inputsModel(3), Options{ExternalizeInputs: true})
	if err != nil || strings.Contains(string(out), "util.global") || !strings.Contains(string(out), "%arg2") {
		t.Errorf("without ExternalizeParams: %v\n%s", err, out)
	}
}

func TestExternalizedInputsErrors(t *testing.T) {
	for _, c := range []struct {
		from int
		m    *onnxpb.ModelProto
		want string
	}{
		{3, inputsModel(3), "the graph has 3 inputs that are not initializers (the threshold must be in [0, 3))"},
		{-1, inputsModel(3), "(--externalize-inputs-threshold) -1 is not an input index"},
		{1, inputsModel("n"), "graph input 'k' has a dynamic dimension"},
	} {
		_, _, err := ImportWithParams(c.m, Options{ExternalizeParams: true, ExternalizeInputs: true, InputParamsFrom: c.from})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("from %d: %v, want %q", c.from, err, c.want)
		}
	}
	// A dynamic input before the threshold stays an argument.
	if _, _, err := ImportWithParams(inputsModel("n"), Options{ExternalizeParams: true, ExternalizeInputs: true, InputParamsFrom: 2}); err != nil {
		t.Errorf("k (index 1) is dynamic but stays an argument: %v", err)
	}
}

func TestDefaultParamsPath(t *testing.T) {
	for in, want := range map[string]string{
		"model.mlir":         "model_params.irpa",
		"out/a.b.mlir":       "out/a.b_params.irpa",
		"/tmp/tmpx1":         "/tmp/tmpx1_params.irpa",
		"dir/.hidden":        "dir/.hidden_params.irpa",
		"relative/dir/m.txt": "relative/dir/m_params.irpa",
	} {
		if got := defaultParamsPath(in); got != filepath.FromSlash(want) {
			t.Errorf("defaultParamsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExternalizeInputsCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "inputs.onnx")
	data, _ := proto.Marshal(inputsModel(3))
	os.WriteFile(in, data, 0o644)
	out := filepath.Join(dir, "inputs.mlir")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{in, "--externalize-params", "--externalize-inputs-threshold=0", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text, _ := os.ReadFile(out)
	if strings.Contains(string(text), "%arg") || !strings.Contains(string(text), `#flow.parameter.named<"model"::"x">`) {
		t.Errorf("inputs not externalized:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "inputs_params.irpa")); err != nil {
		t.Error(err)
	}
}
