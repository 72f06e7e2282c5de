package onnx

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden imports the test models and compares the text with
// testdata/<name>.mlir (reviewed against IREE's importer: with
// GREE_ONNX_DUMP=dir the models are also written as dir/<name>.onnx so that
// `iree-import-onnx dir/<name>.onnx` can be diffed with the golden files).
func TestGolden(t *testing.T) {
	dump := os.Getenv("GREE_ONNX_DUMP")
	for name, tm := range testModels() {
		t.Run(name, func(t *testing.T) {
			if dump != "" {
				data, err := proto.Marshal(tm.m)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dump, name+".onnx"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := Import(tm.m, Options{FoldShapes: tm.fold})
			if err != nil {
				t.Fatal(err)
			}
			got := string(out) + "\n"
			file := filepath.Join("testdata", name+".mlir")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s differs (-want +got):\n%s", file, diff)
			}
		})
	}
}
