package onnx

import (
	"testing"
	"unsafe"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// TestParseModelAliased: a model over the aliasing size decodes to the
// same message as the plain decode, its initializers' raw data are slices
// of the input (not copies), and malformed input is the plain decode's
// error.
func TestParseModelAliased(t *testing.T) {
	m := testModels()["cnn"].m
	m = proto.Clone(m).(*onnxpb.ModelProto)
	big := ramp(aliasFromBytes/4+10, 0.25) // one initializer over the size
	m.Graph.Initializer = append(m.Graph.Initializer, rawF32("big", []int64{int64(len(big))}, big))
	m.Graph.Initializer = append(m.Graph.Initializer, rawF32("empty", []int64{0}, nil))
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseModel(data, "m.onnx")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseModelAliased(data, "m.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Fatal("the aliased decode differs from the plain one")
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	aliased := 0
	for _, tp := range got.Graph.Initializer {
		if len(tp.RawData) == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(&tp.RawData[0]))
		if p < lo || p > hi {
			t.Errorf("initializer %s: raw data copied, not a slice of the input", tp.GetName())
		}
		aliased++
	}
	if aliased != 4 {
		t.Errorf("%d initializers with raw data, want 4", aliased)
	}
	// Truncated: the same error as the plain decode.
	_, e1 := ParseModel(data[:len(data)-3], "m.onnx")
	_, e2 := ParseModelAliased(data[:len(data)-3], "m.onnx")
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
		t.Errorf("truncated model: plain %v, aliased %v", e1, e2)
	}
}
