package onnx

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// TestImportBatched: inputs sharing one symbolic dimension import at batch
// size 1 with a plan naming each input's and output's batch axis when the
// nodes keep items apart; a node that mixes them gives the reason; static
// models have no plan.
func TestImportBatched(t *testing.T) {
	graph := func(nodes []*onnxpb.NodeProto, in, out []any) *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name:        proto.String("g"),
			Node:        nodes,
			Initializer: []*onnxpb.TensorProto{f32s("w", []int64{4, 3}, make([]float32, 12)...)},
			Input:       []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, in...)},
			Output:      []*onnxpb.ValueInfoProto{tensorVI("y", onnxpb.TensorProto_FLOAT, out...)},
		}
	}
	// Sequence-first: the batch on axis 1.
	ok := graph([]*onnxpb.NodeProto{node("MatMul", []string{"x", "w"}, []string{"m"}), node("Relu", []string{"m"}, []string{"y"})},
		[]any{5, "batch", 4}, []any{5, "batch", 3})
	res, err := ImportBatched(model(ok, 17), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan == nil || res.Refused != nil {
		t.Fatalf("no plan (refused: %v)", res.Refused)
	}
	if res.Plan.Symbol != "batch" || res.Plan.Inputs[0] != 1 || res.Plan.Outputs[0] != 1 {
		t.Errorf("plan %+v, want batch axis 1 in and out", res.Plan)
	}
	if !strings.Contains(string(res.Text), "!torch.vtensor<[5,1,4],f32>") {
		t.Errorf("not imported at batch size 1:\n%s", res.Text)
	}
	mix := graph([]*onnxpb.NodeProto{node("MatMul", []string{"x", "w"}, []string{"m"}), node("Softmax", []string{"m"}, []string{"y"}, attrI("axis", 1))},
		[]any{5, "batch", 4}, []any{5, "batch", 3})
	res, err = ImportBatched(model(mix, 17), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan != nil || res.Refused == nil || !strings.Contains(res.Refused.Error(), "(Softmax) works along the batch axis") {
		t.Errorf("plan %+v, refused %v; want a refusal naming the Softmax", res.Plan, res.Refused)
	}
	static := graph([]*onnxpb.NodeProto{node("MatMul", []string{"x", "w"}, []string{"y"})}, []any{2, 4}, []any{2, 3})
	res, err = ImportBatched(model(static, 17), Options{})
	if err != nil || res.Plan != nil || res.Refused != nil {
		t.Errorf("static model: plan %+v, refused %v, err %v", res.Plan, res.Refused, err)
	}
}
