package codegen_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// TestGolden lowers every dispatch of testdata/*.mlir with the CPU
// strategy and compares the printed kernels with the .golden file.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mlir")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, d := range lowerAll(t, string(src), codegen.CPUStrategy) {
				b.WriteString(d.Kernel.String())
				b.WriteString("\n")
			}
			golden := strings.TrimSuffix(f, ".mlir") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(b.String()), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("kernels differ from %s:\n%s", golden, b.String())
			}
		})
	}
}
