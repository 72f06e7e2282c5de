package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextOutputFormats: flatbuffer-text is the compiled module as JSON,
// mlir-text in the VM dialect's structure; an early --compile-to keeps
// printing that phase's IR.
func TestTextOutputFormats(t *testing.T) {
	src := filepath.Join(t.TempDir(), "neg.mlir")
	os.WriteFile(src, []byte("func.func @neg(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.negf %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	code, out, stderr := run("--iree-hal-target-backends=vmvx", "--iree-vm-bytecode-module-output-format=flatbuffer-text", src)
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["exported_functions"] == nil {
		t.Fatalf("flatbuffer-text: exit %d, %s\n%s", code, stderr, out)
	}
	code, out, stderr = run("--iree-hal-target-backends=vmvx", "--iree-vm-bytecode-module-output-format=mlir-text", src)
	if code != 0 || !strings.HasPrefix(out, "vm.module public @") || !strings.Contains(out, "vm.export @neg") {
		t.Fatalf("mlir-text: exit %d, %s\n%s", code, stderr, out)
	}
	code, out, _ = run("--iree-hal-target-backends=vmvx", "--iree-vm-bytecode-module-output-format=mlir-text", "--compile-to=flow", src)
	if code != 0 || strings.Contains(out, "vm.module") {
		t.Errorf("--compile-to=flow with mlir-text printed:\n%s", out)
	}
	key := filepath.Join(t.TempDir(), "k")
	run("--gree-generate-signing-key=" + key)
	if code, _, stderr := run("--iree-hal-target-backends=vmvx", "--iree-vm-bytecode-module-output-format=flatbuffer-text", "--gree-sign-key="+key+".key", src); code == 0 || !strings.Contains(stderr, "text output format") {
		t.Errorf("signing a text output: exit %d %s", code, stderr)
	}
}
