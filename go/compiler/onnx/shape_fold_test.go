package onnx

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// shapeFoldModels are golden-test models (see testModels) for the shape
// computations gree folds beyond ONNX's data propagation and for the
// recurrent ops' result types.
func shapeFoldModels() map[string]struct {
	m    *onnxpb.ModelProto
	fold bool
} {
	type entry = struct {
		m    *onnxpb.ModelProto
		fold bool
	}
	out := map[string]entry{}

	// torch's expand(2, -1, -1) of a [1, 1, 4] parameter (ViT's class
	// token): the target shape is
	// Where(Equal(s, ConstantOfShape([3], 1) * -1), ConstantOfShape(..), s);
	// and a Range/Less/Not/Cast/Max chain of the same kind.
	expand := func() *onnxpb.GraphProto {
		one := &onnxpb.TensorProto{Dims: []int64{1}, DataType: proto.Int32(dtInt64), Int64Data: []int64{1}}
		return &onnxpb.GraphProto{
			Name:  proto.String("expand_where"),
			Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 2, 3, 4)},
			Initializer: []*onnxpb.TensorProto{
				rawF32("token", []int64{1, 1, 4}, []float32{0.5, -1, 2, 0.25}),
				i64s("target", []int64{3}, 2, -1, -1),
				i64s("len", []int64{1}, 3),
				i64s("minus1", nil, -1),
				i64s("r0", nil, 0), i64s("r1", nil, 3), i64s("r2", nil, 1),
				i64s("two", []int64{1}, 2),
			},
			Node: []*onnxpb.NodeProto{
				node("ConstantOfShape", []string{"len"}, []string{"ones"}, attrT("value", one)),
				node("Mul", []string{"ones", "minus1"}, []string{"neg"}),
				node("Equal", []string{"target", "neg"}, []string{"eq"}),
				node("Where", []string{"eq", "ones", "target"}, []string{"shape"}),
				node("Expand", []string{"token", "shape"}, []string{"tok"}),
				node("Concat", []string{"tok", "x"}, []string{"cat"}, attrI("axis", 1)),
				// [0, 1, 2] < 2 → [1, 1, 0]; Not → [0, 0, 1]; as int64,
				// Max with 1 → [1, 1, 1]; + [1, 3, 4] → [2, 4, 5].
				node("Range", []string{"r0", "r1", "r2"}, []string{"idx"}),
				node("Less", []string{"idx", "two"}, []string{"lt"}),
				node("Not", []string{"lt"}, []string{"nlt"}),
				node("Cast", []string{"nlt"}, []string{"nlti"}, attrI("to", int64(dtInt64))),
				node("Max", []string{"nlti", "r2"}, []string{"mx"}),
				node("Shape", []string{"tok"}, []string{"ts"}),
				node("Add", []string{"mx", "ts"}, []string{"shape2"}),
				node("ConstantOfShape", []string{"shape2"}, []string{"z"}),
			},
			Output: []*onnxpb.ValueInfoProto{tensorVI("cat", onnxpb.TensorProto_FLOAT, "a", "b", "c"), tensorVI("z", onnxpb.TensorProto_FLOAT, "d", "e", "f")},
		}
	}
	out["expand_where"] = entry{model(expand(), 17), false}
	out["expand_where_folded"] = entry{model(expand(), 17), true}

	// torch's F.pad(x, (1, 2, 3, 4)): the pads of the last two dimensions
	// are padded with zeros for the others, read as [n, 2] pairs in
	// reverse order (a Slice with step -1 of a 2-D value), transposed and
	// flattened into ONNX's [begins..., ends...].
	pad := func() *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name:  proto.String("pad_pairs"),
			Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 1, 2, 5, 6)},
			Initializer: []*onnxpb.TensorProto{
				i64s("torch_pads", []int64{4}, 1, 2, 3, 4), i64s("nzeros", []int64{1}, 4),
				i64s("pairs", []int64{2}, -1, 2), i64s("s", []int64{1}, -1), i64s("e", []int64{1}, -9223372036854775807),
				i64s("ax", []int64{1}, 0), i64s("st", []int64{1}, -1), i64s("flat", []int64{1}, -1),
			},
			Node: []*onnxpb.NodeProto{
				node("ConstantOfShape", []string{"nzeros"}, []string{"zeros"}, attrT("value", i64s("", []int64{1}, 0))),
				node("Concat", []string{"torch_pads", "zeros"}, []string{"all"}, attrI("axis", 0)),
				node("Reshape", []string{"all", "pairs"}, []string{"p2"}),
				node("Slice", []string{"p2", "s", "e", "ax", "st"}, []string{"rev"}),
				node("Transpose", []string{"rev"}, []string{"tr"}, attrIs("perm", 1, 0)),
				node("Reshape", []string{"tr", "flat"}, []string{"onnx_pads"}),
				node("Cast", []string{"onnx_pads"}, []string{"pads"}, attrI("to", int64(dtInt64))),
				node("Pad", []string{"x", "pads"}, []string{"y"}),
			},
			Output: []*onnxpb.ValueInfoProto{tensorVI("y", onnxpb.TensorProto_FLOAT, "a", "b", "c", "d")},
		}
	}
	out["pad_pairs"] = entry{model(pad(), 17), false}
	out["pad_pairs_folded"] = entry{model(pad(), 17), true}

	// Recurrent ops whose results feed other nodes, with no declared
	// types: RNN (Y only, Y_h omitted), a bidirectional GRU in layout 1
	// (opset 14), an LSTM with Y omitted, and one whose sequence length,
	// batch size and hidden_size are unknown.
	w := func(name string, dims ...int64) *onnxpb.TensorProto {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		return rawF32(name, dims, ramp(int(n), 0.05))
	}
	rnn := &onnxpb.GraphProto{
		Name: proto.String("rnn_outputs"),
		Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 5, 3, 8), tensorVI("xb", onnxpb.TensorProto_FLOAT, 3, 5, 8),
			tensorVI("xu", onnxpb.TensorProto_FLOAT, "S", "B", 8)},
		Initializer: []*onnxpb.TensorProto{
			w("rw", 1, 6, 8), w("rr", 1, 6, 6),
			w("gw", 2, 12, 8), w("gr", 2, 12, 4),
			w("lw", 1, 16, 8), w("lr", 1, 16, 4),
			i64s("ax1", []int64{1}, 1), i64s("ax0", []int64{1}, 0),
		},
		Node: []*onnxpb.NodeProto{
			node("RNN", []string{"x", "rw", "rr"}, []string{"ry", ""}, attrI("hidden_size", 6)),
			node("Squeeze", []string{"ry", "ax1"}, []string{"rys"}),
			node("GRU", []string{"xb", "gw", "gr"}, []string{"gy", "gh"}, attrI("hidden_size", 4), attrS("direction", "bidirectional"), attrI("layout", 1)),
			node("Relu", []string{"gy"}, []string{"gyr"}),
			node("Neg", []string{"gh"}, []string{"ghn"}),
			node("LSTM", []string{"x", "lw", "lr"}, []string{"", "lh", "lc"}, attrI("hidden_size", 4), attrS("direction", "reverse")),
			node("Add", []string{"lh", "lc"}, []string{"lsum"}),
			node("Squeeze", []string{"lsum", "ax0"}, []string{"ls"}),
			node("LSTM", []string{"xu", "lw", "lr"}, []string{"uy"}),
			node("Relu", []string{"uy"}, []string{"uyr"}),
		},
		Output: []*onnxpb.ValueInfoProto{tensorVI("rys", onnxpb.TensorProto_FLOAT, "a", "b", "c"), tensorVI("gyr", onnxpb.TensorProto_FLOAT, "d", "e", "f", "g"),
			tensorVI("ghn", onnxpb.TensorProto_FLOAT, "h", "i", "j"), tensorVI("ls", onnxpb.TensorProto_FLOAT, "k", "l"), tensorVI("uyr", onnxpb.TensorProto_FLOAT, "m", "n", "o", "p")},
	}
	out["rnn_outputs"] = entry{model(rnn, 14), false}
	return out
}

