package onnx

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// TestOptionalGraphAttrsNamed: an op whose graph attributes are optional
// (FlexAttention's score_mod, prob_mod) records their names next to its
// regions, in the regions' (name) order; If, Loop and Scan do not.
func TestOptionalGraphAttrsNamed(t *testing.T) {
	mod := func(name string) *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name:   proto.String(name),
			Node:   []*onnxpb.NodeProto{node("Identity", []string{"s"}, []string{"o"})},
			Input:  []*onnxpb.ValueInfoProto{tensorVI("s", onnxpb.TensorProto_FLOAT, "B", "H", "L", "S")},
			Output: []*onnxpb.ValueInfoProto{tensorVI("o", onnxpb.TensorProto_FLOAT, "B", "H", "L", "S")},
		}
	}
	g := &onnxpb.GraphProto{
		Name: proto.String("flex"),
		Node: []*onnxpb.NodeProto{node("FlexAttention", []string{"q", "k", "v"}, []string{"y"},
			attrG("score_mod", mod("sm")), attrG("prob_mod", mod("pm")))},
		Input:  []*onnxpb.ValueInfoProto{tensorVI("q", onnxpb.TensorProto_FLOAT, 1, 2, 3, 4), tensorVI("k", onnxpb.TensorProto_FLOAT, 1, 2, 5, 4), tensorVI("v", onnxpb.TensorProto_FLOAT, 1, 2, 5, 4)},
		Output: []*onnxpb.ValueInfoProto{tensorVI("y", onnxpb.TensorProto_FLOAT, 1, 2, 3, 4)},
	}
	out, err := Import(model(g, 26), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `gree.graph_attrs = ["prob_mod", "score_mod"]`) {
		t.Errorf("no gree.graph_attrs naming the regions in name order:\n%s", out)
	}
	sub, err := Import(testModels()["subgraphs"].m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sub), "gree.graph_attrs") {
		t.Errorf("If/Loop got gree.graph_attrs:\n%s", sub)
	}
}
