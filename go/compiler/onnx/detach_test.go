package onnx

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestImportDetachedMatchesPrintedBlobs: the detached text, parsed with its
// blobs handed over, is the module that the printed text (weights in hex)
// parses to, and the blobs are the model's own bytes, not copies.
func TestImportDetachedMatchesPrintedBlobs(t *testing.T) {
	m := testModels()["cnn"].m
	opts := Options{FoldShapes: true}
	full, err := Import(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	text, blobs, err := ImportDetached(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "dialect_resources") || !strings.Contains(string(full), "dialect_resources") {
		t.Fatalf("want the resource section only in the printed import:\n%s", text)
	}
	if len(blobs) != 3 {
		t.Fatalf("got %d blobs, want the 3 raw_data initializers", len(blobs))
	}
	raw := map[*byte]bool{}
	for _, tp := range m.GetGraph().GetInitializer() {
		if len(tp.RawData) > 0 {
			raw[&tp.RawData[0]] = true
		}
	}
	for _, b := range blobs {
		if !raw[&b.Blob[0]] || b.Dialect != "builtin" || !b.Defined || b.Alignment != blobAlignment {
			t.Errorf("blob %s: not the model's raw data as a defined builtin resource", b.Key)
		}
	}
	want, err := parser.Parse("full.mlir", full)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parser.ParseWithOptions(text, parser.Options{Filename: "detached.mlir", Resources: blobs})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("detached import parses to\n%s\nwant\n%s", got, want)
	}
	// The resources cannot be given twice.
	if _, err := parser.ParseWithOptions(full, parser.Options{Resources: blobs}); err == nil || !strings.Contains(err.Error(), "duplicate resource") {
		t.Errorf("defining a handed-over resource again: got %v, want a duplicate resource error", err)
	}
}