// TestFoldsWhereEqualChains: with FoldShapes the target shape of the
// expand chain and the Range/Less/Not/Cast/Max chain are constants, the
// ops that only computed them are gone, and the results are static.
func TestFoldsWhereEqualChains(t *testing.T) {
	m := shapeFoldModels()["expand_where_folded"].m
	out, err := Import(m, Options{FoldShapes: true})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, gone := range []string{"onnx.Where", "onnx.Equal", "onnx.Less", "onnx.Not", "onnx.Max", "onnx.Range", "onnx.Mul"} {
		if strings.Contains(text, gone) {
			t.Errorf("%s was not folded:\n%s", gone, text)
		}
	}
	for _, want := range []string{
		`(!torch.vtensor<[1,1,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[2,1,4],f32>`, // the Expand
		`-> !torch.vtensor<[2,4,4],f32>`, // the Concat
		`-> !torch.vtensor<[3,2,5],f32>`, // ConstantOfShape of [1,1,1] + [2,1,4]
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	// ONNX's own rules (IREE's importer) do not propagate through Where.
	out, err = Import(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `-> !torch.vtensor<[?,?,4],f32>`) {
		t.Errorf("ONNX rules: the Expand should stay dynamic:\n%s", out)
	}
}

// TestFoldsTorchPadPairs: the pads of torch's F.pad become the constant
// [0, 0, 3, 1, 0, 0, 4, 2] (N-D Slice with a negative step and Transpose
// propagated), so the Pad's result is static.
func TestFoldsTorchPadPairs(t *testing.T) {
	out, err := Import(shapeFoldModels()["pad_pairs_folded"].m, Options{FoldShapes: true})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{`dense<[0, 0, 3, 1, 0, 0, 4, 2]> : tensor<8xsi64>`, `-> !torch.vtensor<[1,2,12,9],f32>`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, gone := range []string{"onnx.Slice", "onnx.Transpose", "onnx.Reshape"} {
		if strings.Contains(text, gone) {
			t.Errorf("%s was not folded:\n%s", gone, text)
		}
	}
}

// TestRecurrentResultTypes checks the RNN/GRU/LSTM result types against
// ONNX's rules for each layout, direction and omitted output.
func TestRecurrentResultTypes(t *testing.T) {
	f32 := func(dims ...int64) *info { return &info{t: tensorType(dtFloat, dims)} }
	cases := []struct {
		name  string
		n     *onnxpb.NodeProto
		opset int64
		in    []*info
		want  []string
	}{
		{"rnn forward", node("RNN", []string{"x", "w", "r"}, []string{"y", "yh"}, attrI("hidden_size", 6)), 14,
			[]*info{f32(5, 3, 8)}, []string{"[5,1,3,6]", "[1,3,6]"}},
		{"gru bidirectional layout 1", node("GRU", []string{"x", "w", "r"}, []string{"y", "yh"}, attrI("hidden_size", 4), attrS("direction", "bidirectional"), attrI("layout", 1)), 14,
			[]*info{f32(3, 5, 8)}, []string{"[3,5,2,4]", "[3,2,4]"}},
		{"layout ignored before opset 14", node("GRU", []string{"x", "w", "r"}, []string{"y"}, attrI("hidden_size", 4), attrI("layout", 1)), 13,
			[]*info{f32(3, 5, 8)}, []string{"[3,1,5,4]"}},
		{"lstm three outputs", node("LSTM", []string{"x", "w", "r"}, []string{"", "yh", "yc"}, attrI("hidden_size", 7), attrS("direction", "reverse")), 17,
			[]*info{f32(2, 4, 3)}, []string{"[2,1,4,7]", "[1,4,7]", "[1,4,7]"}},
		{"unknown input shape and hidden size", node("LSTM", []string{"x", "w", "r"}, []string{"y"}), 17,
			[]*info{{t: &vtype{kind: kindTensor, elem: dtFloat}}}, []string{"[?,1,?,?]"}},
		{"unknown direction", node("RNN", []string{"x", "w", "r"}, []string{"y"}, attrI("hidden_size", 2), attrS("direction", "sideways")), 17,
			[]*info{f32(2, 4, 3)}, []string{"[2,?,4,2]"}},
	}
	for _, c := range cases {
		imp := &importer{opsets: map[string]int64{"": c.opset}}
		got := imp.inferNode(c.n, c.in)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d results, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i, g := range got {
			if s, _ := g.t.asm(); !strings.Contains(s, c.want[i]+",f32") {
				t.Errorf("%s: result %d is %s, want %s", c.name, i, s, c.want[i])
			}
		}
	}
	// A rank other than 3 gives no inference (ONNX fails it).
	imp := &importer{opsets: map[string]int64{"": 17}}
	if got := imp.inferNode(node("RNN", []string{"x"}, []string{"y"}, attrI("hidden_size", 2)), []*info{f32(2, 3)}); got != nil {
		t.Errorf("rank-2 input: got %v, want no inference", got)
	}
}
