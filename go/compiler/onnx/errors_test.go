package onnx

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"github.com/gree-ml/gree/go/status"
	"google.golang.org/protobuf/proto"
)

func marshal(t *testing.T, m *onnxpb.ModelProto) []byte {
	t.Helper()
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Bad files are errors naming the file and the problem, with IREE's
// status codes; never panics.
func TestBadFiles(t *testing.T) {
	good := marshal(t, testModels()["cnn"].m)
	cases := []struct {
		name string
		data []byte
		code status.Code
		want string
	}{
		{"empty", nil, status.InvalidArgument, "empty file"},
		{"truncated", good[:len(good)/2], status.DataLoss, "truncated or corrupt"},
		{"text", []byte("module {}\n"), status.InvalidArgument, "no main graph"},
		{"garbage", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2}, status.DataLoss, "not a valid ONNX model"},
		{"no graph", marshal(t, &onnxpb.ModelProto{IrVersion: proto.Int64(8)}), status.InvalidArgument, "no main graph"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseModel(c.data, "bad.onnx")
			if err == nil {
				t.Fatal("no error")
			}
			if status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.onnx") {
				t.Errorf("got %v (code %v), want %v containing %q and the file name", err, status.CodeOf(err), c.code, c.want)
			}
		})
	}
}

// Models that decode but are inconsistent are errors naming the node,
// tensor or value.
func TestBadModels(t *testing.T) {
	bad := func(mut func(m *onnxpb.ModelProto)) *onnxpb.ModelProto {
		m := proto.Clone(testModels()["cnn"].m).(*onnxpb.ModelProto)
		mut(m)
		return m
	}
	cases := []struct {
		name string
		m    *onnxpb.ModelProto
		want string
	}{
		{"raw size", bad(func(m *onnxpb.ModelProto) { m.Graph.Initializer[0].RawData = m.Graph.Initializer[0].RawData[:10] }), "has 10 bytes of raw data; expected 864"},
		{"value count", bad(func(m *onnxpb.ModelProto) { m.Graph.Initializer[3].FloatData = m.Graph.Initializer[3].FloatData[:3] }), "has 3 values; expected 10"},
		{"negative dim", bad(func(m *onnxpb.ModelProto) { m.Graph.Initializer[3].Dims = []int64{-10} }), "negative dimension"},
		{"unknown type", bad(func(m *onnxpb.ModelProto) { m.Graph.Initializer[3].DataType = proto.Int32(99) }), "unsupported ONNX tensor element type 99 (not an ONNX type)"},
		{"dangling input", bad(func(m *onnxpb.ModelProto) { m.Graph.Node[2].Input[0] = "nowhere" }), "non topologically produced ONNX node input 'nowhere'"},
		{"missing output", bad(func(m *onnxpb.ModelProto) { m.Graph.Output[0].Name = proto.String("ghost") }), "graph output 'ghost'"},
		{"external unloaded", bad(func(m *onnxpb.ModelProto) {
			m.Graph.Initializer[0].RawData = nil
			m.Graph.Initializer[0].DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
		}), "external data that was not loaded"},
		{"sparse attr", bad(func(m *onnxpb.ModelProto) {
			m.Graph.Node[1].Attribute = append(m.Graph.Node[1].Attribute, &onnxpb.AttributeProto{Name: proto.String("s"), Type: onnxpb.AttributeProto_SPARSE_TENSOR.Enum()})
		}), "attribute type SPARSE_TENSOR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(c.m, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("got %v (code %v), want INVALID_ARGUMENT containing %q", err, status.CodeOf(err), c.want)
			}
		})
	}
}

