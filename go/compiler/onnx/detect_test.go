package onnx

import (
	"testing"

	"google.golang.org/protobuf/proto"
)

// LooksLikeONNX tells ONNX protobufs from MLIR text and bytecode.
func TestLooksLikeONNX(t *testing.T) {
	for name, tm := range testModels() {
		data, err := proto.Marshal(tm.m)
		if err != nil {
			t.Fatal(err)
		}
		if !LooksLikeONNX(data) {
			t.Errorf("%s: not recognized as ONNX", name)
		}
	}
	for _, s := range []string{"module {\n}", "func.func @f() {\n}", "// comment\nmodule {}", "\n\nmodule {}", "ML\xefR\x00\x01", "#map = affine_map<(d0) -> (d0)>", ""} {
		if LooksLikeONNX([]byte(s)) {
			t.Errorf("%q recognized as ONNX", s)
		}
	}
}
