package cli

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// tinyONNX is y = relu(x · w) with w an initializer: [4,2] x [2,3].
func tinyONNX(t *testing.T) []byte {
	t.Helper()
	vi := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
	}
	raw := make([]byte, 24)
	for i := 0; i < 6; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)/4))
	}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{
			Name:        proto.String("torch-jit-export"),
			Input:       []*onnxpb.ValueInfoProto{vi("x", 4, 2)},
			Output:      []*onnxpb.ValueInfoProto{vi("z", 4, 3)},
			Initializer: []*onnxpb.TensorProto{{Name: proto.String("w"), Dims: []int64{2, 3}, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw}},
			Node: []*onnxpb.NodeProto{
				{OpType: proto.String("MatMul"), Input: []string{"x", "w"}, Output: []string{"y"}},
				{OpType: proto.String("Relu"), Input: []string{"y"}, Output: []string{"z"}},
			},
		},
	}
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// iree-compile takes .onnx files (and ONNX protobufs on stdin) directly.
func TestCompileONNXInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	data := tinyONNX(t)
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run("--compile-to=start", model)
	if code != 0 || !strings.Contains(out, "torch-jit-export") {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	code, _, stderr = run("--iree-hal-target-backends=vmvx", model, "-o", filepath.Join(dir, "m.vmfb"))
	if code != 0 {
		t.Fatalf("compile: %s", stderr)
	}
	if fi, err := os.Stat(filepath.Join(dir, "m.vmfb")); err != nil || fi.Size() == 0 {
		t.Fatalf("no module written: %v", err)
	}
	// The same model from stdin, detected by its content.
	var outb, errb strings.Builder
	if c := Main([]string{"--iree-hal-target-backends=vmvx", "-"}, strings.NewReader(string(data)), &outb, &errb); c != 0 || outb.Len() == 0 {
		t.Fatalf("stdin: code %d: %s", c, errb.String())
	}
}

// A truncated or corrupt .onnx is an error naming the file, not a crash.
func TestCompileBadONNX(t *testing.T) {
	dir := t.TempDir()
	data := tinyONNX(t)
	for name, bad := range map[string][]byte{
		"truncated.onnx": data[:len(data)/2],
		"empty.onnx":     {},
		"garbage.onnx":   {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := run("--iree-hal-target-backends=vmvx", p, "-o", filepath.Join(dir, "x.vmfb"))
		if code != 1 || !strings.Contains(stderr, name) || !(strings.Contains(stderr, "DATA_LOSS") || strings.Contains(stderr, "INVALID_ARGUMENT")) {
			t.Errorf("%s: code %d stderr %q", name, code, stderr)
		}
	}
}

// An unsupported operator in a .onnx input is an error naming the file,
// the node (its name, or its op type and index when unnamed), the op type
// and the opset.
func TestCompileONNXUnsupportedOpNamesNode(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ nodeName, want string }{
		{"head/sample", "node 'head/sample'"},
		{"", "node 'Bernoulli #1'"},
	} {
		m := &onnxpb.ModelProto{}
		if err := proto.Unmarshal(tinyONNX(t), m); err != nil {
			t.Fatal(err)
		}
		n := m.GetGraph().GetNode()[1]
		n.OpType = proto.String("Bernoulli")
		n.Name = proto.String(tc.nodeName)
		data, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "bern.onnx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := run("--iree-hal-target-backends=vmvx", p, "-o", filepath.Join(dir, "x.vmfb"))
		for _, w := range []string{p + ":", "onnx.Bernoulli", "opset 17", tc.want, "is not supported by gree"} {
			if code != 1 || !strings.Contains(stderr, w) {
				t.Errorf("node %q: code %d, stderr %q lacks %q", tc.nodeName, code, stderr, w)
			}
		}
	}
}