// External data is read from the data directory; locations outside it,
// missing files and out-of-range offsets are errors.
func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	m := proto.Clone(testModels()["cnn"].m).(*onnxpb.ModelProto)
	w := m.Graph.Initializer[0]
	weights := append([]byte("HEADER"), w.RawData...)
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), weights, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Import(proto.Clone(m).(*onnxpb.ModelProto), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ext := func(loc, off, length string) []byte {
		e := proto.Clone(m).(*onnxpb.ModelProto)
		t0 := e.Graph.Initializer[0]
		t0.RawData = nil
		t0.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
		t0.ExternalData = []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String(loc)}, {Key: proto.String("offset"), Value: proto.String(off)}, {Key: proto.String("length"), Value: proto.String(length)}}
		return marshal(t, e)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	n := len(w.RawData)
	path := write("model.onnx", ext("weights.bin", "6", strconv.Itoa(n)))
	got, err := ImportFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("external data import differs from the inline import")
	}
	// --data-dir elsewhere.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	p2 := filepath.Join(sub, "model.onnx")
	os.WriteFile(p2, ext("weights.bin", "6", strconv.Itoa(n)), 0o644)
	if _, err := ImportFile(p2, Options{}); err == nil || status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("missing external file: %v", err)
	}
	if _, err := ImportFile(p2, Options{DataDir: dir}); err != nil {
		t.Errorf("--data-dir: %v", err)
	}
	// Links out of the data directory (a device that never ends, a file
	// elsewhere) and files that are not regular are refused before any
	// byte is read.
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.bin")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "w.bin")
	os.WriteFile(outside, weights, 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "escape.bin")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ loc, off, length, want string }{
		{"../weights.bin", "0", "4", "must be a relative path inside the data directory"},
		{"/etc/passwd", "0", "4", "must be a relative path inside the data directory"},
		{"weights.bin", "6", strconv.Itoa(n + 1), "differs from the 864 bytes its shape [8 3 3 3] and type FLOAT need"},
		{"weights.bin", "7", strconv.Itoa(n), "lies outside"},
		{"weights.bin", "x", "4", "bad external data offset"},
		{"zero.bin", "0", strconv.Itoa(n), "outside the data directory"},
		{"escape.bin", "0", strconv.Itoa(n), "outside the data directory"},
		{"fifo", "0", strconv.Itoa(n), "not a regular file"},
	} {
		p := write("bad.onnx", ext(c.loc, c.off, c.length))
		if _, err := ImportFile(p, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.loc, err, c.want)
		}
	}
}

// --opset-version re-stamps when no op changed in between and otherwise
// names the op that did.
func TestOpsetUpgrade(t *testing.T) {
	m := proto.Clone(testModels()["cnn"].m).(*onnxpb.ModelProto) // opset 13
	// Flatten changed at opset 21.
	if _, err := Import(proto.Clone(m).(*onnxpb.ModelProto), Options{OpsetVersion: 21}); err == nil || !strings.Contains(err.Error(), "op Flatten") || !strings.Contains(err.Error(), "changed at opset 21") {
		t.Errorf("upgrade across a changed op: got %v", err)
	}
	out, err := Import(proto.Clone(m).(*onnxpb.ModelProto), Options{OpsetVersion: 8})
	if err != nil || !strings.Contains(string(out), "opset_version = 13 : si64") {
		t.Errorf("older target must leave the model as is: %v", err)
	}
	g := &onnxpb.GraphProto{Name: proto.String("g"), Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 2)},
		Node: []*onnxpb.NodeProto{node("Relu", []string{"x"}, []string{"y"})}, Output: []*onnxpb.ValueInfoProto{tensorVI("y", onnxpb.TensorProto_FLOAT, 2)}}
	out, err = Import(model(g, 14), Options{OpsetVersion: 20})
	if err != nil || !strings.Contains(string(out), "opset_version = 20 : si64") {
		t.Errorf("Relu (unchanged after 14) must be re-stamped: %v", err)
	}
	_, err = Import(model(g, 13), Options{OpsetVersion: 20})
	if err == nil || !strings.Contains(err.Error(), "op Relu") || !strings.Contains(err.Error(), "changed at opset 14") {
		t.Errorf("Relu changed at 14: got %v", err)
	}
}
