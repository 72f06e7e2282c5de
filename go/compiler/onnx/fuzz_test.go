package onnx

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// FuzzImport feeds arbitrary bytes to the loader and the importer: they
// may fail, but never panic (Import's own recover is not relied on: a
// recovered panic is reported as an INTERNAL error, which fails the fuzz).
func FuzzImport(f *testing.F) {
	for _, tm := range testModels() {
		data, err := proto.Marshal(tm.m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	f.Add([]byte{})
	f.Add([]byte("module {}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data, "fuzz.onnx")
		if err != nil {
			return
		}
		for _, fold := range []bool{false, true} {
			_, err := Import(proto.Clone(m).(*onnxpb.ModelProto), Options{FoldShapes: fold})
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("importer panicked: %v", err)
			}
		}
	})
}
