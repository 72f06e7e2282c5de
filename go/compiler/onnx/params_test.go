package onnx

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// paramsModel is y = x·W + b with a 16×8 weight and an 8-element bias.
func paramsModel() *onnxpb.ModelProto {
	return model(&onnxpb.GraphProto{
		Name:        proto.String("dense"),
		Input:       []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 2, 16)},
		Output:      []*onnxpb.ValueInfoProto{tensorVI("y", onnxpb.TensorProto_FLOAT, 2, 8)},
		Initializer: []*onnxpb.TensorProto{rawF32("W", []int64{16, 8}, ramp(128, 0.5)), f32s("b", []int64{8}, ramp(8, 2)...)},
		Node:        []*onnxpb.NodeProto{node("MatMul", []string{"x", "W"}, []string{"xw"}), node("Add", []string{"xw", "b"}, []string{"y"})},
	}, 17)
}

func TestExternalizedParameters(t *testing.T) {
	out, params, err := ImportWithParams(paramsModel(), Options{ExternalizeParams: true, ParamsMinElements: 100, ParamsScope: "m"})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"  util.global private @\"_params.W\" {noinline} = #flow.parameter.named<\"m\"::\"W\"> : tensor<16x8xf32>\n",
		"= util.global.load @\"_params.W\" : tensor<16x8xf32>",
		"= torch_c.from_builtin_tensor %0 : tensor<16x8xf32> -> !torch.vtensor<[16,8],f32>",
		"torch.operator \"onnx.Constant\"", // the bias stays inline (8 < 100 elements)
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if len(params) != 1 || params[0].Key != "W" || len(params[0].Data) != 128*4 {
		t.Fatalf("params %+v", params)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(params[0].Data[4:])); got != ramp(2, 0.5)[1] {
		t.Errorf("W[1] = %v", got)
	}
	// Without the option the text is what it always was.
	plain, _, _ := ImportWithParams(paramsModel(), Options{})
	if strings.Contains(string(plain), "util.global") {
		t.Error("parameters without --externalize-params")
	}
	// Threshold 0: every float initializer is a parameter.
	_, all, _ := ImportWithParams(paramsModel(), Options{ExternalizeParams: true})
	if len(all) != 2 {
		t.Errorf("threshold 0 externalized %d initializers, want 2", len(all))
	}
}

func TestExternalizeParamsCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dense.onnx")
	data, _ := proto.Marshal(paramsModel())
	os.WriteFile(in, data, 0o644)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "dense.mlir")
	if code := Main([]string{in, "--externalize-params", "--num-elements-threshold", "8", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	arch, err := os.ReadFile(filepath.Join(dir, "dense_params.irpa")) // IREE's name: the output's stem
	if err != nil || !bytes.HasPrefix(arch, []byte("IRPA")) || !bytes.Contains(arch, []byte("W")) {
		t.Fatalf("archive: %v, %q…", err, arch[:min(len(arch), 8)])
	}
	custom := filepath.Join(dir, "p.irpa")
	if code := Main([]string{in, "--externalize-params", "--save-params-to", custom, "--params-scope", "s", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(custom); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{in, "--externalize-params"}, "pass -o, or --save-params-to"},
		{[]string{in, "--externalize-params", "--num-elements-threshold", "x", "-o", out}, "invalid int value"},
		{[]string{in, "--externalize-params", "--externalize-inputs-threshold", "one", "-o", out}, "invalid int value"},
		{[]string{in, "--externalize-params", "--externalize-inputs-threshold", "1", "--no-save-params"}, "must be in [0, 1)"},
	} {
		stderr.Reset()
		if code := Main(c.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr.String())
		}
	}
	stdout.Reset()
	if code := Main([]string{in, "--externalize-params", "--no-save-params"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "util.global") {
		t.Errorf("--no-save-params: exit %d, %s", code, stderr.String())
	}
}
